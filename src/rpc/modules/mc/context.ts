// What the mc_* handlers need from the node, and how a block tag becomes a block or a state.

import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { Block, Header, SignedTx, TxFields } from '../../../chain/types.js';
import type { BlockTag } from '../../../encoding/hex.js';
import { refused } from '../../../errors.js';
import type { Blockchain } from '../../../blockchain/blockchain.js';
import type { WorldState } from '../../../state/worldState.js';
import type { TxPool } from '../../../txpool/txPool.js';
import type { Miner } from '../../../miner/miner.js';
import type { PendingBlock, PendingBlockCache } from '../../../miner/pendingBlock.js';
import type { CallExecutor } from '../../../execution/call.js';
import type { Wallet } from '../../../accounts/wallet.js';

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
  /** hands a signed transaction to the pool (or the SCS for app-chain flags); resolves once journaled */
  submit: (tx: SignedTx) => Promise<void>;
  /** next nonce of `from` on an app chain (transactions with shardingFlag 1–3 use it) */
  appChainNonce: (appChain: Uint8Array, from: Uint8Array) => Promise<bigint>;
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

/** A state to read: a stored root, or the pending block's state manager. */
export interface StateAt {
  header: Header;
  pendingState?: MerkleStateManager;
}

export async function resolveState(ctx: McContext, tag: BlockTag): Promise<StateAt> {
  if (tag === 'latest') return { header: ctx.chain.head.header };
  const resolved = await resolveBlock(ctx, tag);
  if (!resolved) throw refused('header not found');
  if (resolved.kind === 'pending') return { header: resolved.pending.header, pendingState: resolved.pending.state };
  return { header: resolved.block.header };
}
