// Log matching and range queries (docs/methods.md#filters-and-logs): the criteria rules, the header
// bloom pre-check, block ranges with tags resolved against the head, and the query limits.

import type { Block, Log, Receipt, SignedTx } from '../chain/types.js';
import { addToBloom } from '../chain/block.js';
import { equalBytes } from '../encoding/bytes.js';
import type { BlockTag } from '../encoding/hex.js';
import { invalidRange, limitExceeded, notFound } from '../errors.js';
import type { BloomSource } from './blockBlooms.js';

/** What a log must match: any of `addresses` (empty: any), and per topic position any of its options. */
export interface LogCriteria {
  addresses: Uint8Array[];
  /** null or [] at a position matches anything there */
  topics: (Uint8Array[] | null)[];
}

/** Where a mined log sits (field names follow rpc/format.ts LogPosition). */
export interface LogPosition {
  blockHash: Uint8Array;
  blockNumber: bigint;
  /** transaction index in the block */
  index: number;
  txHash: Uint8Array;
  /** log index in the block */
  logIndex: number;
}

/** A matched log; `at` is absent for logs of the pending block. */
export interface LogEntry {
  log: Log;
  at?: LogPosition;
  /** the block left the canonical chain (rewind, reorganisation) */
  removed?: boolean;
}

export interface LogLimits {
  maxBlockRange: number;
  maxLogs: number;
  maxTopics: number;
}

/** The limits of docs/methods.md#filters-and-logs: 10,000 blocks per query, 10,000 logs, 4 topics. */
export const DEFAULT_LOG_LIMITS: LogLimits = { maxBlockRange: 10_000, maxLogs: 10_000, maxTopics: 4 };

/** fromBlock / toBlock as given, or a single block by hash (exclusive with the range). */
export interface LogQuery {
  fromBlock: BlockTag;
  toBlock: BlockTag;
  blockHash?: Uint8Array;
  criteria: LogCriteria;
}

/** The part of Blockchain a log query reads. */
export interface LogChain {
  readonly head: Block;
  getBlockByHash(hash: Uint8Array): Promise<Block | undefined>;
  getReceipts(blockHash: Uint8Array): Promise<Receipt[] | undefined>;
}

/** The pending block's transactions and receipts (PendingBlockCache satisfies this). */
export interface PendingSource {
  get(): Promise<{ transactions: SignedTx[]; receipts: Receipt[] }>;
}

/** Everything a query reads: the chain, its header blooms by range, the pending block. */
export interface LogSources {
  chain: LogChain;
  blooms: BloomSource;
  pending: PendingSource;
}

export function checkCriteria(criteria: LogCriteria, limits: LogLimits): void {
  if (criteria.topics.length > limits.maxTopics) throw limitExceeded(`topics (max ${limits.maxTopics} positions)`);
}

const anyOf = (options: Uint8Array[], value: Uint8Array): boolean => options.some((o) => equalBytes(o, value));

/** geth's rule: a log needs at least as many topics as the criteria have positions. */
export function matchesLog(log: Log, criteria: LogCriteria): boolean {
  if (criteria.addresses.length > 0 && !anyOf(criteria.addresses, log.address)) return false;
  if (criteria.topics.length > log.topics.length) return false;
  for (let i = 0; i < criteria.topics.length; i++) {
    const options = criteria.topics[i];
    if (options && options.length > 0 && !anyOf(options, log.topics[i])) return false;
  }
  return true;
}

/** An item's bloom bits as [byte index, mask] pairs (computed once per query, not per block). */
type BloomBits = [number, number][];

function bloomBits(item: Uint8Array): BloomBits {
  const single = new Uint8Array(256);
  addToBloom(single, item);
  const bits: BloomBits = [];
  single.forEach((mask, i) => mask && bits.push([i, mask]));
  return bits;
}

/** Per constrained position (address, then each topic), the alternatives' bloom bits. */
export type BloomMatcher = BloomBits[][];

export function bloomMatcher(criteria: LogCriteria): BloomMatcher {
  const groups = [criteria.addresses, ...criteria.topics.map((options) => options ?? [])];
  return groups.filter((g) => g.length > 0).map((g) => g.map(bloomBits));
}

const hasBits = (bloom: Uint8Array, bits: BloomBits) => bits.every(([i, mask]) => (bloom[i] & mask) === mask);

