// Every LevelDB key of the node, in one place. Keys and values are bytes. A block is written
// with all of its keys in ONE batch (see chainStore.ts).

import { bigintToFixed, concatBytes } from '../encoding/bytes.js';

const enc = new TextEncoder();
const prefix = (p: string) => enc.encode(p);

/** Bump when the layout changes; an unknown version is refused, never misread. */
export const SCHEMA_VERSION = 1;

const P = {
  meta: prefix('m:'),
  canonical: prefix('c:'), // number(8) → block hash
  header: prefix('h:'), // hash → header RLP
  body: prefix('b:'), // hash → RLP list of raw transactions
  receipts: prefix('r:'), // hash → stored receipts RLP
  td: prefix('d:'), // hash → total difficulty (minimal bytes)
  txIndex: prefix('x:'), // tx hash → RLP [block hash, index]
  trieNode: prefix('n:'), // node hash (or code hash key) → trie node / code
  preimage: prefix('k:'), // keccak256(address or storage slot) → the address or slot (state dumps)
  poolJournal: prefix('p:'), // tx hash → raw tx (acknowledged, not yet mined)
  app: prefix('a:'), // app-chain data (scs/), sub-keys chosen there
  snapshot: prefix('s:'), // snapshot id(8) → RLP [head hash, clock, raw pool txs] (miner/devSnapshots.ts)
} as const;

const num = (n: bigint) => bigintToFixed(n, 8);

export const keys = {
  schemaVersion: concatBytes(P.meta, prefix('schema')),
  head: concatBytes(P.meta, prefix('head')),
  genesis: concatBytes(P.meta, prefix('genesis')),
  /** developer clock: offset and next block timestamp (miner/devClock.ts) */
  devClock: concatBytes(P.meta, prefix('devclock')),
  /** [1] when the genesis allows dev-control system transactions (config.devControls), else [0] */
  devControls: concatBytes(P.meta, prefix('devControls')),
  /** the chain's proof of work name, UTF-8 (blockchain/chainRules.ts) */
  chainPow: concatBytes(P.meta, prefix('chainPow')),
  /** [0] no classic transactions; [1, ...n] classic transactions from block n */
  classicTxBlock: concatBytes(P.meta, prefix('classicTxBlock')),
  canonical: (n: bigint) => concatBytes(P.canonical, num(n)),
  header: (hash: Uint8Array) => concatBytes(P.header, hash),
  body: (hash: Uint8Array) => concatBytes(P.body, hash),
  receipts: (hash: Uint8Array) => concatBytes(P.receipts, hash),
  td: (hash: Uint8Array) => concatBytes(P.td, hash),
  txIndex: (txHash: Uint8Array) => concatBytes(P.txIndex, txHash),
  trieNode: (key: Uint8Array) => concatBytes(P.trieNode, key),
  preimage: (hash: Uint8Array) => concatBytes(P.preimage, hash),
  poolJournal: (txHash: Uint8Array) => concatBytes(P.poolJournal, txHash),
  poolJournalRange: { gte: P.poolJournal, lt: concatBytes(P.poolJournal, new Uint8Array(33).fill(0xff)) },
  app: (sub: Uint8Array) => concatBytes(P.app, sub),
  snapshot: (id: bigint) => concatBytes(P.snapshot, num(id)),
  /** snapshots with ids from `first` on */
  snapshotRange: (first: bigint) => ({ gte: concatBytes(P.snapshot, num(first)), lt: concatBytes(P.snapshot, new Uint8Array(8).fill(0xff), Uint8Array.of(0)) }),
  snapshotNext: concatBytes(P.meta, prefix('snapnext')),
  /** impersonated addresses, 20 bytes each, concatenated (miner/devState.ts) */
  impersonated: concatBytes(P.meta, prefix('impersonated')),
  /** the block gas limit evm_setBlockGasLimit set (devControls/devState.ts) */
  devGasLimit: concatBytes(P.meta, prefix('devgaslimit')),
};
