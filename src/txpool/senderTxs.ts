// One sender's transactions in the pool, by nonce. The executable ("pending") ones form the run
// stateNonce … pendingEnd−1; everything else waits ("queued") behind a gap, or behind the global
// pending cap when a gap fill could not promote all of them at once.

import type { SignedTx } from '../chain/types.js';

export class SenderTxs {
  readonly txs = new Map<bigint, SignedTx>();
  /** the account's nonce at the head: the first executable nonce */
  stateNonce: bigint;
  /** first nonce that is not pending */
  pendingEnd: bigint;

  constructor(
    readonly from: Uint8Array,
    stateNonce: bigint,
  ) {
    this.stateNonce = stateNonce;
    this.pendingEnd = stateNonce;
  }

  get pendingCount(): number {
    return Number(this.pendingEnd - this.stateNonce);
  }

  get queuedCount(): number {
    return this.txs.size - this.pendingCount;
  }

  isPending(nonce: bigint): boolean {
    return nonce >= this.stateNonce && nonce < this.pendingEnd;
  }

  /** True when the next nonce after the pending run is waiting in the pool. */
  get promotable(): boolean {
    return this.txs.has(this.pendingEnd);
  }

  /** Moves up to `room` contiguous waiting transactions into the pending run. */
  promote(room: number): SignedTx[] {
    const out: SignedTx[] = [];
    while (out.length < room) {
      const tx = this.txs.get(this.pendingEnd);
      if (!tx) break;
      out.push(tx);
      this.pendingEnd++;
    }
    return out;
  }

  /** The nonce after the contiguous run, counting waiting transactions that could be promoted. */
  contiguousEnd(): bigint {
    let n = this.pendingEnd;
    while (this.txs.has(n)) n++;
    return n;
  }

  /** Removes one transaction; removing a pending one turns every later one into queued. */
  remove(nonce: bigint): SignedTx | undefined {
    const tx = this.txs.get(nonce);
    if (!tx) return undefined;
    this.txs.delete(nonce);
    if (this.isPending(nonce)) this.pendingEnd = nonce;
    return tx;
  }

  /** The head moved the account nonce to `nonce`: forgets the transactions below it. */
  advance(nonce: bigint): SignedTx[] {
    if (nonce <= this.stateNonce) return [];
    const removed: SignedTx[] = [];
    if (nonce - this.stateNonce <= BigInt(this.txs.size)) {
      for (let n = this.stateNonce; n < nonce; n++) {
        const tx = this.txs.get(n);
        if (tx) removed.push(tx);
        this.txs.delete(n);
      }
    } else {
      for (const [n, tx] of this.txs) if (n < nonce) removed.push(tx);
      for (const tx of removed) this.txs.delete(tx.nonce);
    }
    this.stateNonce = nonce;
    if (this.pendingEnd < nonce) this.pendingEnd = nonce;
    return removed;
  }

  /** The last pending transaction (evicting it leaves no gap), if any. */
  pendingTail(): SignedTx | undefined {
    return this.pendingEnd > this.stateNonce ? this.txs.get(this.pendingEnd - 1n) : undefined;
  }

  /** The queued transaction with the highest nonce, if any. */
  queuedTail(): SignedTx | undefined {
    if (this.queuedCount === 0) return undefined;
    let last: SignedTx | undefined;
    for (const [n, tx] of this.txs) if (n >= this.pendingEnd && (!last || n > last.nonce)) last = tx;
    return last;
  }

  /** Pending transactions in nonce order. */
  pendingList(): SignedTx[] {
    const out: SignedTx[] = [];
    for (let n = this.stateNonce; n < this.pendingEnd; n++) out.push(this.txs.get(n)!);
    return out;
  }

  /** Queued transactions in nonce order. */
  queuedList(): SignedTx[] {
    const out: SignedTx[] = [];
    for (const [n, tx] of this.txs) if (n >= this.pendingEnd) out.push(tx);
    return out.sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0));
  }
}
