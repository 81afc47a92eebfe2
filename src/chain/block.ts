// Header and block encoding: RLP, block hash, sealHash (the pow-hash), transaction and receipt
// roots, logs bloom.

import { RLP } from '@ethereumjs/rlp';
import { bigintToBytes, bytesToBigint, keccak256 } from '../encoding/bytes.js';
import type { Block, Header, Log, Receipt, SignedTx } from './types.js';

/** keccak256(RLP([])): the uncle hash of a block without uncles. */
export const EMPTY_UNCLES_HASH = keccak256(RLP.encode([]));
/** Root of an empty trie: keccak256(RLP('')). */
export const EMPTY_TRIE_ROOT = keccak256(RLP.encode(new Uint8Array()));

type RlpFields = Uint8Array[];

function headerFields(h: Header, withSeal: boolean): RlpFields {
  const fields = [
    h.parentHash,
    h.sha3Uncles,
    h.miner,
    h.stateRoot,
    h.transactionsRoot,
    h.receiptsRoot,
    h.logsBloom,
    bigintToBytes(h.difficulty),
    bigintToBytes(h.number),
    bigintToBytes(h.gasLimit),
    bigintToBytes(h.gasUsed),
    bigintToBytes(h.timestamp),
    h.extraData,
  ];
  if (withSeal) fields.push(h.mixHash, h.nonce);
  return fields;
}

/**
 * Encodings of headers already encoded: a block's header is encoded for its hash, its stored
 * record and its announcement. Headers are never changed after they are made (a sealed header
 * is a new object), so the first encoding stays right.
 */
const encodedHeaders = new WeakMap<Header, Uint8Array>();

export function encodeHeader(h: Header): Uint8Array {
  let encoded = encodedHeaders.get(h);
  if (!encoded) {
    encoded = RLP.encode(headerFields(h, true));
    encodedHeaders.set(h, encoded);
  }
  return encoded;
}
export const headerHash = (h: Header): Uint8Array => keccak256(encodeHeader(h));

/**
 * The 13 unsealed fields' RLP (the list's payload) of headers whose seal hash was taken: the
 * sealed header made from one (sealedHeader) encodes as that payload plus mixHash and nonce.
 */
const unsealedPayloads = new WeakMap<Header, Uint8Array>();

/** `header` with its seal; its encoding reuses the one the seal hash was taken from. */
export function sealedHeader(header: Header, nonce: Uint8Array, mixHash: Uint8Array): Header {
  const sealed = { ...header, nonce, mixHash };
  const payload = unsealedPayloads.get(header);
  if (payload) encodedHeaders.set(sealed, rlpListOfEncoded([payload, RLP.encode(mixHash), RLP.encode(nonce)]));
  return sealed;
}

/** The pow-hash: keccak256 of the header without mixHash and nonce (docs/mining-and-ethash.md#keccak-pow). */
export function sealHash(h: Header): Uint8Array {
  const list = RLP.encode(headerFields(h, false));
  unsealedPayloads.set(h, list.subarray(list.length - rlpPayloadLength(list)));
  return keccak256(list);
}

/** Length of an RLP list's payload (what follows its prefix). */
function rlpPayloadLength(list: Uint8Array): number {
  if (list[0] <= 0xf7) return list[0] - 0xc0;
  let length = 0;
  for (let i = 1; i <= list[0] - 0xf7; i++) length = length * 256 + list[i];
  return length;
}


export function decodeHeader(bytes: Uint8Array): Header {
  return headerFromFields(RLP.decode(bytes) as Uint8Array[]);
}

/** Positions of a header's integers (difficulty, number, gas limit, gas used, timestamp). */
const INTEGER_FIELDS = [7, 8, 9, 10, 11];

/**
 * The header of a decoded 15-item list, refusing what would re-encode differently: an integer
 * with a leading zero byte (the other fields are kept byte for byte), so the list's RLP is the
 * header's canonical encoding without encoding it again.
 */
export function headerFromCanonicalFields(f: Uint8Array[]): Header {
  const header = headerFromFields(f);
  for (const i of INTEGER_FIELDS) if (f[i][0] === 0) throw new Error('non-canonical encoding');
  return header;
}

function headerFromFields(f: Uint8Array[]): Header {
  if (!Array.isArray(f) || f.length !== 15) throw new Error('header: expected a 15-item list');
  return {
    parentHash: f[0],
    sha3Uncles: f[1],
    miner: f[2],
    stateRoot: f[3],
    transactionsRoot: f[4],
    receiptsRoot: f[5],
    logsBloom: f[6],
    difficulty: bytesToBigint(f[7]),
    number: bytesToBigint(f[8]),
    gasLimit: bytesToBigint(f[9]),
    gasUsed: bytesToBigint(f[10]),
    timestamp: bytesToBigint(f[11]),
    extraData: f[12],
    mixHash: f[13],
    nonce: f[14],
  };
}

