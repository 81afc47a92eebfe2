// Answers a peer's data requests from the local chain: headers (origin by number or hash, skip,
// reverse), bodies and receipts by block hash. Unknown blocks are left out; the reply stops
// at the serving limits.

import { RLP } from '@ethereumjs/rlp';
import type { Blockchain } from '../blockchain/blockchain.js';
import { encodeReceiptForRoot } from '../chain/block.js';
import { equalBytes } from '../encoding/bytes.js';
import { MAX_BODIES, MAX_RECEIPTS, headerItem, txItem, type HeaderRequest } from '../p2p/messages.js';
import type { Item } from './types.js';

/** A reply grows to about this many bytes at most (well below the message limit). */
const SOFT_REPLY_BYTES = 2 * 1024 * 1024;

export type ChainReader = Pick<
  Blockchain,
  'getBlockByHash' | 'getBlockByNumber' | 'getHashByNumber' | 'getReceipts' | 'head' | 'getCanonicalHeaderBytes' | 'getRawBodies'
>;

/** A stored header encoding as the wire item (the stored bytes are the canonical RLP). */
const storedHeaderItem = (bytes: Uint8Array): Item => RLP.decode(bytes) as Item;

export async function serveHeaders(chain: ChainReader, req: HeaderRequest): Promise<Item[]> {
  let first: bigint;
  if (typeof req.origin === 'bigint') {
    first = req.origin;
  } else {
    const block = await chain.getBlockByHash(req.origin);
    if (!block || req.amount === 0) return [];
    if (req.amount === 1) return [headerItem(block.header)];
    // Walking on from a hash follows the canonical chain only if that block is on it.
    const canonical = await chain.getHashByNumber(block.header.number);
    if (!canonical || !equalBytes(canonical, block.hash)) return [headerItem(block.header)];
    first = block.header.number;
  }
  // The heights asked for, read in one go: the stored encodings are sent as they are.
  const step = BigInt(req.skip) + 1n;
  const numbers: bigint[] = [];
  for (let n = first; numbers.length < req.amount && n >= 0n; n = req.reverse ? n - step : n + step) numbers.push(n);
  return (await chain.getCanonicalHeaderBytes(numbers)).map(storedHeaderItem);
}

export async function serveBodies(chain: ChainReader, hashes: Uint8Array[]): Promise<Item[]> {
  const out: Item[] = [];
  let bytes = 0;
  for (const rawTxs of await chain.getRawBodies(hashes.slice(0, MAX_BODIES))) {
    if (!rawTxs) continue;
    out.push([rawTxs.map(txItem), []]);
    bytes += rawTxs.reduce((sum, raw) => sum + raw.length, 0);
    if (bytes > SOFT_REPLY_BYTES) break;
  }
  return out;
}

export async function serveReceipts(chain: ChainReader, hashes: Uint8Array[]): Promise<Item[]> {
  const out: Item[] = [];
  for (const hash of hashes.slice(0, MAX_RECEIPTS)) {
    const receipts = await chain.getReceipts(hash);
    if (!receipts) continue;
    out.push(receipts.map((r) => RLP.decode(encodeReceiptForRoot(r)) as Item));
  }
  return out;
}