/** False when the block's bloom proves no log can match, so its receipts need not be read. */
export function bloomMayMatch(bloom: Uint8Array, criteria: LogCriteria | BloomMatcher): boolean {
  const matcher = Array.isArray(criteria) ? criteria : bloomMatcher(criteria);
  return matcher.every((alternatives) => alternatives.some((bits) => hasBits(bloom, bits)));
}

/** The matching logs of one mined block, with block-wide log indexes. */
export function blockLogs(block: Block, receipts: Receipt[], criteria: LogCriteria): LogEntry[] {
  const found: LogEntry[] = [];
  let logIndex = 0;
  receipts.forEach((receipt, index) => {
    for (const log of receipt.logs) {
      if (matchesLog(log, criteria)) {
        const at = { blockHash: block.hash, blockNumber: block.header.number, index, txHash: block.transactions[index].hash, logIndex };
        found.push({ log, at });
      }
      logIndex++;
    }
  });
  return found;
}

/** The matching logs of the pending block, one group per transaction in block order. */
export function pendingLogs(pending: { transactions: SignedTx[]; receipts: Receipt[] }, criteria: LogCriteria): LogEntry[][] {
  return pending.receipts.map((receipt) => receipt.logs.filter((log) => matchesLog(log, criteria)).map((log) => ({ log })));
}

/** A resolved query range: mined blocks [from, to] (empty when from > to) and whether pending logs are wanted. */
export interface ResolvedRange {
  from: bigint;
  to: bigint;
  pending: boolean;
}


/**
 * Resolves tags against `head`: latest → head, earliest → 0, and `pending` as the block after the
 * head. `toBlock` is clamped to the head after the order check; the limit counts the clamped range.
 */
export function resolveRange(fromBlock: BlockTag, toBlock: BlockTag, head: bigint, limits: LogLimits): ResolvedRange {
  const number = (tag: BlockTag): bigint => (tag === 'latest' ? head : tag === 'earliest' ? 0n : tag === 'pending' ? head + 1n : tag);
  const from = number(fromBlock);
  const to = number(toBlock);
  if (from > to) {
    // A filter may look ahead: an explicit start past the head with an open end finds nothing yet.
    if (typeof fromBlock === 'bigint' && (toBlock === 'latest' || toBlock === 'pending')) return { from, to: head, pending: false };
    throw invalidRange();
  }
  const pending = toBlock === 'pending';
  const minedTo = to > head ? head : to;
  if (minedTo >= from && minedTo - from + 1n > BigInt(limits.maxBlockRange)) {
    throw limitExceeded(`block range (max ${limits.maxBlockRange} blocks)`);
  }
  return { from, to: minedTo, pending };
}

function addLogs(out: LogEntry[], entries: LogEntry[], limits: LogLimits): void {
  if (out.length + entries.length > limits.maxLogs) throw limitExceeded(`logs (max ${limits.maxLogs} per answer)`);
  for (const e of entries) out.push(e);
}

async function minedBlockLogs(chain: LogChain, hash: Uint8Array, criteria: LogCriteria): Promise<LogEntry[]> {
  const [block, receipts] = await Promise.all([chain.getBlockByHash(hash), chain.getReceipts(hash)]);
  return block && receipts ? blockLogs(block, receipts, criteria) : [];
}

/** Runs a query against the chain (and the pending block when the range reaches it). */
export async function queryLogs(sources: LogSources, query: LogQuery, limits: LogLimits): Promise<LogEntry[]> {
  checkCriteria(query.criteria, limits);
  const { chain, blooms, pending } = sources;
  const out: LogEntry[] = [];
  if (query.blockHash) {
    const block = await chain.getBlockByHash(query.blockHash);
    if (!block) throw notFound('unknown block');
    if (bloomMayMatch(block.header.logsBloom, query.criteria)) addLogs(out, await minedBlockLogs(chain, block.hash, query.criteria), limits);
    return out;
  }
  const range = resolveRange(query.fromBlock, query.toBlock, chain.head.header.number, limits);
  const matcher = bloomMatcher(query.criteria);
  if (range.from <= range.to) {
    for await (const { hash, logsBloom } of blooms(range.from, range.to)) {
      if (bloomMayMatch(logsBloom, matcher)) addLogs(out, await minedBlockLogs(chain, hash, query.criteria), limits);
    }
  }
  if (range.pending) addLogs(out, pendingLogs(await pending.get(), query.criteria).flat(), limits);
  return out;
}
