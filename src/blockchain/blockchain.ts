// The canonical chain on disk: head, blocks, receipts, transaction index. A block lands in
// ONE LevelDB batch with its state nodes, receipts, indexes and the head pointer (a run of
// synced blocks may share one such batch, the head pointer at the last of them), and is
// announced (`newHead`) only after that batch resolves. Blocks off the canonical chain (side
// branches) are stored by hash with their total difficulty; moving the head to another branch
// or back to an ancestor is one batch too (headSwitch.ts), announced by `rewound`.

import { EventEmitter } from 'node:events';
import { RLP } from '@ethereumjs/rlp';
import type { Block, Receipt, SignedTx } from '../chain/types.js';
import { blockFromParts, decodeHeader, decodeStoredReceipts, encodeHeader, encodeStoredReceipts } from '../chain/block.js';
import { decodeTrustedTransaction } from '../chain/transaction.js';
import { bigintToBytes, bytesToBigint, equalBytes } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import type { BatchOp, Database } from '../store/database.js';
import { keys } from '../store/schema.js';
import { Lru } from '../store/lru.js';
import { notFound, wrongState } from '../errors.js';
import { headSwitchOps } from './headSwitch.js';
import { decodeTouched, indexOps, touchedOf, touchedOps, type TouchedAddresses } from './addressIndex.js';
import { BLOCK_CACHE_BYTES, RECEIPT_CACHE_BYTES, blockWeight, receiptsWeight } from './cacheWeights.js';

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

/** Blocks that left the canonical chain, newest first (a rewind or the old side of a reorg). */
export interface RewoundEvent {
  removed: NewHeadEvent[];
  /** false when the caller keeps the removed transactions out of the pool (a snapshot revert) */
  returnTransactions: boolean;
}

export interface RewindOptions {
  /** the removed blocks' transactions go back to the pool (default true) */
  returnTransactions?: boolean;
}

/** What a head switch did: blocks that left the canonical chain (newest first) and joined it (oldest first). */
export interface HeadSwitch {
  removed: NewHeadEvent[];
  added: NewHeadEvent[];
}

export class Blockchain extends EventEmitter<{ newHead: [NewHeadEvent]; rewound: [RewoundEvent] }> {
  private readonly blocksByHash = new Lru<string, Block>(BLOCK_CACHE_BYTES, blockWeight);
  private readonly receiptsByHash = new Lru<string, Receipt[]>(RECEIPT_CACHE_BYTES, receiptsWeight);
  // Canonical hashes of recent and recently read heights; older ones come from the database.
  private readonly hashByNumber = new Lru<bigint, Uint8Array>(HASH_CACHE_SIZE);
  private readonly tdByHash = new Lru<string, bigint>(4096);
  private headBlock!: Block;
  private genesisBlock!: Block;
  /** Head-moving writes run one at a time, so each sees the head the previous one left. */
  private writes: Promise<unknown> = Promise.resolve();
  /** head switches so far (rewinds, reorganisations) */
  private switches = 0;

  private constructor(private readonly db: Database) {
    super();
  }

  /** Opens the stored chain; `undefined` when the datadir holds no chain yet. */
  static async open(db: Database): Promise<Blockchain | undefined> {
    const headHash = await db.get(keys.head);
    if (!headHash) return undefined;
    const chain = new Blockchain(db);
    const head = await chain.getBlockByHash(headHash);
    const genesisHash = (await db.get(keys.chainBase)) ?? (await db.get(keys.canonical(0n)));
    const genesis = genesisHash && (await chain.getBlockByHash(genesisHash));
    if (!head || !genesis) throw new Error('database is damaged: head or genesis block missing');
    chain.headBlock = head;
    chain.genesisBlock = genesis;
    return chain;
  }