/** Bytes of an RLP list prefix for a payload of `length` bytes. */
function listPrefixLength(length: number): number {
  if (length < 56) return 1;
  let bytes = 0;
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes++;
  return 1 + bytes;
}

/**
 * RLP of a list whose items are already RLP-encoded: its prefix, then the items byte for byte
 * (a transaction's raw bytes are its canonical encoding, so nothing is decoded again).
 */
export function rlpListOfEncoded(items: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const item of items) length += item.length;
  let prefix: Uint8Array;
  if (length < 56) prefix = Uint8Array.of(0xc0 + length);
  else {
    const len = bigintToBytes(BigInt(length));
    prefix = new Uint8Array(1 + len.length);
    prefix[0] = 0xf7 + len.length;
    prefix.set(len, 1);
  }
  const out = new Uint8Array(prefix.length + length);
  out.set(prefix, 0);
  let at = prefix.length;
  for (const item of items) {
    out.set(item, at);
    at += item.length;
  }
  return out;
}

const EMPTY_LIST = Uint8Array.of(0xc0);

/** Block RLP from its header's encoding and its transactions' raw bytes: [header, transactions, uncles]. */
export const encodeBlockFromRaw = (encodedHeader: Uint8Array, rawTxs: Uint8Array[]): Uint8Array =>
  rlpListOfEncoded([encodedHeader, rlpListOfEncoded(rawTxs), EMPTY_LIST]);

/** Block RLP as geth writes it: [header, transactions, uncles]. */
export function encodeBlock(header: Header, txs: SignedTx[]): Uint8Array {
  return encodeBlockFromRaw(encodeHeader(header), txs.map((tx) => tx.raw));
}

/** Splits an encoded block into header and raw transactions (each re-encoded exactly). */
export function decodeBlockParts(bytes: Uint8Array): { header: Header; rawTxs: Uint8Array[] } {
  const decoded = RLP.decode(bytes) as unknown;
  if (!Array.isArray(decoded) || decoded.length !== 3) throw new Error('block: expected [header, txs, uncles]');
  const [h, txs, uncles] = decoded as [Uint8Array[], Uint8Array[][], unknown[]];
  if (!Array.isArray(txs) || !Array.isArray(uncles) || uncles.length !== 0) throw new Error('block: bad body');
  return { header: headerFromFields(h), rawTxs: txs.map((tx) => RLP.encode(tx)) };
}

export function blockFromParts(header: Header, transactions: SignedTx[]): Block {
  const encodedHeader = encodeHeader(header);
  // The size of encodeBlockFromRaw's output, counted instead of built.
  let txBytes = 0;
  for (const tx of transactions) txBytes += tx.raw.length;
  const body = encodedHeader.length + listPrefixLength(txBytes) + txBytes + EMPTY_LIST.length;
  return { header, hash: keccak256(encodedHeader), transactions, size: listPrefixLength(body) + body };
}

/**
 * Root of a trie keyed by RLP(index), as geth builds transaction and receipt roots. Built directly
 * from the sorted keys (RLP index keys are prefix-free, so branches never hold values); this is
 * the same root a Merkle Patricia trie gives, without building one per block.
 */
export function orderedTrieRoot(values: Uint8Array[]): Uint8Array {
  if (values.length === 0) return EMPTY_TRIE_ROOT;
  const items = values
    .map((value, i) => ({ path: toNibbles(RLP.encode(i)), value }))
    .sort((a, b) => compareNibbles(a.path, b.path));
  return keccak256(RLP.encode(trieNode(items, 0)));
}

type Item = { path: number[]; value: Uint8Array };
type TrieNode = Uint8Array | TrieNode[];

function toNibbles(key: Uint8Array): number[] {
  const out: number[] = [];
  for (const b of key) out.push(b >> 4, b & 15);
  return out;
}

