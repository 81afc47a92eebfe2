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
  touched: prefix('t:'), // block hash → RLP list per transaction of the addresses it touched (any branch)
  addressTx: prefix('o:'), // address(20) + number(8) + tx index(4) → empty: the canonical address index (Otterscan)
} as const;

const num = (n: bigint) => bigintToFixed(n, 8);
const u32 = (n: number) => bigintToFixed(BigInt(n), 4);

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
  /** the addresses each transaction of a block touched (blockchain/addressIndex.ts) */
  touched: (blockHash: Uint8Array) => concatBytes(P.touched, blockHash),
  /** one canonical transaction touching `address` */
  addressTx: (address: Uint8Array, number: bigint, index: number) => concatBytes(P.addressTx, address, num(number), u32(index)),
  /** the index entries of `address` in blocks from..to (inclusive) */
  addressTxRange: (address: Uint8Array, from: bigint, to: bigint) => ({
    gte: concatBytes(P.addressTx, address, num(from)),
    lt: concatBytes(P.addressTx, address, num(to), new Uint8Array(4).fill(0xff), Uint8Array.of(0)),
  }),
  /** the address index's state: RLP [] complete, or [next, end] while rebuilt for an older datadir */
  addressIndexState: concatBytes(P.meta, prefix('addrindex')),
  /** impersonated addresses, 20 bytes each, concatenated (miner/devState.ts) */
  impersonated: concatBytes(P.meta, prefix('impersonated')),
  /**
   * hash of the lowest stored block when it is not a genesis (a fork's anchor, docs/fork-mode.md);
   * absent: the chain starts at block 0
   */
  chainBase: concatBytes(P.meta, prefix('chainBase')),
  /** a fork datadir's record: its upstream, block and chain (fork/forkRecord.ts) */
  fork: concatBytes(P.meta, prefix('fork')),
  /** the block gas limit evm_setBlockGasLimit set (devControls/devState.ts) */
  devGasLimit: concatBytes(P.meta, prefix('devgaslimit')),
};

// The fork cache (docs/fork-mode.md#the-cache): a database of its own, `<datadir>/forkcache` or
// `--fork.cache`, which forks of the same upstream may share. What it holds never changes once
// fetched: state is keyed by the block it was read at, blocks and code by their hashes.
const F = {
  account: prefix('A'), // block hash ‖ address → RLP [nonce, balance, code hash], or RLP [] for no account
  slot: prefix('S'), // block hash ‖ address ‖ slot → the word, minimal bytes
  code: prefix('K'), // code hash → code
  block: prefix('B'), // block hash → RLP [header, hash, total difficulty, size, [transaction records]]
  canonical: prefix('N'), // anchor hash ‖ number(8) → block hash, as seen from a fork at that anchor
  receipts: prefix('R'), // block hash → stored receipts RLP (as `r:` above)
  txIndex: prefix('T'), // tx hash → RLP [block hash, index]
  logs: prefix('L'), // anchor hash ‖ keccak(query) → RLP of the matching logs
  upstream: prefix('U'), // keccak(url) → RLP [dialect, chain id, network id]
  numbered: prefix('H'), // keccak(url) ‖ number(8) → block hash (a fork block asked for by number)
} as const;

const after = (p: Uint8Array) => concatBytes(p, new Uint8Array(65).fill(0xff));

export const forkCacheKeys = {
  account: (block: Uint8Array, address: Uint8Array) => concatBytes(F.account, block, address),
  /** every account read at `block` */
  accountRange: (block: Uint8Array) => ({ gte: concatBytes(F.account, block), lt: after(concatBytes(F.account, block)) }),
  slot: (block: Uint8Array, address: Uint8Array, slot: Uint8Array) => concatBytes(F.slot, block, address, slot),
  /** every slot read at `block` */
  slotRange: (block: Uint8Array) => ({ gte: concatBytes(F.slot, block), lt: after(concatBytes(F.slot, block)) }),
  code: (codeHash: Uint8Array) => concatBytes(F.code, codeHash),
  block: (hash: Uint8Array) => concatBytes(F.block, hash),
  canonical: (anchor: Uint8Array, n: bigint) => concatBytes(F.canonical, anchor, num(n)),
  canonicalRange: (anchor: Uint8Array, from: bigint, to: bigint) => ({ gte: concatBytes(F.canonical, anchor, num(from)), lt: concatBytes(F.canonical, anchor, num(to)) }),
  receipts: (hash: Uint8Array) => concatBytes(F.receipts, hash),
  txIndex: (txHash: Uint8Array) => concatBytes(F.txIndex, txHash),
  logs: (anchor: Uint8Array, queryHash: Uint8Array) => concatBytes(F.logs, anchor, queryHash),
  upstream: (urlHash: Uint8Array) => concatBytes(F.upstream, urlHash),
  numbered: (urlHash: Uint8Array, n: bigint) => concatBytes(F.numbered, urlHash, num(n)),
};
