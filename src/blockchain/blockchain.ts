// The canonical chain on disk: head, blocks, receipts, transaction index. A block lands in
// ONE LevelDB batch with its state nodes, receipts, indexes and the head pointer, and is
// announced (`newHead`) only after that batch resolves.

import { EventEmitter } from 'node:events';
import { RLP } from '@ethereumjs/rlp';
import type { Block, Receipt, SignedTx } from '../chain/types.js';
import { blockFromParts, decodeHeader, decodeStoredReceipts, encodeHeader, encodeStoredReceipts } from '../chain/block.js';
import { decodeTrustedTransaction } from '../chain/transaction.js';
import { bigintToBytes, bytesToBigint } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import type { BatchOp, Database } from '../store/database.js';
import { keys } from '../store/schema.js';
import { Lru } from '../store/lru.js';

/** Canonical number → hash entries kept in memory (about 300 bytes each). */
export const HASH_CACHE_SIZE = 8192;

export interface TxLocation {
  block: Block;
  index: number;
}

export interface NewHeadEvent {
  block: Block;
  receipts: Receipt[];
}

export class Blockchain extends EventEmitter<{ newHead: [NewHeadEvent] }> {
  private readonly blocksByHash = new Lru<string, Block>(2048);
  private readonly receiptsByHash = new Lru<string, Receipt[]>(2048);
  // Canonical hashes of recent and recently read heights; older ones come from the database.
  private readonly hashByNumber = new Lru<bigint, Uint8Array>(HASH_CACHE_SIZE);
  private readonly tdByHash = new Lru<string, bigint>(4096);
  private headBlock!: Block;
  private genesisBlock!: Block;

  private constructor(private readonly db: Database) {
    super();
  }

  /** Opens the stored chain; `undefined` when the datadir holds no chain yet. */
  static async open(db: Database): Promise<Blockchain | undefined> {
    const headHash = await db.get(keys.head);
    if (!headHash) return undefined;
    const chain = new Blockchain(db);
    const head = await chain.getBlockByHash(headHash);
    const genesisHash = await db.get(keys.canonical(0n));
    const genesis = genesisHash && (await chain.getBlockByHash(genesisHash));
    if (!head || !genesis) throw new Error('database is damaged: head or genesis block missing');
    chain.headBlock = head;
    chain.genesisBlock = genesis;
    return chain;
  }

  /** Writes the genesis block of a fresh datadir (its state nodes come in `stateOps`). */
  static async create(db: Database, genesis: Block, stateOps: BatchOp[]): Promise<Blockchain> {
    const chain = new Blockchain(db);
    await db.batch([...stateOps, ...chain.blockOps(genesis, [], genesis.header.difficulty)]);
    chain.headBlock = genesis;
    chain.genesisBlock = genesis;
    chain.cacheBlock(genesis, [], genesis.header.difficulty);
    return chain;
  }

  get head(): Block {
    return this.headBlock;
  }

  get genesis(): Block {
    return this.genesisBlock;
  }

  private blockOps(block: Block, receipts: Receipt[], td: bigint): BatchOp[] {
    const { hash } = block;
    const ops: BatchOp[] = [
      { type: 'put', key: keys.header(hash), value: encodeHeader(block.header) },
      { type: 'put', key: keys.body(hash), value: RLP.encode(block.transactions.map((tx) => [tx.raw, tx.from])) },
      { type: 'put', key: keys.receipts(hash), value: encodeStoredReceipts(receipts) },
      { type: 'put', key: keys.td(hash), value: bigintToBytes(td) },
      { type: 'put', key: keys.canonical(block.header.number), value: hash },
      { type: 'put', key: keys.head, value: hash },
    ];
    block.transactions.forEach((tx, index) => {
      ops.push({ type: 'put', key: keys.txIndex(tx.hash), value: RLP.encode([hash, index]) });
    });
    return ops;
  }

  private cacheBlock(block: Block, receipts: Receipt[], td: bigint): void {
    const key = bytesToHex(block.hash);
    this.blocksByHash.set(key, block);
    this.receiptsByHash.set(key, receipts);
    this.tdByHash.set(key, td);
    this.hashByNumber.set(block.header.number, block.hash);
  }

  /** Appends a sealed child of the head, atomically with `extraOps` (state nodes, journal). */
  async commitBlock(block: Block, receipts: Receipt[], extraOps: BatchOp[]): Promise<void> {
    const parentTd = await this.getTotalDifficulty(block.header.parentHash);
    const td = (parentTd ?? 0n) + block.header.difficulty;
    await this.db.batch([...extraOps, ...this.blockOps(block, receipts, td)]);
    this.cacheBlock(block, receipts, td);
    this.headBlock = block;
    this.emit('newHead', { block, receipts });
  }

  async getHashByNumber(number: bigint): Promise<Uint8Array | undefined> {
    if (number > this.headBlock.header.number || number < 0n) return undefined;
    const cached = this.hashByNumber.get(number);
    if (cached) return cached;
    const stored = await this.db.get(keys.canonical(number));
    if (stored) this.hashByNumber.set(number, stored);
    return stored;
  }

  async getBlockByNumber(number: bigint): Promise<Block | undefined> {
    const hash = await this.getHashByNumber(number);
    return hash && this.getBlockByHash(hash);
  }

  async getBlockByHash(hash: Uint8Array): Promise<Block | undefined> {
    const key = bytesToHex(hash);
    const cached = this.blocksByHash.get(key);
    if (cached) return cached;
    const [headerBytes, bodyBytes] = await this.db.getMany([keys.header(hash), keys.body(hash)]);
    if (!headerBytes || !bodyBytes) return undefined;
    const header = decodeHeader(headerBytes);
    const body = RLP.decode(bodyBytes) as unknown as [Uint8Array, Uint8Array][];
    const txs: SignedTx[] = body.map(([raw, from]) => decodeTrustedTransaction(raw, from));
    const block = blockFromParts(header, txs);
    this.blocksByHash.set(key, block);
    return block;
  }

  async getReceipts(blockHash: Uint8Array): Promise<Receipt[] | undefined> {
    const key = bytesToHex(blockHash);
    const cached = this.receiptsByHash.get(key);
    if (cached) return cached;
    const stored = await this.db.get(keys.receipts(blockHash));
    if (!stored) return undefined;
    const receipts = decodeStoredReceipts(stored);
    this.receiptsByHash.set(key, receipts);
    return receipts;
  }

  async getTotalDifficulty(blockHash: Uint8Array): Promise<bigint | undefined> {
    const key = bytesToHex(blockHash);
    const cached = this.tdByHash.get(key);
    if (cached !== undefined) return cached;
    const stored = await this.db.get(keys.td(blockHash));
    if (!stored) return undefined;
    const td = bytesToBigint(stored);
    this.tdByHash.set(key, td);
    return td;
  }

  /** Where a mined transaction sits, if it is in the canonical chain. */
  async findTransaction(txHash: Uint8Array): Promise<TxLocation | undefined> {
    const stored = await this.db.get(keys.txIndex(txHash));
    if (!stored) return undefined;
    const [blockHash, indexBytes] = RLP.decode(stored) as Uint8Array[];
    const block = await this.getBlockByHash(blockHash);
    if (!block) return undefined;
    const canonical = await this.getHashByNumber(block.header.number);
    if (!canonical || bytesToHex(canonical) !== bytesToHex(blockHash)) return undefined;
    return { block, index: Number(bytesToBigint(indexBytes)) };
  }
}
