// The LevelDB handle: opening (with a clear "datadir in use" error), schema version, batches.

import { mkdirSync } from 'node:fs';
import { Level } from 'level';
import { ConfigError } from '../errors.js';
import { bytesToBigint, bigintToBytes } from '../encoding/bytes.js';
import { keys, SCHEMA_VERSION } from './schema.js';

/**
 * Table files LevelDB keeps open, its floor (it keeps at least 64). LevelDB maps each open table
 * into memory (on 64-bit, up to 1000) and every page it reads stays resident while the table is
 * open, so with its default of ~1000 open files resident memory grew with the datadir: random
 * reads across a 100,000-block chain left 507 MiB of mapped table pages resident
 * (docs/design/memory.md#leveldb). A table read after it was closed is opened again: its index and filter
 * blocks are read anew.
 */
export const OPEN_TABLES = 64;
/** LevelDB's max_open_files counts these besides the tables (its kNumNonTableCacheFiles) */
const NON_TABLE_FILES = 10;
/**
 * Tables written by compaction are cut at 1 MiB (LevelDB's floor; its default is 2 MiB), and the
 * memtable, which becomes a level-0 table when full, at 2 MiB (default 4 MiB): the open tables
 * then map at most ~70 MiB instead of ~130, and two memtables hold 4 MiB instead of 8.
 * Random reads over a 10,000-block chain (all its tables open): 72 -> 37 MiB of mapped tables;
 * no measurable cost in reads or transfers.
 */
export const TABLE_FILE_BYTES = 2 ** 20;
export const WRITE_BUFFER_BYTES = 2 * 2 ** 20;
/**
 * LevelDB's cache of uncompressed table blocks (its default: 8 MiB), in malloc'd memory. Most
 * reads stop at the node's own caches first. 4 MiB: ~4 MiB less resident under the soak, no
 * measurable CPU per call there or per random read over 100,000 blocks; 2 MiB made cold reads
 * ~12% dearer.
 */
export const LEVELDB_BLOCK_CACHE_BYTES = 4 * 2 ** 20;

export type BatchOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };

export class Database {
  private constructor(private readonly db: Level<Uint8Array, Uint8Array>) {}

  static async open(path: string): Promise<Database> {
    mkdirSync(path, { recursive: true });
    const db = new Level<Uint8Array, Uint8Array>(path, {
      keyEncoding: 'view',
      valueEncoding: 'view',
      maxOpenFiles: OPEN_TABLES + NON_TABLE_FILES,
      maxFileSize: TABLE_FILE_BYTES,
      writeBufferSize: WRITE_BUFFER_BYTES,
      cacheSize: LEVELDB_BLOCK_CACHE_BYTES,
    });
    try {
      await db.open();
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause;
      if (cause?.code === 'LEVEL_LOCKED' || /lock/i.test(String((err as Error).message) + String(cause))) {
        throw new ConfigError(`datadir in use: ${path} is locked by another mcnode process`);
      }
      throw err;
    }
    const database = new Database(db);
    await database.checkSchema(path);
    return database;
  }

  private async checkSchema(path: string): Promise<void> {
    const stored = await this.get(keys.schemaVersion);
    if (stored === undefined) {
      await this.db.put(keys.schemaVersion, bigintToBytes(BigInt(SCHEMA_VERSION)));
      return;
    }
    const version = Number(bytesToBigint(stored));
    if (version !== SCHEMA_VERSION) {
      await this.db.close();
      throw new ConfigError(
        `database ${path} has schema version ${version}; this mcnode reads version ${SCHEMA_VERSION}. ` +
          'Export the chain with the mcnode that wrote it, or start with a fresh --datadir.',
      );
    }
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    const value = await this.db.get(key);
    return value ?? undefined;
  }

  async getMany(keyList: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    return (await this.db.getMany(keyList)).map((v) => v ?? undefined);
  }

  put(key: Uint8Array, value: Uint8Array): Promise<void> {
    return this.db.put(key, value);
  }

  del(key: Uint8Array): Promise<void> {
    return this.db.del(key);
  }

  /** Atomic: all of the operations land, or none do. */
  batch(ops: BatchOp[]): Promise<void> {
    return this.db.batch(ops);
  }

  async *entries(range: { gte: Uint8Array; lt: Uint8Array }): AsyncGenerator<[Uint8Array, Uint8Array]> {
    for await (const entry of this.db.iterator(range)) yield entry;
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
