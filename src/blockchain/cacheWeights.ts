// What a cached block or receipt list holds in memory, roughly, so the block and receipt caches
// can be bounded by bytes: a count of blocks let a cache of full blocks reach hundreds of MB.
// The per-object costs are from heap snapshots: a small Uint8Array is ~190 bytes of objects
// beyond its data, a header ~11 of them plus bigints, a decoded transaction ~8 plus its raw bytes.

import type { Block, Receipt } from '../chain/types.js';

/**
 * Bytes of block objects the chain keeps cached (about 450 one-transaction blocks: the head's
 * neighbourhood, which reorganisations, filters and `latest` reads use; random old blocks miss
 * at any size). 4 MiB each for blocks and receipts cost ~6 MiB more resident memory under the
 * soak's traffic with no throughput to show for it (bench/RESULTS.md#memory).
 */
export const BLOCK_CACHE_BYTES = 2 * 2 ** 20;
/** Bytes of receipt lists the chain keeps cached. */
export const RECEIPT_CACHE_BYTES = 2 * 2 ** 20;

const HEADER_BYTES = 2500;
const TX_BYTES = 1500;
const RECEIPT_BYTES = 700;
const LOG_BYTES = 400;
const TOPIC_BYTES = 220;

export function blockWeight(_key: string, block: Block): number {
  let bytes = HEADER_BYTES + block.header.extraData.length;
  for (const tx of block.transactions) bytes += TX_BYTES + 2 * tx.raw.length;
  return bytes;
}

export function receiptsWeight(_key: string, receipts: Receipt[]): number {
  let bytes = 100;
  for (const r of receipts) {
    bytes += RECEIPT_BYTES;
    for (const log of r.logs) bytes += LOG_BYTES + TOPIC_BYTES * log.topics.length + log.data.length;
  }
  return bytes;
}