  /** Writes the genesis block of a fresh datadir (its state nodes come in `stateOps`). */
  static async create(db: Database, genesis: Block, stateOps: BatchOp[]): Promise<Blockchain> {
    const chain = new Blockchain(db);
    // A chain made by this version indexes every block as it lands: its address index is complete.
    const indexComplete: BatchOp = { type: 'put', key: keys.addressIndexState, value: RLP.encode([]) };
    await db.batch([...stateOps, ...chain.blockOps(genesis, [], genesis.header.difficulty), indexComplete]);
    chain.headBlock = genesis;
    chain.genesisBlock = genesis;
    chain.cacheBlock(genesis, [], genesis.header.difficulty);
    return chain;
  }

  /**
   * Starts a fork's chain (docs/fork-mode.md): its lowest stored block is the upstream's fork block
   * (`anchor`, its header under the upstream's own hash, no body), the parent of the first local
   * block; `ops` (the fork's record, its starting state) share the batch.
   */
  static async createFork(db: Database, anchor: Block, td: bigint, ops: BatchOp[]): Promise<Blockchain> {
    const chain = new Blockchain(db);
    await db.batch([...ops, ...chain.blockOps(anchor, [], td), { type: 'put', key: keys.chainBase, value: anchor.hash }]);
    chain.headBlock = anchor;
    chain.genesisBlock = anchor;
    chain.cacheBlock(anchor, [], td);
    return chain;
  }

  /**
   * Moves a fork to another fork block (anvil_reset re-forking), once the head is back at the
   * current one (rewindTo): the new anchor becomes the lowest block and the head, in one batch with
   * `ops`. The old anchor and the blocks that were on it stay stored, off the canonical chain.
   */
  replaceBase(anchor: Block, td: bigint, ops: BatchOp[]): Promise<void> {
    return this.exclusive(async () => {
      const old = this.genesisBlock;
      if (!equalBytes(this.headBlock.hash, old.hash)) throw wrongState('the head must be back at the fork block before the fork moves');
      this.switches++;
      await this.db.batch([
        { type: 'del', key: keys.canonical(old.header.number) },
        ...ops,
        ...this.blockOps(anchor, [], td),
        { type: 'put', key: keys.chainBase, value: anchor.hash },
      ]);
      this.switches++;
      this.hashByNumber.delete(old.header.number);
      this.cacheBlock(anchor, [], td);
      this.headBlock = anchor;
      this.genesisBlock = anchor;
    });
  }

  get head(): Block {
    return this.headBlock;
  }

  /** The lowest stored block: block 0, or a fork's anchor (the upstream's fork block). */
  get genesis(): Block {
    return this.genesisBlock;
  }

  /** The block by hash: header, body, receipts, total difficulty, touched addresses (any branch). */
  private storeOps(block: Block, receipts: Receipt[], td: bigint, touched: TouchedAddresses): BatchOp[] {
    const { hash } = block;
    return [
      { type: 'put', key: keys.header(hash), value: encodeHeader(block.header) },
      { type: 'put', key: keys.body(hash), value: RLP.encode(block.transactions.map((tx) => [tx.raw, tx.from])) },
      { type: 'put', key: keys.receipts(hash), value: encodeStoredReceipts(receipts) },
      { type: 'put', key: keys.td(hash), value: bigintToBytes(td) },
      ...touchedOps(block, touched),
    ];
  }

  /** The block as the canonical one at its height, and (`isHead`) the new head. */
  private blockOps(block: Block, receipts: Receipt[], td: bigint, isHead = true): BatchOp[] {
    const { hash } = block;
    const touched = touchedOf(block, receipts);
    const ops: BatchOp[] = [...this.storeOps(block, receipts, td, touched), { type: 'put', key: keys.canonical(block.header.number), value: hash }];
    if (isHead) ops.push({ type: 'put', key: keys.head, value: hash });
    block.transactions.forEach((tx, index) => {
      ops.push({ type: 'put', key: keys.txIndex(tx.hash), value: RLP.encode([hash, index]) });
    });
    ops.push(...indexOps('put', block, touched));
    return ops;
  }

  private exclusive<T>(job: () => Promise<T>): Promise<T> {
    const run = this.writes.then(job);
    this.writes = run.catch(() => undefined);
    return run;
  }

