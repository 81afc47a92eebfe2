// The world-state (account) trie that block building writes through, in place of the library's
// Merkle Patricia trie under the MerkleStateManager: the same trie (keccak(address) keys, the
// same nodes, the same root), built differently. Nodes are immutable decoded objects kept in a
// cache by hash, so a read decodes no RLP; a put or delete rebuilds the path in memory, and the
// new nodes are encoded, hashed and stored once, when the root is asked for (a block's touched
// accounts share one pass instead of re-hashing the path per account). Checkpoints are the
// root before them (nodes are never changed in place). Storage tries and proofs keep the
// library's trie (`shallowCopy` hands one out); test/unit/state/accountTrie.test.ts checks
// roots and stored nodes against it.

import { RLP } from '@ethereumjs/rlp';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { ValueEncoding } from '@ethereumjs/util';
import { keccak256 } from '../encoding/bytes.js';
import { hexPrefix, rlpListOfEncoded } from '../chain/block.js';
import { Lru } from '../store/lru.js';
import type { TrieNodeStore } from './trieNodeStore.js';

interface Leaf {
  readonly kind: 0;
  /** nibbles */
  readonly path: Uint8Array;
  readonly value: Uint8Array;
  enc?: Uint8Array;
  hash?: Uint8Array;
}
interface Extension {
  readonly kind: 1;
  readonly path: Uint8Array;
  readonly child: Ref;
  enc?: Uint8Array;
  hash?: Uint8Array;
}
interface Branch {
  readonly kind: 2;
  readonly children: readonly (Ref | null)[];
  readonly value: Uint8Array | null;
  enc?: Uint8Array;
  hash?: Uint8Array;
}
type TrieNode = Leaf | Extension | Branch;
/** a child: the 32-byte hash of a stored node, or the node itself (embedded, or new and not yet encoded) */
type Ref = Uint8Array | TrieNode;

const EMPTY = new Uint8Array(0);
const EMPTY_ROOT = keccak256(Uint8Array.of(0x80));
/**
 * Bytes of decoded nodes kept per node store (by estimate: a branch's objects cost ~4 times its
 * 532 bytes). 4 MiB, not 8: the store's own cache keeps the same nodes encoded, and under the
 * soak's traffic 8 MiB came to ~7 MiB of the ~50 MB live heap.
 */
const DECODED_BYTES = 4 * 2 ** 20;
const decodedWeight = (key: string, node: TrieNode) => 200 + key.length + 4 * (node.enc?.length ?? 0);

// ---------------------------------------------------------------- encoding

function lengthPrefix(length: number, offset: number): Uint8Array {
  if (length <= 55) return Uint8Array.of(offset + length);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return Uint8Array.of(offset + 55 + bytes.length, ...bytes);
}

/** RLP of a byte string. */
function encodeBytes(b: Uint8Array): Uint8Array {
  if (b.length === 1 && b[0] < 0x80) return b;
  const prefix = lengthPrefix(b.length, 0x80);
  const out = new Uint8Array(prefix.length + b.length);
  out.set(prefix);
  out.set(b, prefix.length);
  return out;
}

function nibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i] >> 4;
    out[2 * i + 1] = key[i] & 15;
  }
  return out;
}