function compareNibbles(a: number[], b: number[]): number {
  for (let i = 0; i < a.length && i < b.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** Hex-prefix encoding of a nibble path (the leaf flag marks terminating paths). */
export function hexPrefix(nibbles: ArrayLike<number>, leaf: boolean): Uint8Array {
  const odd = nibbles.length % 2;
  const out = new Uint8Array(1 + (nibbles.length - odd) / 2);
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  let i = 0;
  if (odd) out[0] |= nibbles[i++];
  for (let j = 1; i < nibbles.length; i += 2, j++) out[j] = (nibbles[i] << 4) | nibbles[i + 1];
  return out;
}

/** A child reference: the node itself when its RLP is shorter than 32 bytes, else its hash. */
function reference(node: TrieNode): TrieNode {
  const encoded = RLP.encode(node);
  return encoded.length < 32 ? node : keccak256(encoded);
}

function trieNode(items: Item[], depth: number): TrieNode {
  if (items.length === 1) return [hexPrefix(items[0].path.slice(depth), true), items[0].value];
  const first = items[0].path;
  const last = items[items.length - 1].path;
  let shared = 0;
  while (depth + shared < first.length && first[depth + shared] === last[depth + shared]) shared++;
  if (shared > 0) return [hexPrefix(first.slice(depth, depth + shared), false), reference(trieNode(items, depth + shared))];
  const branch: TrieNode[] = [];
  let i = 0;
  for (let nibble = 0; nibble < 16; nibble++) {
    const group: Item[] = [];
    while (i < items.length && items[i].path[depth] === nibble) group.push(items[i++]);
    branch.push(group.length ? reference(trieNode(group, depth + 1)) : new Uint8Array());
  }
  branch.push(new Uint8Array());
  return branch;
}

// --- logs bloom -------------------------------------------------------------------------

export function addToBloom(bloom: Uint8Array, item: Uint8Array): void {
  const h = keccak256(item);
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i] << 8) | h[i + 1]) & 2047;
    bloom[255 - (bit >> 3)] |= 1 << (bit & 7);
  }
}

export function logsBloom(logs: Log[]): Uint8Array {
  const bloom = new Uint8Array(256);
  for (const log of logs) {
    addToBloom(bloom, log.address);
    for (const topic of log.topics) addToBloom(bloom, topic);
  }
  return bloom;
}

export function orBloom(target: Uint8Array, other: Uint8Array): void {
  for (let i = 0; i < 256; i++) target[i] |= other[i];
}

// --- receipts ---------------------------------------------------------------------------

const encodeLog = (log: Log): (Uint8Array | Uint8Array[])[] => [log.address, log.topics, log.data];

/** Consensus encoding (what the receipts root commits to): [status|root, cumulativeGas, bloom, logs]. */
/** What a new block's header takes from its builder; roots and bloom are computed here. */
export interface HeaderFields {
  parentHash: Uint8Array;
  miner: Uint8Array;
  stateRoot: Uint8Array;
  number: bigint;
  timestamp: bigint;
  difficulty: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  extraData: Uint8Array;
}

/** The header of a built block, unsealed (zero mixHash and nonce): main chain and app chains alike. */
export function assembleHeader(f: HeaderFields, transactions: readonly SignedTx[], receipts: readonly Receipt[]): Header {
  const bloom = new Uint8Array(256);
  for (const r of receipts) orBloom(bloom, r.logsBloom);
  return {
    parentHash: f.parentHash,
    sha3Uncles: EMPTY_UNCLES_HASH,
    miner: f.miner,
    stateRoot: f.stateRoot,
    transactionsRoot: orderedTrieRoot(transactions.map((tx) => tx.raw)),
    receiptsRoot: orderedTrieRoot(receipts.map(encodeReceiptForRoot)),
    logsBloom: bloom,
    difficulty: f.difficulty,
    number: f.number,
    gasLimit: f.gasLimit,
    gasUsed: f.gasUsed,
    timestamp: f.timestamp,
    extraData: f.extraData,
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
  };
}

export function encodeReceiptForRoot(r: Receipt): Uint8Array {
  const first = r.root ?? (r.status === 1 ? Uint8Array.of(1) : new Uint8Array());
  return RLP.encode([first, bigintToBytes(r.cumulativeGasUsed), r.logsBloom, r.logs.map(encodeLog)]);
}

/** Storage encoding: adds what the RPC shows and the root does not (gasUsed, contract address). */
export function encodeStoredReceipts(receipts: Receipt[]): Uint8Array {
  return RLP.encode(
    receipts.map((r) => [
      Uint8Array.of(r.status),
      r.root ?? new Uint8Array(),
      bigintToBytes(r.cumulativeGasUsed),
      bigintToBytes(r.gasUsed),
      r.contractAddress ?? new Uint8Array(),
      r.logs.map(encodeLog),
    ]),
  );
}

export function decodeStoredReceipts(bytes: Uint8Array): Receipt[] {
  const list = RLP.decode(bytes) as unknown as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, [Uint8Array, Uint8Array[], Uint8Array][]][];
  return list.map(([status, root, cumulative, gasUsed, contract, logs]) => {
    const decodedLogs = logs.map(([address, topics, data]) => ({ address, topics, data }));
    return {
      status: status[0] === 1 ? 1 : 0,
      root: root.length ? root : undefined,
      cumulativeGasUsed: bytesToBigint(cumulative),
      gasUsed: bytesToBigint(gasUsed),
      contractAddress: contract.length ? contract : null,
      logs: decodedLogs,
      logsBloom: logsBloom(decodedLogs),
    };
  });
}