  private cacheBlock(block: Block, receipts: Receipt[], td: bigint): void {
    const key = bytesToHex(block.hash);
    this.blocksByHash.set(key, block);
    this.receiptsByHash.set(key, receipts);
    this.tdByHash.set(key, td);
    this.hashByNumber.set(block.header.number, block.hash);
  }

  /** Appends a sealed child of the head, atomically with `extraOps` (state nodes, journal). */
  commitBlock(block: Block, receipts: Receipt[], extraOps: BatchOp[]): Promise<void> {
    return this.commitBlocks([{ block, receipts }], extraOps);
  }

  /**
   * Appends consecutive blocks (the first a child of the head, each the child of the one before)
   * in ONE batch with `extraOps`: a crash leaves the old head or the last of them, never a part.
   * `newHead` is announced for each, in order, once the batch is written.
   */
  commitBlocks(entries: NewHeadEvent[], extraOps: BatchOp[]): Promise<void> {
    return this.exclusive(async () => {
      if (entries.length === 0) return;
      // The caller checked this before its last await; a rewind may have run since.
      const first = entries[0].block;
      if (!equalBytes(first.header.parentHash, this.headBlock.hash)) {
        throw new Error(`block #${first.header.number} no longer extends the head #${this.headBlock.header.number}`);
      }
      let td = (await this.getTotalDifficulty(first.header.parentHash)) ?? 0n;
      const tds: bigint[] = [];
      const ops = [...extraOps];
      entries.forEach(({ block, receipts }, i) => {
        if (i > 0 && !equalBytes(block.header.parentHash, entries[i - 1].block.hash)) {
          throw new Error(`block #${block.header.number} does not extend the block before it`);
        }
        td += block.header.difficulty;
        tds.push(td);
        ops.push(...this.blockOps(block, receipts, td, i === entries.length - 1));
      });
      await this.db.batch(ops);
      entries.forEach(({ block, receipts }, i) => this.cacheBlock(block, receipts, tds[i]));
      for (const entry of entries) {
        this.headBlock = entry.block;
        this.emit('newHead', entry);
      }
    });
  }

  /**
   * Stores a verified block off the canonical chain (its parent is stored), atomically with
   * `extraOps` (its state nodes); the head and the canonical index do not change. Returns its
   * total difficulty.
   */
  storeSideBlock(block: Block, receipts: Receipt[], extraOps: BatchOp[]): Promise<bigint> {
    return this.exclusive(async () => {
      const parentTd = await this.getTotalDifficulty(block.header.parentHash);
      if (parentTd === undefined) throw new Error(`parent of block #${block.header.number} is not stored`);
      const td = parentTd + block.header.difficulty;
      await this.db.batch([...extraOps, ...this.storeOps(block, receipts, td, touchedOf(block, receipts))]);
      const key = bytesToHex(block.hash);
      this.blocksByHash.set(key, block);
      this.receiptsByHash.set(key, receipts);
      this.tdByHash.set(key, td);
      return td;
    });
  }

  /** True when the block is stored (any branch). */
  async hasBlock(hash: Uint8Array): Promise<boolean> {
    return (await this.getTotalDifficulty(hash)) !== undefined;
  }

  /** True when `block` is the canonical block at its height. */
  async isCanonical(block: Block): Promise<boolean> {
    const canonical = await this.getHashByNumber(block.header.number);
    return canonical !== undefined && equalBytes(canonical, block.hash);
  }

  /**
   * Sets the head back to `ancestorHash`, a canonical block at or below the head: the canonical
   * index above it, the removed blocks' transaction lookups and the head move in one batch, and
   * their transactions return to the pool journal. Emits `rewound` once the batch is written.
   * Nothing is pruned: the ancestor's state and the removed blocks stay stored (as side blocks).
   * On a running node call BlockImporter.rewindTo: it runs in turn with the miner's block
   * writes and resolves once the pool has the transactions back. `returnTransactions: false`
   * leaves them out of the pool and its journal.
   */
  rewindTo(ancestorHash: Uint8Array, opts: RewindOptions = {}): Promise<NewHeadEvent[]> {
    return this.exclusive(async () => {
      const target = await this.getBlockByHash(ancestorHash);
      if (!target) throw notFound(`unknown block ${bytesToHex(ancestorHash)}`);
      if (!(await this.isCanonical(target))) throw wrongState(`block ${bytesToHex(ancestorHash)} is not on the canonical chain`);
      return (await this.switchHead(target, opts.returnTransactions ?? true)).removed;
    });
  }

