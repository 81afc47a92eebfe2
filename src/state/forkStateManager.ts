// The state manager of a fork (docs/fork-mode.md#state): the library's MerkleStateManager over a
// ForkAccountTrie, whose storage tries fall through to the base state too. It tracks which
// accounts a block detached from their base storage (a wipe by deletion or by a creation at the
// address) until its writes reach the trie, where the mark is kept; checkpoints, commits and
// reverts move those marks with the state manager's own caches. Loaded with the first fork state.

import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { ValueEncoding, bytesToUnprefixedHex, type Address } from '@ethereumjs/util';
import type { Common } from '@ethereumjs/common';
import type { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { bytesToHex } from '../encoding/hex.js';
import { keccak256 } from '../encoding/bytes.js';
import { ForkAccountTrie, ForkStorageTrie } from './forkTrie.js';
import type { ForkStateAt } from './baseState.js';
import type { TrieNodeStore } from './trieNodeStore.js';

export class ForkStateManager extends MerkleStateManager {
  /** per checkpoint level, the addresses detached at that level and not yet written to the trie */
  private detached: Set<string>[] = [new Set()];
  private readonly forkTrie: ForkAccountTrie;

  constructor(trie: ForkAccountTrie, common: Common) {
    super({ trie: trie as unknown as MerklePatriciaTrie, common, caches: new Caches() });
    this.forkTrie = trie;
    trie.detachedPending = (address) => this.pendingDetach(bytesToHex(address));
  }

  private pendingDetach(key: string): boolean {
    for (let i = this.detached.length - 1; i >= 0; i--) if (this.detached[i].has(key)) return true;
    return false;
  }

  private detach(address: Address): void {
    this.detached[this.detached.length - 1].add(bytesToHex(address.bytes));
  }

  override async deleteAccount(address: Address): Promise<void> {
    this.detach(address);
    await super.deleteAccount(address);
  }

  override async clearStorage(address: Address): Promise<void> {
    this.detach(address);
    await super.clearStorage(address);
  }

  override async checkpoint(): Promise<void> {
    this.detached.push(new Set());
    await super.checkpoint();
  }

  override async commit(): Promise<void> {
    // Merged down before the library's commit, whose last level flushes the caches to the trie.
    const top = this.detached.pop()!;
    if (this.detached.length === 0) this.detached.push(top);
    else for (const key of top) this.detached[this.detached.length - 1].add(key);
    await super.commit();
  }

  override async revert(): Promise<void> {
    this.detached.pop();
    if (this.detached.length === 0) this.detached.push(new Set());
    await super.revert();
  }

  /** Once everything is in the trie, the trie's own marks say it all. */
  override async flush(): Promise<void> {
    await super.flush();
    if (this._checkpointCount === 0) this.detached = [new Set()];
  }

  override async setStateRoot(stateRoot: Uint8Array, clearCache?: boolean): Promise<void> {
    this.detached = [new Set()];
    await super.setStateRoot(stateRoot, clearCache);
  }

  protected override _getStorageTrie(addressOrHash: Address | { bytes: Uint8Array } | Uint8Array, rootAccount?: { storageRoot: Uint8Array }): MerklePatriciaTrie {
    if (addressOrHash instanceof Uint8Array) throw new Error('a fork reads storage tries by address, not by hashed address');
    const address = addressOrHash.bytes;
    const key = bytesToUnprefixedHex(keccak256(address));
    let trie = this._storageTries[key];
    if (trie === undefined) {
      const { forkTrie } = this;
      trie = new ForkStorageTrie(
        {
          db: forkTrie.store, useKeyHashing: true, useKeyHashingFunction: keccak256, valueEncoding: ValueEncoding.Bytes,
          root: rootAccount?.storageRoot ?? forkTrie.EMPTY_TRIE_ROOT,
        },
        address,
        forkTrie.base,
        () => forkTrie.isDetached(address),
      );
      this._storageTries[key] = trie;
    }
    return trie;
  }
}

/** A fork state manager at a resolved root (a fresh one: never shared between writers). */
export function forkStateManager(at: ForkStateAt, nodes: TrieNodeStore, common: Common): ForkStateManager {
  return new ForkStateManager(new ForkAccountTrie(nodes, at.local, at.base), common);
}
