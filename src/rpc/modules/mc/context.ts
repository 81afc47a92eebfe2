// What the mc_* handlers need from the node, and how a block tag becomes a block or a state.

import type { Block, SignedTx, TxFields } from '../../../chain/types.js';
import type { BlockTag } from '../../../encoding/hex.js';
import { notFound } from '../../../errors.js';
import type { Blockchain } from '../../../blockchain/blockchain.js';
import type { WorldState } from '../../../state/worldState.js';
import { pendingStateReader, storedStateReader, type StateReader } from '../../../state/stateReader.js';
import type { TxPool } from '../../../txpool/txPool.js';
import type { Miner } from '../../../miner/miner.js';
import type { PendingBlock, PendingBlockCache } from '../../../miner/pendingBlock.js';
import type { CallExecutor } from '../../../execution/call.js';
import type { Wallet } from '../../../accounts/wallet.js';
import type { TxSigner } from '../../../accounts/signer.js';
import type { TxSubmitter } from '../../../txpool/submitter.js';

export interface McContext {
  chain: Blockchain;
  world: WorldState;
  pool: TxPool;
  miner: Miner;
  pending: PendingBlockCache;
  calls: CallExecutor;
  wallet: Wallet;
  chainId: bigint;
  /** suggested gas price (mc_gasPrice) */
  gasPrice: () => bigint;
  /** decodes and checks a raw transaction for this chain */
  decodeRaw: (raw: Uint8Array) => SignedTx;
  /** fills defaults and signs a transaction request */
  signer: TxSigner;
  /** hands a signed transaction to the pool (or the SCS for app-chain flags); resolves once journaled */
  submitter: TxSubmitter;
  /** accounts sendable without a key (anvil_impersonateAccount); absent where dev controls are off */
  impersonation?: {
    isImpersonated(address: Uint8Array): boolean;
    sendImpersonated(from: Uint8Array, fields: TxFields): Promise<SignedTx>;
  };
  /** block sync progress while behind a peer (mc_syncing) */
  syncProgress?: () => { startingBlock: bigint; currentBlock: bigint; highestBlock: bigint } | undefined;
}

export type ResolvedBlock = { kind: 'mined'; block: Block } | { kind: 'pending'; pending: PendingBlock };

export async function resolveBlock(ctx: McContext, tag: BlockTag): Promise<ResolvedBlock | undefined> {
  if (tag === 'pending') return { kind: 'pending', pending: await ctx.pending.get() };
  const block =
    tag === 'latest' ? ctx.chain.head : tag === 'earliest' ? ctx.chain.genesis : await ctx.chain.getBlockByNumber(tag);
  return block && { kind: 'mined', block };
}

/** The state a block tag names: a stored root, or the pending block's state. */
export async function resolveState(ctx: McContext, tag: BlockTag): Promise<StateReader> {
  if (tag === 'latest') return storedStateReader(ctx.world, ctx.chain.head.header);
  const resolved = await resolveBlock(ctx, tag);
  if (!resolved) throw notFound('header not found');
  if (resolved.kind === 'pending') return pendingStateReader(resolved.pending.header, resolved.pending.state);
  return storedStateReader(ctx.world, resolved.block.header);
}