  /**
   * Makes the stored block `hash` the head, whichever branch it is on: the blocks between the
   * common ancestor and the old head leave the canonical chain and those up to `hash` join it,
   * in one batch. Emits `rewound` (when blocks left), then `newHead` for each joined block.
   * The caller decides that the branch should win (total difficulty); its blocks were verified
   * and stored with their state before.
   */
  reorgTo(hash: Uint8Array): Promise<HeadSwitch> {
    return this.exclusive(async () => {
      const target = await this.getBlockByHash(hash);
      if (!target) throw notFound(`unknown block ${bytesToHex(hash)}`);
      return this.switchHead(target, true);
    });
  }

  private async switchHead(target: Block, returnTransactions: boolean): Promise<HeadSwitch> {
    const removedBlocks: Block[] = [];
    const addedBlocks: Block[] = [];
    const parentOf = async (b: Block): Promise<Block> => {
      const parent = await this.getBlockByHash(b.header.parentHash);
      if (!parent) throw new Error(`database is damaged: parent of block #${b.header.number} ${bytesToHex(b.hash)} missing`);
      return parent;
    };
    let oldSide = this.headBlock;
    let newSide = target;
    while (oldSide.header.number > newSide.header.number) {
      removedBlocks.push(oldSide);
      oldSide = await parentOf(oldSide);
    }
    while (newSide.header.number > oldSide.header.number) {
      addedBlocks.push(newSide);
      newSide = await parentOf(newSide);
    }
    while (!equalBytes(oldSide.hash, newSide.hash)) {
      removedBlocks.push(oldSide);
      addedBlocks.push(newSide);
      oldSide = await parentOf(oldSide);
      newSide = await parentOf(newSide);
    }
    addedBlocks.reverse();
    const withReceipts = (blocks: Block[]) =>
      Promise.all(blocks.map(async (block) => ({ block, receipts: (await this.getReceipts(block.hash)) ?? [] })));
    const removed = await withReceipts(removedBlocks);
    const added = await withReceipts(addedBlocks);
    if (removed.length === 0 && added.length === 0) return { removed, added };

    const oldHead = this.headBlock;
    const touched = await this.storedTouched([...removed, ...added]);
    // Counted before and after: a read overlapping the batch in any way sees a change.
    this.switches++;
    await this.db.batch(headSwitchOps(oldHead, target, removedBlocks, addedBlocks, returnTransactions, touched));
    this.switches++;
    for (let n = target.header.number + 1n; n <= oldHead.header.number; n++) this.hashByNumber.delete(n);
    for (const b of addedBlocks) this.hashByNumber.set(b.header.number, b.hash);
    this.headBlock = target;
    if (removed.length) this.emit('rewound', { removed, returnTransactions });
    for (const e of added) this.emit('newHead', e);
    return { removed, added };
  }

  /**
   * The touched addresses of stored blocks, by block hash (hex): as stored with them, else (a
   * block stored before the index existed, not yet rebuilt) what their receipts tell.
   */
  private async storedTouched(entries: NewHeadEvent[]): Promise<Map<string, TouchedAddresses>> {
    const withTxs = entries.filter((e) => e.block.transactions.length > 0);
    const stored = await this.db.getMany(withTxs.map((e) => keys.touched(e.block.hash)));
    return new Map(withTxs.map((e, i) => [bytesToHex(e.block.hash), stored[i] ? decodeTouched(stored[i]!) : touchedOf(e.block, e.receipts)]));
  }

