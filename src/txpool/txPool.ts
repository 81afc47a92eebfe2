// The transaction pool: per-sender nonce-ordered transactions, `pending` (executable from the
// sender's state nonce without a gap) and `queued` (waiting behind a gap). Every accepted
// transaction is in the on-disk journal before `add` resolves, so an acknowledged hash survives
// a crash; mined transactions leave the journal in the block's own batch.

import { EventEmitter } from 'node:events';
import type { SignedTx } from '../chain/types.js';
import { refused } from '../errors.js';
import { bytesToHex } from '../encoding/hex.js';
import { intrinsicGas } from '../execution/gas.js';
import type { BatchOp, Database } from '../store/database.js';
import { keys } from '../store/schema.js';

export interface PoolAccountState {
  nonce: bigint;
  balance: bigint;
}

export interface PoolOptions {
  minGasPrice: bigint;
  priceBump: bigint;
  globalSlots: number;
  globalQueue: number;
  accountQueue: number;
  /** state of an account at the current head */
  accountAt: (address: Uint8Array) => Promise<PoolAccountState>;
  blockGasLimit: () => bigint;
}

export interface PoolContent {
  pending: Map<string, SignedTx[]>;
  queued: Map<string, SignedTx[]>;
}

export class TxPool extends EventEmitter<{ pendingTx: [SignedTx]; dropped: [SignedTx] }> {
  private readonly bySender = new Map<string, Map<bigint, SignedTx>>();
  private readonly byHash = new Map<string, SignedTx>();
  private readonly stateNonce = new Map<string, bigint>();

  constructor(
    private readonly db: Database,
    private readonly opts: PoolOptions,
  ) {
    super();
  }

  get(hash: Uint8Array): SignedTx | undefined {
    return this.byHash.get(bytesToHex(hash));
  }

  get size(): number {
    return this.byHash.size;
  }

  /** Validates, journals and adds; throws a Refused NodeError with geth's words. */
  async add(tx: SignedTx): Promise<void> {
    const hashKey = bytesToHex(tx.hash);
    if (this.byHash.has(hashKey)) throw refused('already known');
    if (tx.gas > this.opts.blockGasLimit()) throw refused('exceeds block gas limit');
    if (tx.gas < intrinsicGas(tx.data, tx.to === null)) throw refused('intrinsic gas too low');
    if (tx.gasPrice < this.opts.minGasPrice) throw refused('transaction underpriced');

    const sender = bytesToHex(tx.from);
    const state = await this.opts.accountAt(tx.from);
    this.stateNonce.set(sender, state.nonce);
    if (tx.nonce < state.nonce) throw refused('nonce too low');
    if (state.balance < tx.gas * tx.gasPrice + tx.value) throw refused('insufficient funds for gas * price + value');

    const txs = this.bySender.get(sender) ?? new Map<bigint, SignedTx>();
    const existing = txs.get(tx.nonce);
    if (existing) {
      const threshold = existing.gasPrice + (existing.gasPrice * this.opts.priceBump) / 100n;
      if (tx.gasPrice < threshold || tx.gasPrice === existing.gasPrice) throw refused('replacement transaction underpriced');
    } else {
      this.checkLimits(sender, txs, tx, state.nonce);
    }

    await this.db.put(keys.poolJournal(tx.hash), tx.raw);
    if (existing) {
      this.byHash.delete(bytesToHex(existing.hash));
      await this.db.del(keys.poolJournal(existing.hash));
      this.emit('dropped', existing);
    }
    txs.set(tx.nonce, tx);
    this.bySender.set(sender, txs);
    this.byHash.set(hashKey, tx);
    if (this.isPending(sender, tx.nonce)) this.emit('pendingTx', tx);
  }

  private checkLimits(sender: string, txs: Map<bigint, SignedTx>, tx: SignedTx, stateNonce: bigint): void {
    const { pending, queued } = this.counts();
    const wouldBePending = this.contiguousEnd(txs, stateNonce) >= tx.nonce;
    if (wouldBePending) {
      if (pending >= this.opts.globalSlots) throw refused('txpool is full');
      return;
    }
    if (queued >= this.opts.globalQueue) throw refused('txpool is full');
    let senderQueued = 0;
    const end = this.contiguousEnd(txs, stateNonce);
    for (const nonce of txs.keys()) if (nonce > end) senderQueued++;
    if (senderQueued >= this.opts.accountQueue) throw refused('txpool is full');
  }

  /** The highest nonce that would be executable (state nonce − 1 when nothing is). */
  private contiguousEnd(txs: Map<bigint, SignedTx>, stateNonce: bigint): bigint {
    let nonce = stateNonce;
    while (txs.has(nonce)) nonce++;
    return nonce;
  }

  private isPending(sender: string, nonce: bigint): boolean {
    const txs = this.bySender.get(sender);
    if (!txs) return false;
    return nonce < this.contiguousEnd(txs, this.stateNonce.get(sender) ?? 0n);
  }

