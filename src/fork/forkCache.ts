// The fork cache on disk (docs/fork-mode.md#the-cache): what a fork fetched from its upstream,
// kept in a LevelDB of its own (keys in store/schema.ts, forkCacheKeys) with the hottest entries in
// memory. Every record is written whole, once its fetch completed: a failed or partial fetch
// leaves nothing behind. Nothing in it ever changes: state is keyed by the block it was read at.

import { RLP } from '@ethereumjs/rlp';
import type { Block, Receipt, SignedTx } from '../chain/types.js';
import { decodeHeader, decodeStoredReceipts, encodeHeader, encodeStoredReceipts } from '../chain/block.js';
import { bigintToBytes, bytesToBigint, keccak256 } from '../encoding/bytes.js';
import type { BaseAccountFields } from '../state/baseState.js';
import type { BatchOp } from '../store/database.js';
import { Database } from '../store/database.js';
import { Lru } from '../store/lru.js';
import { forkCacheKeys as K } from '../store/schema.js';
import { ConfigError } from '../errors.js';

/** Entries kept decoded in memory, on top of LevelDB. */
const HOT_ENTRIES = 50_000;
const EMPTY = new Uint8Array();

/** An account record: the fields, or null for an account the upstream does not have. */
export type AccountRecord = BaseAccountFields | null;

/** What a fork knows of its upstream without asking it again. */
export interface UpstreamIdentity {
  dialect: 'mc' | 'eth';
  chainId: bigint;
  networkId: bigint;
}

export interface CachedBlock {
  block: Block;
  totalDifficulty: bigint;
}

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

export function encodeAccountRecord(a: AccountRecord): Uint8Array {
  return a === null ? RLP.encode([]) : RLP.encode([bigintToBytes(a.nonce), bigintToBytes(a.balance), a.codeHash]);
}

export function decodeAccountRecord(bytes: Uint8Array): AccountRecord {
  const items = RLP.decode(bytes) as Uint8Array[];
  if (items.length === 0) return null;
  return { nonce: bytesToBigint(items[0]), balance: bytesToBigint(items[1]), codeHash: items[2] };
}

function encodeTx(tx: SignedTx): Uint8Array[] {
  return [tx.raw, tx.hash, tx.from, tx.classic ? Uint8Array.of(1) : EMPTY, bigintToBytes(tx.nonce), bigintToBytes(tx.syscnt),
    bigintToBytes(tx.gasPrice), bigintToBytes(tx.gas), tx.to ?? EMPTY, bigintToBytes(tx.value), tx.data, bigintToBytes(tx.shardingFlag),
    tx.via ?? EMPTY, bigintToBytes(tx.v), bigintToBytes(tx.r), bigintToBytes(tx.s)];
}

function decodeTx(f: Uint8Array[]): SignedTx {
  const n = bytesToBigint;
  const tx: SignedTx = {
    raw: f[0], hash: f[1], from: f[2], nonce: n(f[4]), syscnt: n(f[5]), gasPrice: n(f[6]), gas: n(f[7]), to: f[8].length ? f[8] : null,
    value: n(f[9]), data: f[10], shardingFlag: n(f[11]), via: f[12].length ? f[12] : null, v: n(f[13]), r: n(f[14]), s: n(f[15]),
  };
  if (f[3].length) tx.classic = true;
  return tx;
}

export function encodeBlockRecord(b: CachedBlock): Uint8Array {
  const { block } = b;
  return RLP.encode([encodeHeader(block.header), block.hash, bigintToBytes(b.totalDifficulty), bigintToBytes(BigInt(block.size)), block.transactions.map(encodeTx)]);
}

export function decodeBlockRecord(bytes: Uint8Array): CachedBlock {
  const [header, hash, td, size, txs] = RLP.decode(bytes) as unknown as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array[][]];
  return {
    block: { header: decodeHeader(header), hash, transactions: txs.map(decodeTx), size: Number(bytesToBigint(size)) },
    totalDifficulty: bytesToBigint(td),
  };
}

export class ForkCache {
  private readonly hot = new Lru<string, unknown>(HOT_ENTRIES);

