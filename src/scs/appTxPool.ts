// The transaction pool of one app chain: acknowledged transactions by sender and nonce. A
// sender's transactions from its state nonce on without a gap are pending (the next block
// takes them); the rest are queued until the gap is filled.

import type { SignedTx } from '../chain/types.js';
import { txRejected } from '../errors.js';
import { bytesToHex } from '../encoding/hex.js';

/** Transactions one app chain holds at most (acknowledged, not yet in a block). */
export const APP_POOL_LIMIT = 4096;
/** Transactions one app-chain block takes at most (the real node's DirectCallLimitPerBlock). */
export const APP_BLOCK_TX_LIMIT = 2048;

export type NonceOf = (sender: Uint8Array) => Promise<bigint>;

export interface AppPoolContent {
  pending: Map<string, SignedTx[]>;
  queued: Map<string, SignedTx[]>;
}

export class AppTxPool {
  /** sender hex → nonce → tx; senders in arrival order */
  private readonly bySender = new Map<string, Map<bigint, SignedTx>>();
  private readonly byHash = new Map<string, SignedTx>();

  get size(): number {
    return this.byHash.size;
  }

  get(hash: Uint8Array): SignedTx | undefined {
    return this.byHash.get(bytesToHex(hash));
  }

  /** Refuses a transaction that can never be included or that the pool cannot take. */
  check(tx: SignedTx, stateNonce: bigint): void {
    if (this.byHash.has(bytesToHex(tx.hash))) throw txRejected(`already known: ${bytesToHex(tx.hash)}`);
    if (tx.nonce < stateNonce) throw txRejected(`nonce too low: next nonce ${stateNonce}, tx nonce ${tx.nonce}`);
    if (this.bySender.get(bytesToHex(tx.from))?.has(tx.nonce)) {
      throw txRejected(`nonce ${tx.nonce} is already used by a transaction waiting in the app chain's pool`);
    }
    if (this.byHash.size >= APP_POOL_LIMIT) throw txRejected('app chain txpool is full');
  }

  add(tx: SignedTx): void {
    const sender = bytesToHex(tx.from);
    let txs = this.bySender.get(sender);
    if (!txs) this.bySender.set(sender, (txs = new Map()));
    txs.set(tx.nonce, tx);
    this.byHash.set(bytesToHex(tx.hash), tx);
  }

  remove(txs: SignedTx[]): void {
    for (const tx of txs) {
      const sender = bytesToHex(tx.from);
      const bySender = this.bySender.get(sender);
      if (bySender?.get(tx.nonce) === tx) bySender.delete(tx.nonce);
      if (bySender?.size === 0) this.bySender.delete(sender);
      this.byHash.delete(bytesToHex(tx.hash));
    }
  }

  /** The next block's transactions: each sender's gap-free run, senders in arrival order. */
  async executable(nonceOf: NonceOf, limit = APP_BLOCK_TX_LIMIT): Promise<SignedTx[]> {
    const { pending } = await this.content(nonceOf);
    return [...pending.values()].flat().slice(0, limit);
  }

  /** The nonce after the sender's pending run. */
  pendingNonce(sender: Uint8Array, stateNonce: bigint): bigint {
    const txs = this.bySender.get(bytesToHex(sender));
    let next = stateNonce;
    while (txs?.has(next)) next++;
    return next;
  }

  async content(nonceOf: NonceOf): Promise<AppPoolContent> {
    const pending = new Map<string, SignedTx[]>();
    const queued = new Map<string, SignedTx[]>();
    for (const [sender, txs] of this.bySender) {
      const first = txs.values().next().value as SignedTx;
      let next = await nonceOf(first.from);
      const sorted = [...txs.values()].sort((a, b) => (a.nonce < b.nonce ? -1 : 1));
      const run: SignedTx[] = [];
      const rest: SignedTx[] = [];
      for (const tx of sorted) {
        if (tx.nonce === next) {
          run.push(tx);
          next++;
        } else if (tx.nonce > next) {
          rest.push(tx);
        }
      }
      if (run.length) pending.set(sender, run);
      if (rest.length) queued.set(sender, rest);
    }
    return { pending, queued };
  }
}
