// What sync needs from a connected peer and from the chain's one import path. The p2p layer's
// McPeer satisfies SyncPeer; a test can drive sync with a fake one.

import type { Block, Header } from '../chain/types.js';

export type Item = Uint8Array | Item[];

export interface KnownSet {
  add(key: string): void;
  has(key: string): boolean;
}

export interface SyncPeer {
  readonly id: string;
  td: bigint;
  head: Uint8Array;
  readonly knownBlocks: KnownSet;
  readonly knownTxs: KnownSet;
  readonly closed: boolean;
  send(code: number, payload: Item): void;
  request(code: number, payload: Item): Promise<Item>;
  /** misbehaviour: disconnect and keep away */
  drop(reason: string): void;
  on(event: 'message', listener: (code: number, payload: Item) => void): unknown;
}

/** A block as received: header, exact transaction encodings, the block's RLP. */
export interface IncomingBlock {
  header: Header;
  hash: Uint8Array;
  rawTxs: Uint8Array[];
  encoded: Uint8Array;
}

/** extended: new head; known: already held; side: stored beside the head; reorged: its branch is now the head; orphan: parent unknown */
export type ImportOutcome = 'extended' | 'known' | 'side' | 'reorged' | 'orphan';

export interface BlockImport {
  /** Fully verifies and commits `block`; throws InvalidBlock for a bad one (nothing written). */
  importBlock(block: IncomingBlock): Promise<ImportOutcome>;
  /**
   * Imports a linked run of blocks, committing several in one write; a bad block throws after
   * the good ones before it are committed. Without it, blocks are imported one by one.
   */
  importBlocks?(blocks: IncomingBlock[]): Promise<ImportOutcome[]>;
  /** true when this import path can switch to a heavier side branch */
  readonly reorgs: boolean;
}

export type { Block };
