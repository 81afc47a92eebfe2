// The database under every state trie. Trie writes of the block being built collect in memory
// and are drained into that block's LevelDB batch, so a block and its state land together.
// Reads look at the collected writes, then an LRU of hot nodes, then LevelDB.

import type { BatchDBOp, DB } from '@ethereumjs/util';
import { hexToBytes } from '../encoding/hex.js';
import type { BatchOp, Database } from '../store/database.js';
import { keys } from '../store/schema.js';
import { Lru } from '../store/lru.js';

type TrieValue = string | Uint8Array;

// Moved to store/lru.ts; re-exported while branches written against this path are merged.
export { Lru } from '../store/lru.js';

const toBytes = (value: TrieValue): Uint8Array => (typeof value === 'string' ? hexToBytes(value) : value);

/**
 * Bytes of trie nodes a store keeps hot by default; most entries are the newest blocks' nodes.
 * Counted by bytes, not nodes: a node is 40 to 532 bytes and its objects cost more than that.
 * 6 MiB (about 15,000 nodes): 12 MiB held ~6 MiB more resident under the soak's traffic for no
 * throughput in the soak or the bench, 8 MiB ~4 MiB more; random reads of old state pay 3-8% more
 * CPU from 12 to 8 MiB, nothing measurable from 8 to 6 (bench/RESULTS.md#memory).
 */
export const DEFAULT_TRIE_CACHE_BYTES = 6 * 2 ** 20;

/**
 * What one cached node holds beyond its key characters and value bytes (measured in heap
 * snapshots): the Uint8Array and ArrayBuffer objects, the backing store, the key string, the map slot.
 */
export const TRIE_NODE_OVERHEAD = 300;

const nodeWeight = (key: string, value: Uint8Array): number => TRIE_NODE_OVERHEAD + key.length + value.length;

export class TrieNodeStore implements DB<string, TrieValue> {
  private pending = new Map<string, Uint8Array>();
  /** writes of earlier verified blocks whose batch is not written yet (an import group) */
  private staged = new Map<string, Uint8Array>();
  private readonly cache: Lru<string, Uint8Array>;

  /**
   * @param base a store to read through instead of keeping a cache of its own (see `scratchOver`)
   */
  constructor(
    private readonly db: Database,
    cacheBytes = DEFAULT_TRIE_CACHE_BYTES,
    private readonly base?: TrieNodeStore,
  ) {
    this.cache = new Lru(base ? 0 : cacheBytes, nodeWeight);
  }

  /**
   * A store for state that may never be committed (the pending block, a trace, a work package):
   * its writes stay its own, its reads go through `base`, so the nodes it reads are cached once,
   * in the chain's cache, and not again in a cache per scratch store. Nodes are content-addressed
   * (the key is the hash of the value), so whatever `base` holds under a key, written yet or not,
   * is that node.
   */
  static scratchOver(base: TrieNodeStore): TrieNodeStore {
    return new TrieNodeStore(base.db, 0, base);
  }

  /** The store whose caches this one shares: the base of a scratch store, else the store itself. */
  get cacheOwner(): TrieNodeStore {
    return this.base ?? this;
  }

  async get(key: string): Promise<TrieValue | undefined> {
    const fresh = this.pending.get(key) ?? this.staged.get(key);
    if (fresh !== undefined) return fresh;
    if (this.base) return this.base.get(key);
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const stored = await this.db.get(keys.trieNode(hexToBytes(key)));
    if (stored !== undefined) this.cache.set(key, stored);
    return stored;
  }

  async put(key: string, value: TrieValue): Promise<void> {
    this.pending.set(key, toBytes(value));
  }

  // Nodes are content-addressed and shared between blocks: never delete them.
  async del(): Promise<void> {}

  async batch(ops: BatchDBOp<string, TrieValue>[]): Promise<void> {
    for (const op of ops) if (op.type === 'put') this.pending.set(op.key, toBytes(op.value));
  }

  shallowCopy(): DB<string, TrieValue> {
    return this;
  }

  async open(): Promise<void> {}

  /**
   * Hands the collected writes (staged ones included) to a block batch and keeps them hot in the
   * cache (the base's, for a scratch store whose block is committed: a sealed work package).
   */
  drainWrites(): BatchOp[] {
    const ops: BatchOp[] = [];
    const cache = (this.base ?? this).cache;
    for (const map of [this.staged, this.pending]) {
      for (const [key, value] of map) {
        ops.push({ type: 'put', key: keys.trieNode(hexToBytes(key)), value });
        cache.set(key, value);
      }
    }
    this.pending = new Map();
    this.staged = new Map();
    return ops;
  }

  /**
   * Keeps the current block's writes for a later batch that also holds the blocks after it:
   * they stay readable (the next block is verified on that state) and are no longer dropped by
   * `discardWrites`, only by `discardStaged` or handed over by `drainWrites`.
   */
  stageWrites(): void {
    if (this.staged.size === 0) {
      this.staged = this.pending;
    } else {
      for (const [key, value] of this.pending) this.staged.set(key, value);
    }
    this.pending = new Map();
  }

  /** Forgets collected writes (a block that was built but not committed); staged ones stay. */
  discardWrites(): void {
    this.pending = new Map();
  }

  /** Forgets every write not yet in a batch, staged ones too (their batch was not written). */
  discardStaged(): void {
    this.pending = new Map();
    this.staged = new Map();
  }
}
