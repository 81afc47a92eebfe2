// Read access to the world state at any stored state root, and the factories for the EVM's
// state managers. Reads at one root share a cached state manager so hot accounts cost a map hit.

import { createMPT, type MerklePatriciaTrie } from '@ethereumjs/mpt';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, ValueEncoding, type Account } from '@ethereumjs/util';
import type { Common } from '@ethereumjs/common';
import { bytesToHex } from '../encoding/hex.js';
import { equalBytes, keccak256 } from '../encoding/bytes.js';
import type { TrieNodeStore } from './trieNodeStore.js';
import { AccountTrie } from './accountTrie.js';
import { Lru } from '../store/lru.js';
import { unsupported } from '../errors.js';
import type { ForkBases } from './baseState.js';

// The state manager library loads with the first state manager, not at start-up.
let library: typeof import('@ethereumjs/statemanager') | undefined;
let forkLibrary: typeof import('./forkStateManager.js') | undefined;

/** Why a fork serves no proofs (docs/fork-mode.md#what-is-refused). */
export const FORK_PROOF_REFUSAL =
  'proofs are not served in fork mode: a fork\'s state roots cover the accounts it touched (fork roots), not the upstream\'s state, so no proof would verify against a root the upstream published';

/** Decoded accounts kept for the last root read (the head, in practice). */
const DECODED_ACCOUNTS = 10_000;

export class WorldState {
  private readonly readers = new Lru<string, Promise<MerkleStateManager>>(8);

  /**
   * @param fork in a fork datadir: how roots map to the local trie and the upstream's state under
   * it (every state manager made here then reads through it)
   */
  constructor(
    readonly nodes: TrieNodeStore,
    readonly common: Common,
    readonly fork?: ForkBases,
  ) {}

  /** The library trie at `root` (proofs). A fork's tries hold only what it touched: refused there. */
  async trieAt(root: Uint8Array, nodes: TrieNodeStore = this.nodes): Promise<MerklePatriciaTrie> {
    if (this.fork) throw unsupported(FORK_PROOF_REFUSAL);
    // The hash function serves node hashing and key hashing alike (storage tries inherit it).
    return createMPT({
      db: nodes, root, useKeyHashing: true, useKeyHashingFunction: keccak256, valueEncoding: ValueEncoding.Bytes,
    });
  }

  /** A fresh, writable state manager on `root` (block building, calls). */
  async stateManagerAt(root: Uint8Array, nodes: TrieNodeStore = this.nodes): Promise<MerkleStateManager> {
    if (this.fork) return this.forkStateAt(root, nodes);
    const trie = await this.trieAt(root, nodes);
    const { MerkleStateManager, Caches } = (library ??= await import('@ethereumjs/statemanager'));
    return new MerkleStateManager({ trie, common: this.common, caches: new Caches() });
  }

  /**
   * A fresh, writable state manager on `root` for building or replaying a block: its account trie
   * is our AccountTrie (decoded nodes, one hashing pass per root); storage tries are the library's.
   */
  async buildingStateAt(root: Uint8Array, nodes: TrieNodeStore = this.nodes): Promise<MerkleStateManager> {
    if (this.fork) return this.forkStateAt(root, nodes);
    const { MerkleStateManager, Caches } = (library ??= await import('@ethereumjs/statemanager'));
    const trie = new AccountTrie(nodes, root) as unknown as MerklePatriciaTrie;
    return new MerkleStateManager({ trie, common: this.common, caches: new Caches() });
  }

  /** A fork's state at `root`: its local trie (our AccountTrie) over the base state the root reads. */
  private async forkStateAt(root: Uint8Array, nodes: TrieNodeStore): Promise<MerkleStateManager> {
    const { forkStateManager } = (forkLibrary ??= await import('./forkStateManager.js'));
    return forkStateManager(this.fork!.resolve(root), nodes, this.common);
  }

  /** True when the root's top node is stored (a state we can serve). */
  async hasState(root: Uint8Array): Promise<boolean> {
    if (this.fork) return new AccountTrie(this.nodes).checkRoot(this.fork.resolve(root).local);
    const trie = await this.trieAt(root);
    return trie.checkRoot(root);
  }

  /** Forgets the shared readers (a fork moved to another base: the same local root now reads other state). */
  clearReaders(): void {
    this.readers.clear();
    this.lastRoot = undefined;
    this.lastReader = undefined;
    this.lastAccounts = new Map();
  }

  private lastRoot: Uint8Array | undefined;
  private lastReader: Promise<MerkleStateManager> | undefined;
  /** Decoded accounts at lastRoot: the state manager's cache holds RLP and decodes on every read. */
  private lastAccounts = new Map<string, Account | undefined>();

  /** A shared read-only state manager for `root`; never checkpoint or write through it. */
  private reader(root: Uint8Array): Promise<MerkleStateManager> {
    // Most reads are at the head: skip the hex key and the LRU reordering for them.
    if (this.lastRoot && this.lastReader && equalBytes(this.lastRoot, root)) return this.lastReader;
    const key = bytesToHex(root);
    this.lastAccounts = new Map();
    let sm = this.readers.get(key);
    if (!sm) {
      sm = this.stateManagerAt(root);
      this.readers.set(key, sm);
    }
    this.lastRoot = root;
    this.lastReader = sm;
    return sm;
  }

  /** The account at `root`; shared with other readers, so never modify it. */
  async getAccount(root: Uint8Array, address: Uint8Array): Promise<Readonly<Account> | undefined> {
    const sm = await this.reader(root);
    const accounts = this.lastAccounts;
    const key = bytesToHex(address);
    if (accounts.has(key)) return accounts.get(key);
    const account = await sm.getAccount(new Address(address));
    // Only while `root` is still the last one read (a head change may have come meanwhile).
    if (accounts === this.lastAccounts && this.lastRoot !== undefined && equalBytes(this.lastRoot, root)) {
      if (accounts.size >= DECODED_ACCOUNTS) accounts.clear();
      accounts.set(key, account);
    }
    return account;
  }

  async getCode(root: Uint8Array, address: Uint8Array): Promise<Uint8Array> {
    return (await this.reader(root)).getCode(new Address(address));
  }

  /** The 32-byte storage word at `slot` (zero when unset). */
  async getStorage(root: Uint8Array, address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const sm = await this.reader(root);
    const addr = new Address(address);
    if ((await sm.getAccount(addr)) === undefined) return new Uint8Array(32);
    const value = await sm.getStorage(addr, slot);
    const word = new Uint8Array(32);
    word.set(value, 32 - value.length);
    return word;
  }
}
