// What a fork's state reads under its local trie (docs/fork-mode.md#state): the upstream's state at
// one block, fetched on first touch and kept by src/fork/. The state layer sees only these
// interfaces: execution reads a fork through the same state managers as any other chain.

/** An upstream account at the base block (its storage is read slot by slot). */
export interface BaseAccountFields {
  nonce: bigint;
  balance: bigint;
  /** keccak256 of its code (the empty code's hash for an account without code) */
  codeHash: Uint8Array;
}

/** The upstream's state at one block. Every read may wait for the upstream, and may throw. */
export interface BaseState {
  /** undefined for an account the upstream does not have */
  account(address: Uint8Array): Promise<BaseAccountFields | undefined>;
  /** the word at `slot` (32 bytes), zero when unset */
  storage(address: Uint8Array, slot: Uint8Array): Promise<bigint>;
  /** code by its hash, once the account holding it was read; undefined when unknown */
  code(codeHash: Uint8Array): Promise<Uint8Array | undefined>;
}

/** A state root of a fork, resolved: the local trie to read first and the base state under it. */
export interface ForkStateAt {
  /** root of the local trie (the accounts and slots local blocks wrote) */
  local: Uint8Array;
  base: BaseState;
}

/** How a fork's state roots map to local tries and base states (src/fork/forkRuntime.ts). */
export interface ForkBases {
  /**
   * Local roots read through the fork block's state; the root of an upstream block at or below the
   * fork block (the anchor's header carries the upstream's root) reads that block's state under
   * the fork's starting trie.
   */
  resolve(root: Uint8Array): ForkStateAt;
}
