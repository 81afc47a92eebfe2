// What the chain-facing RPC modules (mc_*, debug_*, personal_*) call: the node behind the
// handlers, as geth's ethapi Backend is. Handlers decode params, make one call here and encode the
// result; the node implements it over its parts (node/mcBackend.ts), and handler tests run in
// process against a fake one.

import type { TxRequest } from '../accounts/signer.js';
import type { Block, Receipt, SignedTx } from '../chain/types.js';
import type { BlockTag } from '../encoding/hex.js';
import type { FeeHistory } from '../blockchain/feeHistory.js';
import type { PendingBlock } from '../miner/pendingBlock.js';
import type { AccountProof } from '../state/proof.js';
import type { StateReader } from '../state/stateReader.js';

/** A block tag resolved: a stored block, or the block being built on the head. */
export type ResolvedBlock = { kind: 'mined'; block: Block } | { kind: 'pending'; pending: PendingBlock };

export interface SyncProgress {
  startingBlock: bigint;
  currentBlock: bigint;
  highestBlock: bigint;
}

export interface McBackend {
  readonly chainId: bigint;

  // Blocks, transactions, receipts
  head(): Block;
  /** The block a tag names; undefined for a number above the head. */
  blockAt(tag: BlockTag): Promise<ResolvedBlock | undefined>;
  blockByHash(hash: Uint8Array): Promise<Block | undefined>;
  totalDifficulty(blockHash: Uint8Array): Promise<bigint | undefined>;
  /** A mined transaction's canonical block and index. */
  findTransaction(hash: Uint8Array): Promise<{ block: Block; index: number } | undefined>;
  receipts(blockHash: Uint8Array): Promise<Receipt[] | undefined>;
  /** A transaction waiting in the pool. */
  poolTransaction(hash: Uint8Array): SignedTx | undefined;

  // State
  /** The state a tag names (throws not-found for a block above the head). */
  stateAt(tag: BlockTag): Promise<StateReader>;
  /** EIP-1186 proof of an account and slots at a stored state root. */
  proof(stateRoot: Uint8Array, address: Uint8Array, slots: bigint[]): Promise<AccountProof>;
  feeHistory(count: number, newest: bigint, percentiles: number[] | undefined): Promise<FeeHistory>;

  // Sending and signing
  /** Decodes a raw transaction for this chain (throws a DecodeError or a refusal). */
  decodeRawTransaction(raw: Uint8Array): SignedTx;
  /** Hands a signed transaction to the pool (or the SCS); resolves once it is journaled. */
  submit(tx: SignedTx): Promise<void>;
  /**
   * Fills, signs (with the unlocked key of `from`, or `key`) and submits; an impersonated sender
   * needs no key and is sealed at once. Returns the transaction.
   */
  sendTransaction(req: TxRequest, key?: Uint8Array): Promise<SignedTx>;
  /** MOAC's signed message (r‖s‖v) with the unlocked key of `address`, or `key`. */
  signMessage(address: Uint8Array, message: Uint8Array, key?: Uint8Array): Uint8Array;

  // Calls (a request without `from` runs as the first owned account; `dappAddr` goes before the data)
  call(req: TxRequest, tag: BlockTag): Promise<Uint8Array>;
  /** Gas for `req` at `tag`, at most its own `gas` or the pending block's gas limit. */
  estimateGas(req: TxRequest, tag: BlockTag): Promise<bigint>;

  // The node
  accounts(): Uint8Array[];
  coinbase(): Uint8Array;
  mining(): boolean;
  /** the suggested gas price (mc_gasPrice) */
  gasPrice(): bigint;
  /** while behind a peer: where the sync began, where we are, the peer's head */
  syncProgress(): SyncProgress | undefined;
}
