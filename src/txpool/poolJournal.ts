// The pool's journal of acknowledged transactions: an append-only file (store/appendLog.ts)
// beside the database, written synchronously before a transaction's hash is returned. A put
// record holds the raw transaction, a del record the hash of one that left the pool without
// being mined (replaced, evicted, dropped). Mined transactions need no record: at a restart
// every journaled transaction is revalidated against the head, and a mined nonce is too low.
// The file is rewritten with the pool's content once it has grown large, so it stays a bounded
// multiple of what the pool holds. Transactions a head switch gives back are journaled in
// LevelDB instead (in the switch's own batch; see blockchain/headSwitch.ts).

import type { SignedTx } from '../chain/types.js';
import { keccak256 } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import { AppendLog } from '../store/appendLog.js';

const PUT = 1;
const DEL = 2;
/** The log is rewritten once it is this large and twice what the last rewrite left. */
export const COMPACT_BYTES = 256 * 1024;

function putRecord(tx: SignedTx): Uint8Array {
  const record = new Uint8Array(1 + tx.raw.length);
  record[0] = PUT;
  record.set(tx.raw, 1);
  return record;
}

function delRecord(tx: SignedTx): Uint8Array {
  const record = new Uint8Array(1 + 32);
  record[0] = DEL;
  record.set(tx.hash, 1);
  return record;
}

/** The raw transactions put and not deleted since, in the order first put (keyed by hash). */
function replay(records: Uint8Array[]): Map<string, Uint8Array> {
  const live = new Map<string, Uint8Array>();
  for (const r of records) {
    if (r[0] === PUT && r.length > 1) {
      const raw = r.slice(1);
      const key = bytesToHex(keccak256(raw));
      if (!live.has(key)) live.set(key, raw);
    } else if (r[0] === DEL && r.length === 33) {
      live.delete(bytesToHex(r.subarray(1)));
    }
  }
  return live;
}

/** The raw transactions journaled in the file at `path` and not deleted (read only; for tests and tools). */
export function journaledInFile(path: string): Uint8Array[] {
  return [...replay(AppendLog.read(path).records).values()];
}

export class PoolJournal {
  private compactAt: number;

  private constructor(
    private readonly log: AppendLog,
    private restored: Uint8Array[] | undefined,
    /** bytes cut off a torn tail when the file was opened */
    readonly droppedBytes: number,
  ) {
    this.compactAt = Math.max(COMPACT_BYTES, 2 * log.size);
  }

  /** Opens the journal file at `path` (creating it) and reads what it holds. */
  static open(path: string): PoolJournal {
    const { log, records, droppedBytes } = AppendLog.open(path);
    return new PoolJournal(log, [...replay(records).values()], droppedBytes);
  }

  /** The raw transactions the file held when opened, journaled and not deleted; given out once. */
  takeRestored(): Uint8Array[] {
    const raws = this.restored ?? [];
    this.restored = undefined;
    return raws;
  }

  /** Journals `puts` and the removal of `dels` in one write; on disk when this returns. */
  record(puts: readonly SignedTx[], dels: readonly SignedTx[] = []): void {
    if (puts.length === 0 && dels.length === 0) return;
    this.log.append([...puts.map(putRecord), ...dels.map(delRecord)]);
  }

  /** Rewrites the file with `content` (everything the pool holds) once it has grown large. */
  compactIfLarge(content: () => Iterable<SignedTx>): void {
    if (this.log.size >= this.compactAt) this.rewrite(content());
  }

  /** Replaces the file with put records of `content` alone. */
  rewrite(content: Iterable<SignedTx>): void {
    this.log.rewrite([...content].map(putRecord));
    this.compactAt = Math.max(COMPACT_BYTES, 2 * this.log.size);
  }

  /** Bytes in the file. */
  get size(): number {
    return this.log.size;
  }

  close(): void {
    this.log.close();
  }
}