  /** The next nonce for `sender` counting its executable pool transactions. */
  pendingNonce(sender: Uint8Array, stateNonce: bigint): bigint {
    const txs = this.bySender.get(bytesToHex(sender));
    return txs ? this.contiguousEnd(txs, stateNonce) : stateNonce;
  }

  counts(): { pending: number; queued: number } {
    let pending = 0;
    for (const [sender, txs] of this.bySender) {
      const start = this.stateNonce.get(sender) ?? 0n;
      pending += Number(this.contiguousEnd(txs, start) - start);
    }
    return { pending, queued: this.byHash.size - pending };
  }

  content(): PoolContent {
    const pending = new Map<string, SignedTx[]>();
    const queued = new Map<string, SignedTx[]>();
    for (const [sender, txs] of this.bySender) {
      const end = this.contiguousEnd(txs, this.stateNonce.get(sender) ?? 0n);
      const sorted = [...txs.values()].sort((a, b) => (a.nonce < b.nonce ? -1 : 1));
      const p = sorted.filter((tx) => tx.nonce < end);
      const q = sorted.filter((tx) => tx.nonce >= end);
      if (p.length) pending.set(sender, p);
      if (q.length) queued.set(sender, q);
    }
    return { pending, queued };
  }

  /** Executable transactions in block order: nonce order per sender, best price first across senders. */
  pendingTransactions(): SignedTx[] {
    const lanes: SignedTx[][] = [];
    for (const [sender, txs] of this.bySender) {
      const lane: SignedTx[] = [];
      for (let n = this.stateNonce.get(sender) ?? 0n; txs.has(n); n++) lane.push(txs.get(n)!);
      if (lane.length) lanes.push(lane);
    }
    if (lanes.length === 1) return lanes[0];
    const out: SignedTx[] = [];
    const heads = lanes.map(() => 0);
    for (;;) {
      let best = -1;
      for (let i = 0; i < lanes.length; i++) {
        const tx = lanes[i][heads[i]];
        if (tx && (best < 0 || tx.gasPrice > lanes[best][heads[best]].gasPrice)) best = i;
      }
      if (best < 0) return out;
      out.push(lanes[best][heads[best]++]);
    }
  }

  /** Journal deletions to write in the batch of a block that mines `txs`. */
  journalDeletes(txs: SignedTx[]): BatchOp[] {
    return txs.map((tx) => ({ type: 'del', key: keys.poolJournal(tx.hash) }));
  }

  /** After a new head: forget mined and outdated transactions, refresh state nonces. */
  async onNewHead(mined: SignedTx[]): Promise<void> {
    const touched = new Set<string>();
    for (const tx of mined) touched.add(bytesToHex(tx.from));
    for (const sender of this.bySender.keys()) touched.add(sender);
    for (const sender of touched) {
      const txs = this.bySender.get(sender);
      if (!txs) continue;
      const { nonce } = await this.opts.accountAt(txs.values().next().value!.from);
      this.stateNonce.set(sender, nonce);
      const stale: SignedTx[] = [];
      for (const [n, tx] of txs) if (n < nonce) stale.push(tx);
      for (const tx of stale) {
        txs.delete(tx.nonce);
        this.byHash.delete(bytesToHex(tx.hash));
      }
      if (txs.size === 0) {
        this.bySender.delete(sender);
        this.stateNonce.delete(sender);
      }
      // Journal entries of transactions replaced by other senders' blocks: delete outside a block.
      const notMined = stale.filter((tx) => !mined.includes(tx));
      if (notMined.length) await this.db.batch(this.journalDeletes(notMined));
    }
  }

  /** Removes transactions that can never apply (found while building a block). */
  async drop(txs: SignedTx[]): Promise<void> {
    for (const tx of txs) {
      const sender = bytesToHex(tx.from);
      this.bySender.get(sender)?.delete(tx.nonce);
      if (this.bySender.get(sender)?.size === 0) this.bySender.delete(sender);
      this.byHash.delete(bytesToHex(tx.hash));
      this.emit('dropped', tx);
    }
    if (txs.length) await this.db.batch(this.journalDeletes(txs));
  }

  /** Reloads the journal after a restart, revalidating every entry against the head state. */
  async restore(decode: (raw: Uint8Array) => SignedTx): Promise<{ restored: number; dropped: number }> {
    const entries: [Uint8Array, Uint8Array][] = [];
    for await (const entry of this.db.entries(keys.poolJournalRange)) entries.push(entry);
    const txs = entries.map(([, raw]) => decode(raw)).sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0));
    let restored = 0;
    const stale: BatchOp[] = [];
    for (const tx of txs) {
      try {
        await this.add(tx);
        restored++;
      } catch {
        stale.push({ type: 'del', key: keys.poolJournal(tx.hash) });
      }
    }
    if (stale.length) await this.db.batch(stale);
    return { restored, dropped: stale.length };
  }
}