  private constructor(
    readonly db: Database,
    readonly dir: string,
  ) {}

  static async open(dir: string): Promise<ForkCache> {
    try {
      return new ForkCache(await Database.open(dir), dir);
    } catch (err) {
      if (err instanceof ConfigError && /in use/.test(err.message)) {
        throw new ConfigError(`fork cache in use: ${dir} is open in another mcnode process (forks share a cache one at a time)`);
      }
      throw err;
    }
  }

  close(): Promise<void> {
    return this.db.close();
  }

  /** A record through the memory layer: `decode`d once, kept hot. */
  private async read<T>(key: Uint8Array, decode: (bytes: Uint8Array) => T): Promise<T | undefined> {
    const id = hex(key);
    const hot = this.hot.get(id);
    if (hot !== undefined) return hot as T;
    const bytes = await this.db.get(key);
    if (bytes === undefined) return undefined;
    const value = decode(bytes);
    this.hot.set(id, value);
    return value;
  }

  private async write(entries: [Uint8Array, Uint8Array, unknown][]): Promise<void> {
    await this.db.batch(entries.map(([key, value]) => ({ type: 'put', key, value })));
    for (const [key, , decoded] of entries) this.hot.set(hex(key), decoded);
  }

  account(block: Uint8Array, address: Uint8Array): Promise<AccountRecord | undefined> {
    return this.read(K.account(block, address), decodeAccountRecord);
  }

  /** The account and its code (when it has some) in one batch. */
  putAccount(block: Uint8Array, address: Uint8Array, account: AccountRecord, code?: Uint8Array): Promise<void> {
    const entries: [Uint8Array, Uint8Array, unknown][] = [[K.account(block, address), encodeAccountRecord(account), account]];
    if (account && code && code.length) entries.unshift([K.code(account.codeHash), code, code]);
    return this.write(entries);
  }

  slot(block: Uint8Array, address: Uint8Array, slot: Uint8Array): Promise<bigint | undefined> {
    return this.read(K.slot(block, address, slot), bytesToBigint);
  }

  putSlot(block: Uint8Array, address: Uint8Array, slot: Uint8Array, word: bigint): Promise<void> {
    return this.write([[K.slot(block, address, slot), bigintToBytes(word), word]]);
  }

  code(codeHash: Uint8Array): Promise<Uint8Array | undefined> {
    return this.read(K.code(codeHash), (b) => b);
  }

  block(hash: Uint8Array): Promise<CachedBlock | undefined> {
    return this.read(K.block(hash), decodeBlockRecord);
  }

  /** A block with its place in the canonical chain as the fork at `anchor` sees it, and its transactions' lookups. */
  putBlock(anchor: Uint8Array, b: CachedBlock): Promise<void> {
    const entries: [Uint8Array, Uint8Array, unknown][] = [
      [K.block(b.block.hash), encodeBlockRecord(b), b],
      [K.canonical(anchor, b.block.header.number), b.block.hash, b.block.hash],
    ];
    b.block.transactions.forEach((tx, index) => {
      const location = { blockHash: b.block.hash, index };
      entries.push([K.txIndex(tx.hash), RLP.encode([b.block.hash, bigintToBytes(BigInt(index))]), location]);
    });
    return this.write(entries);
  }

  canonical(anchor: Uint8Array, n: bigint): Promise<Uint8Array | undefined> {
    return this.read(K.canonical(anchor, n), (b) => b);
  }

  /** The canonical hashes the cache holds for numbers from..to-1 (a fork's BLOCKHASH window, for export). */
  async canonicalRange(anchor: Uint8Array, from: bigint, to: bigint): Promise<[bigint, Uint8Array][]> {
    const out: [bigint, Uint8Array][] = [];
    for await (const [key, value] of this.db.entries(K.canonicalRange(anchor, from, to))) out.push([bytesToBigint(key.subarray(key.length - 8)), value]);
    return out;
  }

  putCanonical(anchor: Uint8Array, n: bigint, hash: Uint8Array): Promise<void> {
    return this.write([[K.canonical(anchor, n), hash, hash]]);
  }

