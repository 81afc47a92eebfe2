// mc/63 message bodies: from the RLP lists the protocol hands over to typed values and back.
// Anything malformed throws MalformedMessage (the caller drops the peer). Integers must be
// canonical (no leading zero bytes), as a block hash would otherwise depend on the encoding.

import { RLP } from '@ethereumjs/rlp';
import type { Header } from '../chain/types.js';
import { encodeHeader, headerFromCanonicalFields } from '../chain/block.js';
import { bigintToBytes, keccak256 } from '../encoding/bytes.js';

export class MalformedMessage extends Error {
  override name = 'MalformedMessage';
}

type Item = Uint8Array | Item[];

/** Serving limits: a request for more gets at most this many. */
export const MAX_HEADERS = 192;
export const MAX_BODIES = 128;
export const MAX_RECEIPTS = 128;
/** More hashes than this in one message is malformed. */
const MAX_LIST = 4096;

const bad = (what: string): never => {
  throw new MalformedMessage(what);
};

function bytes(v: Item | undefined, what: string, length?: number): Uint8Array {
  if (!(v instanceof Uint8Array)) return bad(`${what}: expected bytes`);
  if (length !== undefined && v.length !== length) bad(`${what}: expected ${length} bytes`);
  return v;
}

function list(v: Item | undefined, what: string, max = MAX_LIST): Item[] {
  if (!Array.isArray(v)) return bad(`${what}: expected a list`);
  if (v.length > max) bad(`${what}: more than ${max} items`);
  return v;
}

export function uint(v: Item | undefined, what: string): bigint {
  const b = bytes(v, what);
  if (b.length > 32) bad(`${what}: integer too large`);
  if (b.length > 0 && b[0] === 0) bad(`${what}: non-canonical integer`);
  return b.length === 0 ? 0n : BigInt('0x' + Buffer.from(b).toString('hex'));
}

const hashes = (v: Item | undefined, what: string): Uint8Array[] => list(v, what).map((h) => bytes(h, what, 32));

export interface StatusInfo {
  networkId: bigint;
  td: bigint;
  head: Uint8Array;
  genesis: Uint8Array;
}

export function decodeStatus(s: Item[]): StatusInfo {
  return { networkId: uint(s[1], 'status network'), td: uint(s[2], 'status td'), head: bytes(s[3], 'status head', 32), genesis: bytes(s[4], 'status genesis', 32) };
}

export interface HeaderRequest {
  origin: bigint | Uint8Array;
  amount: number;
  skip: number;
  reverse: boolean;
}

export function encodeGetHeaders(r: HeaderRequest): Item[] {
  const origin = typeof r.origin === 'bigint' ? bigintToBytes(r.origin) : r.origin;
  return [origin, bigintToBytes(BigInt(r.amount)), bigintToBytes(BigInt(r.skip)), bigintToBytes(r.reverse ? 1n : 0n)];
}

export function decodeGetHeaders(p: Item): HeaderRequest {
  const [o, a, s, r] = list(p, 'GetBlockHeaders', 4);
  const originBytes = bytes(o, 'origin');
  const origin = originBytes.length === 32 ? originBytes : uint(originBytes, 'origin');
  const amount = uint(a, 'amount');
  const skip = uint(s, 'skip');
  const reverse = uint(r, 'reverse');
  if (reverse > 1n) bad('reverse: expected 0 or 1');
  if (skip > 1n << 32n) bad('skip too large');
  return { origin, amount: Number(amount > BigInt(MAX_HEADERS) ? BigInt(MAX_HEADERS) : amount), skip: Number(skip), reverse: reverse === 1n };
}

export interface WireHeader {
  header: Header;
  hash: Uint8Array;
  /** the header's exact (canonical) encoding, as hashed */
  encoded: Uint8Array;
}

/** A header as a peer sent it; its hash is that of its exact (canonical) encoding. */
export function decodeWireHeader(v: Item): WireHeader {
  const fields = list(v, 'header', 15);
  fields.forEach((f) => bytes(f, 'header field'));
  let header: Header;
  try {
    header = headerFromCanonicalFields(fields as Uint8Array[]);
  } catch (err) {
    return bad(`header: ${(err as Error).message}`);
  }
  const encoded = RLP.encode(fields as Uint8Array[]);
  return { header, hash: keccak256(encoded), encoded };
}

export const headerItem = (h: Header): Item => RLP.decode(encodeHeader(h)) as Item;

export function decodeHeaders(p: Item): WireHeader[] {
  return list(p, 'BlockHeaders', MAX_HEADERS).map(decodeWireHeader);
}

/** A body: the transactions' exact encodings (uncles must be empty on this chain). */
export function decodeBodies(p: Item): Uint8Array[][] {
  return list(p, 'BlockBodies', MAX_BODIES).map((b) => {
    const [txs, uncles] = list(b, 'body', 2);
    if (list(uncles, 'uncles').length !== 0) bad('body: uncles are not allowed');
    return list(txs, 'body transactions').map((tx) => RLP.encode(list(tx, 'transaction') as Uint8Array[]));
  });
}

export const txItem = (raw: Uint8Array): Item => RLP.decode(raw) as Item;

export function decodeTransactions(p: Item): Uint8Array[] {
  return list(p, 'Transactions').map((tx) => RLP.encode(list(tx, 'transaction') as Uint8Array[]));
}

export interface WireBlock {
  header: WireHeader;
  rawTxs: Uint8Array[];
  /** the block's RLP, re-encoded from what was received */
  encoded: Uint8Array;
}

export function decodeNewBlock(p: Item): { block: WireBlock; td: bigint } {
  const [b, td] = list(p, 'NewBlock', 2);
  const [h, txs, uncles] = list(b, 'block', 3);
  if (list(uncles, 'uncles').length !== 0) bad('block: uncles are not allowed');
  const header = decodeWireHeader(h);
  const txItems = list(txs, 'block transactions');
  const rawTxs = txItems.map((tx) => RLP.encode(list(tx, 'transaction') as Uint8Array[]));
  return { block: { header, rawTxs, encoded: RLP.encode([h, txItems, []] as Uint8Array[][]) }, td: uint(td, 'td') };
}

export function decodeNewBlockHashes(p: Item): { hash: Uint8Array; number: bigint }[] {
  return list(p, 'NewBlockHashes').map((e) => {
    const [h, n] = list(e, 'announcement', 2);
    return { hash: bytes(h, 'announced hash', 32), number: uint(n, 'announced number') };
  });
}

export const decodeHashList = (p: Item, what: string): Uint8Array[] => hashes(p, what);

/** Receipts as lists of RLP receipt items; only their count per block is checked here. */
export function decodeReceiptLists(p: Item): Item[][] {
  return list(p, 'Receipts', MAX_RECEIPTS).map((r) => list(r, 'receipts'));
}