  /**
   * Records the touched addresses of a stored block that has none yet (the index rebuilt for a
   * datadir made before it existed), with its canonical entries if it is canonical. In turn with
   * the head switches, so that a block's entries follow the branch it is on.
   */
  indexStoredBlock(block: Block, touched: TouchedAddresses): Promise<void> {
    return this.exclusive(async () => {
      if (block.transactions.length === 0 || (await this.db.get(keys.touched(block.hash)))) return;
      const ops = touchedOps(block, touched);
      if (await this.isCanonical(block)) ops.push(...indexOps('put', block, touched));
      await this.db.batch(ops);
    });
  }

  async getHashByNumber(number: bigint): Promise<Uint8Array | undefined> {
    if (number > this.headBlock.header.number || number < 0n) return undefined;
    const cached = this.hashByNumber.get(number);
    if (cached) return cached;
    const switches = this.switches;
    const stored = await this.db.get(keys.canonical(number));
    // A read that started before a head switch may return the old branch's hash: never cache it.
    if (stored && switches === this.switches) this.hashByNumber.set(number, stored);
    return stored;
  }

  /**
   * Stored header encodings of the canonical blocks `numbers`, in order, up to the first one not
   * stored: two database reads however many, nothing decoded or hashed (serving peers).
   */
  async getCanonicalHeaderBytes(numbers: bigint[]): Promise<Uint8Array[]> {
    const head = this.headBlock.header.number;
    const cut = numbers.findIndex((n) => n < 0n || n > head);
    const wanted = cut < 0 ? numbers : numbers.slice(0, cut);
    const hashes = wanted.map((n) => this.hashByNumber.get(n));
    const missing = hashes.flatMap((h, i) => (h ? [] : [i]));
    if (missing.length) {
      const stored = await this.db.getMany(missing.map((i) => keys.canonical(wanted[i])));
      missing.forEach((i, k) => (hashes[i] = stored[k]));
    }
    const end = hashes.findIndex((h) => !h);
    const found = (end < 0 ? hashes : hashes.slice(0, end)) as Uint8Array[];
    const headers = await this.db.getMany(found.map((h) => keys.header(h)));
    const stop = headers.findIndex((h) => !h);
    return (stop < 0 ? headers : headers.slice(0, stop)) as Uint8Array[];
  }

  /** The transactions' exact encodings of each block (undefined: not stored), in one database read for the uncached. */
  async getRawBodies(hashes: Uint8Array[]): Promise<(Uint8Array[] | undefined)[]> {
    const out = hashes.map((h) => this.blocksByHash.get(bytesToHex(h))?.transactions.map((tx) => tx.raw));
    const missing = out.flatMap((b, i) => (b ? [] : [i]));
    if (missing.length === 0) return out;
    const stored = await this.db.getMany(missing.map((i) => keys.body(hashes[i])));
    missing.forEach((i, k) => {
      const bytes = stored[k];
      if (bytes) out[i] = (RLP.decode(bytes) as unknown as [Uint8Array, Uint8Array][]).map(([raw]) => raw);
    });
    return out;
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
    // Under the hash it was stored by: a fork's anchor keeps its upstream's hash, which an
    // Ethereum header (more fields than ours) does not reproduce from the fields kept here.
    const block = { ...blockFromParts(header, txs), hash };
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

  /** Total difficulties of several blocks (undefined: not stored), in one database read for the uncached. */
  async getTotalDifficulties(hashes: Uint8Array[]): Promise<(bigint | undefined)[]> {
    const out = hashes.map((h) => this.tdByHash.get(bytesToHex(h)));
    const missing = out.flatMap((td, i) => (td === undefined ? [i] : []));
    if (missing.length === 0) return out;
    const stored = await this.db.getMany(missing.map((i) => keys.td(hashes[i])));
    missing.forEach((i, k) => {
      const bytes = stored[k];
      if (!bytes) return;
      out[i] = bytesToBigint(bytes);
      this.tdByHash.set(bytesToHex(hashes[i]), out[i]!);
    });
    return out;
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