function concatNibbles(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Nibbles `path` and `key` (from `offset`) have in common at the start. */
function commonPrefix(path: Uint8Array, key: Uint8Array, offset: number): number {
  const max = Math.min(path.length, key.length - offset);
  let i = 0;
  while (i < max && path[i] === key[offset + i]) i++;
  return i;
}

// ---------------------------------------------------------------- decoding

type RawNode = Uint8Array | RawNode[];

function decodeRef(raw: RawNode): Ref | null {
  if (raw instanceof Uint8Array) {
    if (raw.length === 0) return null;
    if (raw.length === 32) return raw;
    throw new Error('trie node: a child reference is neither a hash nor a node');
  }
  return decodeRaw(raw);
}

function decodeRaw(raw: RawNode[]): TrieNode {
  if (raw.length === 17) {
    const value = raw[16] as Uint8Array;
    return { kind: 2, children: raw.slice(0, 16).map(decodeRef), value: value.length ? value : null };
  }
  if (raw.length !== 2) throw new Error(`trie node: a list of ${raw.length} items`);
  const encodedPath = raw[0] as Uint8Array;
  const flag = encodedPath[0] >> 4;
  const all = nibbles(encodedPath);
  const path = all.subarray(flag & 1 ? 1 : 2);
  return flag & 2 ? { kind: 0, path, value: raw[1] as Uint8Array } : { kind: 1, path, child: decodeRef(raw[1])! };
}

// ---------------------------------------------------------------- the trie

/**
 * Decoded nodes by hash, one cache per node store and the scratch stores over it (`cacheOwner`):
 * nodes are content-addressed and immutable, so a node decoded for the pending block is the node
 * the chain's next block reads under that hash. (A cache per scratch store filled up to its budget
 * again for every pending block: ~10 MB more live heap under the soak's traffic.)
 */
const decodedCaches = new WeakMap<TrieNodeStore, Lru<string, TrieNode>>();

const toHex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

export class AccountTrie {
  readonly EMPTY_TRIE_ROOT = EMPTY_ROOT;
  /** read by MerkleStateManager.shallowCopy */
  readonly _opts = { cacheSize: 0 };
  private rootHash: Uint8Array;
  /** the root node in memory (undefined: not loaded yet; null: empty trie) */
  private rootNode: TrieNode | null | undefined;
  /** the root node has changes not yet encoded */
  private changed = false;
  private readonly checkpoints: { hash: Uint8Array; node: TrieNode | null | undefined; changed: boolean }[] = [];
  private readonly decoded: Lru<string, TrieNode>;

  /**
   * @param hashKeys keys are keccak(key), as in the state trie (false: raw keys, which reach the
   * short paths and embedded nodes that hashed keys practically never make; for tests)
   */
  constructor(
    private readonly nodes: TrieNodeStore,
    root: Uint8Array = EMPTY_ROOT,
    private readonly hashKeys = true,
  ) {
    this.rootHash = root;
    const owner = nodes.cacheOwner;
    let cache = decodedCaches.get(owner);
    if (!cache) decodedCaches.set(owner, (cache = new Lru(DECODED_BYTES, decodedWeight)));
    this.decoded = cache;
  }

  appliedKey(key: Uint8Array): Uint8Array {
    return this.hashKeys ? keccak256(key) : key;
  }

  /** Gets the root (encoding and storing the changed nodes first), or sets it (dropping changes). */
  root(value?: Uint8Array | null): Uint8Array {
    if (value !== undefined) {
      const root = value ?? EMPTY_ROOT;
      if (root.length !== 32) throw new Error(`Invalid root length. Roots are 32 bytes, got ${root.length} bytes`);
      this.rootHash = root;
      this.rootNode = undefined;
      this.changed = false;
      return root;
    }
    if (this.changed) {
      const node = this.rootNode!;
      if (node === null) {
        this.rootHash = EMPTY_ROOT;
      } else {
        // The root is stored under its hash even when it is shorter than 32 bytes.
        const enc = this.encode(node);
        node.hash ??= keccak256(enc);
        this.keep(node.hash, node, enc);
        this.rootHash = node.hash;
      }
      this.changed = false;
    }
    return this.rootHash;
  }

  async checkRoot(root: Uint8Array): Promise<boolean> {
    if (root.length === 32 && root.every((b, i) => b === EMPTY_ROOT[i])) return true;
    return (await this.nodes.get(toHex(root))) !== undefined;
  }

  async get(key: Uint8Array): Promise<Uint8Array | null> {
    const path = nibbles(this.appliedKey(key));
    let node = await this.loadRoot();
    let at = 0;
    while (node) {
      if (node.kind === 0) return commonPrefix(node.path, path, at) === node.path.length && at + node.path.length === path.length ? node.value : null;
      if (node.kind === 1) {
        if (commonPrefix(node.path, path, at) !== node.path.length) return null;
        at += node.path.length;
        node = await this.resolve(node.child);
      } else {
        if (at === path.length) return node.value;
        const child = node.children[path[at++]];
        node = child === null ? null : await this.resolve(child);
      }
    }
    return null;
  }

  /** Stores `value` at `key`; an empty value deletes the key (as the library's trie does). */
  async put(key: Uint8Array, value: Uint8Array): Promise<void> {
    if (value.length === 0) return this.del(key);
    this.nodes.recordPreimage(key);
    const root = await this.loadRoot();
    this.rootNode = await this.insert(root, nibbles(this.appliedKey(key)), 0, value);
    this.changed = true;
  }

  async del(key: Uint8Array): Promise<void> {
    const root = await this.loadRoot();
    if (root === null) return;
    const after = await this.remove(root, nibbles(this.appliedKey(key)), 0);
    if (after === root) return;
    this.rootNode = after;
    this.changed = true;
  }

  checkpoint(): void {
    this.checkpoints.push({ hash: this.rootHash, node: this.rootNode, changed: this.changed });
  }

  async commit(): Promise<void> {
    if (this.checkpoints.pop() === undefined) throw new Error('trying to commit when not checkpointed');
  }

  async revert(): Promise<void> {
    const saved = this.checkpoints.pop();
    if (saved === undefined) throw new Error('trying to revert when not checkpointed');
    this.rootHash = saved.hash;
    this.rootNode = saved.node;
    this.changed = saved.changed;
  }

  hasCheckpoints(): boolean {
    return this.checkpoints.length > 0;
  }

  /** The node store as the state manager's code store sees it (byte keys, stored as hex). */
  database(): { get(key: Uint8Array): Promise<Uint8Array | undefined>; put(key: Uint8Array, value: Uint8Array): Promise<void> } {
    const { nodes } = this;
    return {
      get: async (key) => {
        const value = await nodes.get(toHex(key));
        return typeof value === 'string' ? Buffer.from(value, 'hex') : value;
      },
      put: (key, value) => nodes.put(toHex(key), value),
    };
  }

  /** A library trie on the same store at this root (storage tries, copies of the state manager). */
  shallowCopy(_includeCheckpoints?: boolean, opts: Record<string, unknown> = {}): MerklePatriciaTrie {
    const trie = new MerklePatriciaTrie({
      db: this.nodes,
      useKeyHashing: true,
      useKeyHashingFunction: keccak256,
      valueEncoding: ValueEncoding.Bytes,
      root: this.root(),
      ...opts,
    });
    // Storage tries: their slots are recorded as preimages too (state dumps name them).
    const put = trie.put.bind(trie);
    const nodes = this.nodes;
    trie.put = (key, value, skipKeyTransform) => {
      if (value !== null && value.length > 0) nodes.recordPreimage(key);
      return put(key, value, skipKeyTransform);
    };
    return trie;
  }

  // -------------------------------------------------------------- internals

  private async loadRoot(): Promise<TrieNode | null> {
    if (this.rootNode === undefined) {
      this.rootNode = this.rootHash.every((b, i) => b === EMPTY_ROOT[i]) ? null : await this.load(this.rootHash);
    }
    return this.rootNode;
  }

  private async resolve(ref: Ref): Promise<TrieNode> {
    return ref instanceof Uint8Array ? this.load(ref) : ref;
  }

  private async load(hash: Uint8Array): Promise<TrieNode> {
    const key = toHex(hash);
    let node = this.decoded.get(key);
    if (node) return node;
    const stored = await this.nodes.get(key);
    if (stored === undefined) throw new Error(`Missing node in DB: ${key}`);
    const bytes = typeof stored === 'string' ? Buffer.from(stored, 'hex') : stored;
    node = decodeRaw(RLP.decode(bytes) as RawNode[]);
    node.enc = bytes;
    node.hash = hash;
    this.decoded.set(key, node);
    return node;
  }

  private async insert(node: TrieNode | null, key: Uint8Array, at: number, value: Uint8Array): Promise<TrieNode> {
    if (node === null) return { kind: 0, path: key.slice(at), value };
    if (node.kind === 2) {
      if (at === key.length) return { kind: 2, children: node.children, value };
      const i = key[at];
      const child = node.children[i];
      const children = node.children.slice();
      children[i] = await this.insert(child === null ? null : await this.resolve(child), key, at + 1, value);
      return { kind: 2, children, value: node.value };
    }
    const shared = commonPrefix(node.path, key, at);
    if (node.kind === 0 && shared === node.path.length && at + shared === key.length) return { kind: 0, path: node.path, value };
    if (node.kind === 1 && shared === node.path.length) {
      return { kind: 1, path: node.path, child: await this.insert(await this.resolve(node.child), key, at + shared, value) };
    }
    // The paths part after `shared` nibbles: a branch there, behind an extension of the shared part.
    const children: (Ref | null)[] = new Array(16).fill(null);
    let branchValue: Uint8Array | null = null;
    const rest = node.path.subarray(shared);
    if (rest.length === 0) {
      branchValue = (node as Leaf).value; // only a leaf can end here: an extension's path is never a prefix of a key
    } else if (node.kind === 0) {
      children[rest[0]] = { kind: 0, path: rest.slice(1), value: node.value };
    } else {
      children[rest[0]] = rest.length === 1 ? node.child : { kind: 1, path: rest.slice(1), child: node.child };
    }
    const from = at + shared;
    if (from === key.length) branchValue = value;
    else children[key[from]] = { kind: 0, path: key.slice(from + 1), value };
    const branch: Branch = { kind: 2, children, value: branchValue };
    return shared === 0 ? branch : { kind: 1, path: node.path.slice(0, shared), child: branch };
  }

  /** The node without `key`; the same object when the key is absent. */
  private async remove(node: TrieNode, key: Uint8Array, at: number): Promise<TrieNode | null> {
    if (node.kind === 0) {
      return commonPrefix(node.path, key, at) === node.path.length && at + node.path.length === key.length ? null : node;
    }
    if (node.kind === 1) {
      if (commonPrefix(node.path, key, at) !== node.path.length) return node;
      const child = await this.resolve(node.child);
      const after = await this.remove(child, key, at + node.path.length);
      if (after === child) return node;
      return after === null ? null : this.joinPath(node.path, after);
    }
    let children = node.children;
    let value = node.value;
    if (at === key.length) {
      if (value === null) return node;
      value = null;
    } else {
      const i = key[at];
      const child = children[i];
      if (child === null) return node;
      const resolved = await this.resolve(child);
      const after = await this.remove(resolved, key, at + 1);
      if (after === resolved) return node;
      children = children.slice();
      (children as (Ref | null)[])[i] = after;
    }
    // A branch keeps two entries at least; with one left it becomes that entry's path.
    let only = -1;
    let count = 0;
    for (let i = 0; i < 16; i++) {
      if (children[i] !== null) {
        only = i;
        count++;
      }
    }
    if (count === 0) return value === null ? null : { kind: 0, path: EMPTY, value };
    if (count === 1 && value === null) return this.joinPath(Uint8Array.of(only), await this.resolve(children[only]!));
    return { kind: 2, children, value };
  }

  /** `node` reached through `prefix`: a leaf or extension absorbs it, a branch gets an extension. */
  private joinPath(prefix: Uint8Array, node: TrieNode): TrieNode {
    if (node.kind === 0) return { kind: 0, path: concatNibbles(prefix, node.path), value: node.value };
    if (node.kind === 1) return { kind: 1, path: concatNibbles(prefix, node.path), child: node.child };
    return { kind: 1, path: prefix, child: node };
  }

  /** A node's RLP; new nodes' children are encoded (and stored, when referenced by hash) first. */
  private encode(node: TrieNode): Uint8Array {
    if (node.enc) return node.enc;
    let enc: Uint8Array;
    if (node.kind === 0) {
      enc = rlpListOfEncoded([encodeBytes(hexPrefix(node.path, true)), encodeBytes(node.value)]);
    } else if (node.kind === 1) {
      enc = rlpListOfEncoded([encodeBytes(hexPrefix(node.path, false)), this.reference(node.child)]);
    } else {
      const items: Uint8Array[] = new Array(17);
      for (let i = 0; i < 16; i++) {
        const child = node.children[i];
        items[i] = child === null ? EMPTY_STRING : this.reference(child);
      }
      items[16] = node.value === null ? EMPTY_STRING : encodeBytes(node.value);
      enc = rlpListOfEncoded(items);
    }
    node.enc = enc;
    return enc;
  }

  /** How a parent holds `ref`: the node inline when its RLP is under 32 bytes, else its hash. */
  private reference(ref: Ref): Uint8Array {
    if (ref instanceof Uint8Array) return encodeBytes(ref);
    const enc = this.encode(ref);
    if (enc.length < 32) return enc;
    if (!ref.hash) {
      ref.hash = keccak256(enc);
      this.keep(ref.hash, ref, enc);
    }
    return encodeBytes(ref.hash);
  }

  /** Stores a new node (in the block's writes) and keeps it decoded for the next block's reads. */
  private keep(hash: Uint8Array, node: TrieNode, enc: Uint8Array): void {
    const key = toHex(hash);
    void this.nodes.put(key, enc);
    this.decoded.set(key, node);
  }
}

const EMPTY_STRING = Uint8Array.of(0x80);
