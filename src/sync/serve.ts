// Answers a peer's data requests from the local chain: headers (origin by number or hash, skip,
// reverse), bodies and receipts by block hash. Unknown blocks are left out; the reply stops
// at the serving limits.

import { RLP } from '@ethereumjs/rlp';
import type { Blockchain } from '../blockchain/blockchain.js';
import { encodeReceiptForRoot } from '../chain/block.js';
import type { Block } from '../chain/types.js';
import { equalBytes } from '../encoding/bytes.js';
import { MAX_BODIES, MAX_RECEIPTS, headerItem, txItem, type HeaderRequest } from '../p2p/messages.js';
import type { Item } from './types.js';

/** A reply grows to about this many bytes at most (well below the message limit). */
const SOFT_REPLY_BYTES = 2 * 1024 * 1024;

export type ChainReader = Pick<Blockchain, 'getBlockByHash' | 'getBlockByNumber' | 'getHashByNumber' | 'getReceipts' | 'head'>;

export async function serveHeaders(chain: ChainReader, req: HeaderRequest): Promise<Item[]> {
  const out: Item[] = [];
  let block: Block | undefined;
  if (typeof req.origin === 'bigint') {
    block = await chain.getBlockByNumber(req.origin);
  } else {
    block = await chain.getBlockByHash(req.origin);
    // Walking on from a hash follows the canonical chain only if that block is on it.
    if (block && req.amount > 1) {
      const canonical = await chain.getHashByNumber(block.header.number);
      if (!canonical || !equalBytes(canonical, block.hash)) return [headerItem(block.header)];
    }
  }
  const step = BigInt(req.skip) + 1n;
  while (block && out.length < req.amount) {
    out.push(headerItem(block.header));
    const next = req.reverse ? block.header.number - step : block.header.number + step;
    if (next < 0n) break;
    block = await chain.getBlockByNumber(next);
  }
  return out;
}

export async function serveBodies(chain: ChainReader, hashes: Uint8Array[]): Promise<Item[]> {
  const out: Item[] = [];
  let bytes = 0;
  for (const hash of hashes.slice(0, MAX_BODIES)) {
    const block = await chain.getBlockByHash(hash);
    if (!block) continue;
    out.push([block.transactions.map((tx) => txItem(tx.raw)), []]);
    bytes += block.size;
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
