// The pool's entries in LevelDB: transactions a head switch gave back to the pool, journaled in
// the switch's own batch (an older node's journal lived here too). The pool's own journal is a
// file (txpool/poolJournal.ts); this module owns the keys and batches of the LevelDB side, so the
// pool never builds a database batch itself.

import type { SignedTx } from '../chain/types.js';
import { bytesToHex } from '../encoding/hex.js';
import type { BatchOp, Database } from './database.js';
import { keys } from './schema.js';

export class PoolEntries {
  /**
   * Hashes that may have an entry (read back at the start, or given back by a head switch); only
   * these need deleting. A superset is safe.
   */
  private readonly present = new Set<string>();

  constructor(private readonly db: Database) {}

  /** Reads every entry back (at the start); undecodable ones are deleted. */
  async load(decode: (raw: Uint8Array) => SignedTx): Promise<{ txs: SignedTx[]; undecodable: number }> {
    const txs: SignedTx[] = [];
    const bad: BatchOp[] = [];
    for await (const [key, raw] of this.db.entries(keys.poolJournalRange)) {
      try {
        const tx = decode(raw);
        txs.push(tx);
        this.present.add(bytesToHex(tx.hash));
      } catch {
        bad.push({ type: 'del', key });
      }
    }
    if (bad.length) await this.db.batch(bad);
    return { txs, undecodable: bad.length };
  }

  /** A head switch wrote entries for `txs` in its batch. */
  returned(txs: readonly SignedTx[]): void {
    for (const tx of txs) this.present.add(bytesToHex(tx.hash));
  }

  /** Whether `tx` may have an entry. */
  has(tx: SignedTx): boolean {
    return this.present.size > 0 && this.present.has(bytesToHex(tx.hash));
  }

  /**
   * Deletions of the entries of `txs`, for the batch of the block that mines them; the entries are
   * forgotten here once that block is the head (`mined`).
   */
  deletions(txs: readonly SignedTx[]): BatchOp[] {
    if (this.present.size === 0) return [];
    const ops: BatchOp[] = [];
    for (const tx of txs) if (this.present.has(bytesToHex(tx.hash))) ops.push({ type: 'del', key: keys.poolJournal(tx.hash) });
    return ops;
  }

  /** The block that mined `hashes` deleted their entries in its batch. */
  mined(hashes: Iterable<string>): void {
    if (this.present.size === 0) return;
    for (const key of hashes) this.present.delete(key);
  }

  /** Deletes the entries of `txs` that left the pool unmined (dropped, replaced, evicted). */
  async remove(txs: readonly SignedTx[]): Promise<void> {
    const ops = this.deletions(txs);
    if (ops.length) await this.db.batch(ops);
    for (const tx of txs) this.present.delete(bytesToHex(tx.hash));
  }
}