  receipts(hash: Uint8Array): Promise<Receipt[] | undefined> {
    return this.read(K.receipts(hash), decodeStoredReceipts);
  }

  putReceipts(hash: Uint8Array, receipts: Receipt[]): Promise<void> {
    return this.write([[K.receipts(hash), encodeStoredReceipts(receipts), receipts]]);
  }

  txLocation(txHash: Uint8Array): Promise<{ blockHash: Uint8Array; index: number } | undefined> {
    return this.read(K.txIndex(txHash), (b) => {
      const [blockHash, index] = RLP.decode(b) as Uint8Array[];
      return { blockHash, index: Number(bytesToBigint(index)) };
    });
  }

  logs(anchor: Uint8Array, query: Uint8Array): Promise<Uint8Array | undefined> {
    return this.read(K.logs(anchor, keccak256(query)), (b) => b);
  }

  putLogs(anchor: Uint8Array, query: Uint8Array, encoded: Uint8Array): Promise<void> {
    return this.write([[K.logs(anchor, keccak256(query)), encoded, encoded]]);
  }

  identity(url: string): Promise<UpstreamIdentity | undefined> {
    return this.read(K.upstream(keccak256(new TextEncoder().encode(url))), (b) => {
      const [dialect, chainId, networkId] = RLP.decode(b) as Uint8Array[];
      return { dialect: new TextDecoder().decode(dialect) === 'eth' ? 'eth' : 'mc', chainId: bytesToBigint(chainId), networkId: bytesToBigint(networkId) };
    });
  }

  putIdentity(url: string, id: UpstreamIdentity): Promise<void> {
    const value = RLP.encode([new TextEncoder().encode(id.dialect), bigintToBytes(id.chainId), bigintToBytes(id.networkId)]);
    return this.write([[K.upstream(keccak256(new TextEncoder().encode(url))), value, id]]);
  }

  numbered(url: string, n: bigint): Promise<Uint8Array | undefined> {
    return this.read(K.numbered(keccak256(new TextEncoder().encode(url)), n), (b) => b);
  }

  putNumbered(url: string, n: bigint, hash: Uint8Array): Promise<void> {
    return this.write([[K.numbered(keccak256(new TextEncoder().encode(url)), n), hash, hash]]);
  }

  /** Every account and slot read at `block`, and the code of those accounts: a fork's base state, for export. */
  async *baseState(block: Uint8Array): AsyncGenerator<BaseRecord> {
    const codes = new Set<string>();
    for await (const [key, value] of this.db.entries(K.accountRange(block))) {
      const address = key.subarray(key.length - 20);
      const account = decodeAccountRecord(value);
      yield { kind: 'account', address, account };
      if (account && !codes.has(hex(account.codeHash))) {
        const code = await this.code(account.codeHash);
        if (code) {
          codes.add(hex(account.codeHash));
          yield { kind: 'code', code };
        }
      }
    }
    for await (const [key, value] of this.db.entries(K.slotRange(block))) {
      yield { kind: 'slot', address: key.subarray(key.length - 52, key.length - 32), slot: key.subarray(key.length - 32), word: bytesToBigint(value) };
    }
  }

  /** Writes base-state records (an import) for `block`. */
  async putBase(block: Uint8Array, records: BaseRecord[]): Promise<void> {
    const ops: BatchOp[] = records.map((r) => {
      if (r.kind === 'account') return { type: 'put', key: K.account(block, r.address), value: encodeAccountRecord(r.account) };
      if (r.kind === 'code') return { type: 'put', key: K.code(keccak256(r.code)), value: r.code };
      return { type: 'put', key: K.slot(block, r.address, r.slot), value: bigintToBytes(r.word) };
    });
    if (ops.length) await this.db.batch(ops);
  }
}

/** One fact of a fork's base state, as export writes it. */
export type BaseRecord =
  | { kind: 'account'; address: Uint8Array; account: AccountRecord }
  | { kind: 'code'; code: Uint8Array }
  | { kind: 'slot'; address: Uint8Array; slot: Uint8Array; word: bigint };
