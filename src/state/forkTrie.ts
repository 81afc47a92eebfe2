// A fork's tries (docs/fork-mode.md#state): the local account trie holds only what local blocks
// wrote, and a read that finds nothing there falls through to the base state (the upstream at the
// fork block). So that a local change is never undone by the base showing through, the local trie
// records more than a plain state trie:
// - a deleted account (SELFDESTRUCT, EIP-161's removal of touched empty accounts) stays as an
//   entry marked deleted, which reads as absent;
// - an account whose storage was wiped (deleted, or created anew at its address) is marked
//   detached: its slots no longer fall through to the base;
// - a slot set to zero stays as an entry holding RLP(0) (0x80), which reads as zero.
// The marks are part of the trie, so a fork root commits to them and re-executing the same
// blocks over the same base state gives the same roots.

import { RLP } from '@ethereumjs/rlp';
import { MerklePatriciaTrie, type MPTOpts } from '@ethereumjs/mpt';
import { Account } from '@ethereumjs/util';
import { EMPTY_TRIE_ROOT } from '../chain/block.js';
import { bigintToBytes, keccak256 } from '../encoding/bytes.js';
import { AccountTrie } from './accountTrie.js';
import type { BaseState } from './baseState.js';
import type { TrieNodeStore } from './trieNodeStore.js';

const DETACHED = 1;
const DELETED = 2;
/** A deleted account: an empty account's four fields, then the mark (a reader of four fields sees an empty account). */
const DELETED_ENTRY = RLP.encode([new Uint8Array(), new Uint8Array(), EMPTY_TRIE_ROOT, keccak256(new Uint8Array()), Uint8Array.of(DELETED)]);
/** A slot set to zero locally: RLP of the empty value, which a state manager decodes as zero. */
export const ZERO_SLOT = Uint8Array.of(0x80);
/** Code keys of the state manager: 'c' ‖ code hash. */
const CODE_PREFIX = 0x63;

/** What the local trie holds for an address. */
export type LocalEntry =
  | { kind: 'absent' }
  | { kind: 'deleted' }
  /** `value`: the account's plain four-field RLP; `detached`: its storage no longer reads the base */
  | { kind: 'account'; value: Uint8Array; detached: boolean };

function decodeEntry(raw: Uint8Array): LocalEntry {
  const items = RLP.decode(raw) as Uint8Array[];
  if (items.length === 4) return { kind: 'account', value: raw, detached: false };
  const mark = items[4][0];
  if (mark === DELETED) return { kind: 'deleted' };
  return { kind: 'account', value: RLP.encode(items.slice(0, 4)), detached: true };
}

/** An upstream account as a state manager reads it: no local slots yet, so the empty storage root. */
function encodeBaseAccount(nonce: bigint, balance: bigint, codeHash: Uint8Array): Uint8Array {
  return new Account(nonce, balance, EMPTY_TRIE_ROOT, codeHash).serialize();
}

/** The key of the entry naming the fork block (not an address: 16 bytes, hashed like any key). */
const FORK_BASE_KEY = new TextEncoder().encode('mcnode:forkbase');

/**
 * The root a fork starts from: a trie whose one entry names the fork block, so every root of the
 * fork commits to the block it is based on. Its node goes to `nodes` (the caller writes them).
 */
export async function forkBaseRoot(nodes: TrieNodeStore, blockHash: Uint8Array): Promise<Uint8Array> {
  const trie = new AccountTrie(nodes);
  await trie.put(FORK_BASE_KEY, RLP.encode([blockHash]));
  return trie.root();
}

export class ForkAccountTrie extends AccountTrie {
  /** addresses the state manager detached in writes not yet put into this trie */
  detachedPending: (address: Uint8Array) => boolean = () => false;

  constructor(
    readonly store: TrieNodeStore,
    root: Uint8Array,
    readonly base: BaseState,
  ) {
    super(store, root);
  }

  /** The local entry of `address`, without looking at the base. */
  async local(address: Uint8Array): Promise<LocalEntry> {
    const raw = await super.get(address);
    return raw === null ? { kind: 'absent' } : decodeEntry(raw);
  }

  /** The account's RLP: the local entry, else the base's (null: no such account). */
  override async get(address: Uint8Array): Promise<Uint8Array | null> {
    const entry = await this.local(address);
    if (entry.kind === 'account') return entry.value;
    if (entry.kind === 'deleted') return null;
    const account = await this.base.account(address);
    return account === undefined ? null : encodeBaseAccount(account.nonce, account.balance, account.codeHash);
  }

  /** True when the account's storage no longer falls through to the base. */
  async isDetached(address: Uint8Array): Promise<boolean> {
    if (this.detachedPending(address)) return true;
    const entry = await this.local(address);
    return entry.kind === 'deleted' || (entry.kind === 'account' && entry.detached);
  }

  override async put(address: Uint8Array, value: Uint8Array): Promise<void> {
    if (value.length === 0) return this.del(address);
    const marked = await this.isDetached(address);
    return super.put(address, marked ? RLP.encode([...(RLP.decode(value) as Uint8Array[]), Uint8Array.of(DETACHED)]) : value);
  }

  /** A deletion stays in the trie: the base's account must not show through again. */
  override async del(address: Uint8Array): Promise<void> {
    return super.put(address, DELETED_ENTRY);
  }

  /** Code by key: the local store, then (for code of base accounts) the base. */
  override database(): ReturnType<AccountTrie['database']> {
    const local = super.database();
    const base = this.base;
    return {
      async get(key) {
        const found = await local.get(key);
        if (found !== undefined || key.length !== 33 || key[0] !== CODE_PREFIX) return found;
        return base.code(key.subarray(1));
      },
      put: (key, value) => local.put(key, value),
    };
  }
}

/** A storage trie of a fork: local slots first, then (unless its account is detached) the base's. */
export class ForkStorageTrie extends MerklePatriciaTrie {
  constructor(
    opts: MPTOpts,
    private readonly address: Uint8Array,
    private readonly base: BaseState,
    private readonly detached: () => Promise<boolean>,
  ) {
    super(opts);
  }

  override async get(key: Uint8Array, throwIfMissing = false): Promise<Uint8Array | null> {
    const local = await super.get(key, throwIfMissing);
    if (local !== null || (await this.detached())) return local;
    const word = await this.base.storage(this.address, key);
    return word === 0n ? null : RLP.encode(bigintToBytes(word));
  }

  /** A slot set to zero stays in the trie: the base's value must not show through again. */
  override async del(key: Uint8Array): Promise<void> {
    return super.put(key, ZERO_SLOT);
  }
}
