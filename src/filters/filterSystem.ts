// Installed filters (docs/methods.md#filters-and-logs): log, block and pending-transaction filters fed
// by the chain's `newHead` and the pool's `pendingTx` events, polled for changes, and removed
// after `timeoutSeconds` without a changes poll. Filters live in memory only: a restart drops them.
// Blocks that leave the canonical chain (the chain's `rewound`) give log filters their logs
// again with `removed: true`.

import { randomBytes } from 'node:crypto';
import type { Block, Receipt, SignedTx } from '../chain/types.js';
import { bytesToBigint } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import { invalidRange, limitExceeded, notFound, unsupported } from '../errors.js';
import {
  DEFAULT_LOG_LIMITS, blockLogs, bloomMatcher, bloomMayMatch, checkCriteria, pendingLogs, queryLogs,
  type BloomMatcher, type LogChain, type LogEntry, type LogLimits, type LogQuery, type LogSources, type PendingSource,
} from './logQuery.js';
import { blockBlooms, type BloomSource } from './blockBlooms.js';

/** What `changes` returns: log entries for log filters, hashes for the other kinds. */
export type FilterChanges = { kind: 'logs'; logs: LogEntry[] } | { kind: 'hashes'; hashes: Uint8Array[] };

interface HeadSource extends LogChain {
  getBlockByNumber(number: bigint): Promise<Block | undefined>;
  on(event: 'newHead', listener: (e: { block: Block; receipts: Receipt[] }) => void): unknown;
  off(event: 'newHead', listener: (e: { block: Block; receipts: Receipt[] }) => void): unknown;
  on(event: 'rewound', listener: (e: { removed: { block: Block; receipts: Receipt[] }[] }) => void): unknown;
  off(event: 'rewound', listener: (e: { removed: { block: Block; receipts: Receipt[] }[] }) => void): unknown;
}

interface PendingTxSource {
  on(event: 'pendingTx', listener: (tx: SignedTx) => void): unknown;
  off(event: 'pendingTx', listener: (tx: SignedTx) => void): unknown;
}

/** The chain's `'rewound'` event: blocks taken off the canonical chain, newest first. */
interface RewindSource {
  on(event: 'rewound', listener: (e: { removed: { block: Block; receipts: Receipt[] }[] }) => void): unknown;
  off(event: 'rewound', listener: (e: { removed: { block: Block; receipts: Receipt[] }[] }) => void): unknown;
}

export interface FilterDeps {
  chain: HeadSource;
  /** emits 'rewound' (the chain, once it can rewind); log filters then report those logs as removed */
  rewinds?: RewindSource;
  pool: PendingTxSource;
  pending: PendingSource;
  /** header blooms by range (storedBlooms(db) on a node); default: whole blocks from the chain */
  blooms?: BloomSource;
}

export interface FilterOptions {
  /** seconds a filter lives without an `changes` poll (config filters.timeout) */
  timeoutSeconds: number;
  /** installed filters at most (1000, docs/methods.md#filters-and-logs) */
  maxFilters?: number;
  /** changes buffered per filter between polls; the oldest are dropped beyond it */
  maxBuffered?: number;
  limits?: LogLimits;
  /** milliseconds clock (monotonic by default) */
  now?: () => number;
}

export const DEFAULT_MAX_FILTERS = 1000;
export const DEFAULT_MAX_BUFFERED = 10_000;

interface FilterBase {
  lastPoll: number;
}
interface HashFilter extends FilterBase {
  kind: 'blocks' | 'pendingTransactions';
  hashes: Uint8Array[];
}
interface LogFilter extends FilterBase {
  kind: 'logs';
  query: LogQuery;
  matcher: BloomMatcher;
  logs: LogEntry[];
  /** pending transactions whose logs were already delivered (hex hash) */
  deliveredPending: Set<string>;
}
type Filter = HashFilter | LogFilter;

const filterNotFound = () => notFound('filter not found');

export class FilterSystem {
  private readonly filters = new Map<bigint, Filter>();
  private readonly timeoutMs: number;
  private readonly maxFilters: number;
  private readonly maxBuffered: number;
  private readonly limits: LogLimits;
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;
  private readonly sources: LogSources;

  private readonly onNewHead = (e: { block: Block; receipts: Receipt[] }) => this.deliverBlock(e.block, e.receipts);
  private readonly onRewound = (e: { removed: { block: Block; receipts: Receipt[] }[] }) => {
    for (const { block, receipts } of e.removed) this.deliverBlock(block, receipts, true);
  };
  private readonly onPendingTx = (tx: SignedTx) => {
    for (const f of this.filters.values()) if (f.kind === 'pendingTransactions') this.buffer(f.hashes, [tx.hash]);
  };

  constructor(
    private readonly deps: FilterDeps,
    opts: FilterOptions,
  ) {
    this.timeoutMs = opts.timeoutSeconds * 1000;
    this.maxFilters = opts.maxFilters ?? DEFAULT_MAX_FILTERS;
    this.maxBuffered = opts.maxBuffered ?? DEFAULT_MAX_BUFFERED;
    this.limits = opts.limits ?? DEFAULT_LOG_LIMITS;
    this.now = opts.now ?? (() => performance.now());
    this.sources = { chain: deps.chain, blooms: deps.blooms ?? blockBlooms(deps.chain), pending: deps.pending };
    deps.chain.on('newHead', this.onNewHead);
    (deps.rewinds ?? deps.chain).on('rewound', this.onRewound);
    deps.pool.on('pendingTx', this.onPendingTx);
    // Expiry is also checked on every access; the sweep only frees memory and stops buffering.
    const sweepMs = Math.min(Math.max(this.timeoutMs / 2, 100), 30_000);
    this.sweeper = setInterval(() => this.sweep(), sweepMs);
    this.sweeper.unref();
  }

  get size(): number {
    return this.filters.size;
  }

  newLogFilter(query: LogQuery): bigint {
    checkCriteria(query.criteria, this.limits);
    const { fromBlock: from, toBlock: to } = query;
    if (typeof from === 'bigint' && typeof to === 'bigint' && from > to) throw invalidRange();
    if (from === 'pending' && to !== 'pending') throw invalidRange();
    return this.install({ kind: 'logs', query, matcher: bloomMatcher(query.criteria), logs: [], deliveredPending: new Set(), lastPoll: this.now() });
  }

  newBlockFilter(): bigint {
    return this.install({ kind: 'blocks', hashes: [], lastPoll: this.now() });
  }

  newPendingTransactionFilter(): bigint {
    return this.install({ kind: 'pendingTransactions', hashes: [], lastPoll: this.now() });
  }

  /** True when an installed (unexpired) filter was removed. */
  uninstall(id: bigint): boolean {
    const f = this.filters.get(id);
    if (!f) return false;
    this.filters.delete(id);
    return !this.expired(f);
  }

  /** Everything since the last poll (or since install); resets the filter's inactivity timer. */
  async changes(id: bigint): Promise<FilterChanges> {
    const f = this.live(id);
    f.lastPoll = this.now();
    if (f.kind !== 'logs') return { kind: 'hashes', hashes: this.drain(f.hashes) };
    const logs = this.drain(f.logs);
    if (f.query.toBlock === 'pending' && !f.query.blockHash) this.buffer(logs, await this.newPendingLogs(f));
    return { kind: 'logs', logs: this.drain(logs) };
  }

  /** All logs matching a log filter's query, as mc_getLogs would answer it now. */
  async filterLogs(id: bigint): Promise<LogEntry[]> {
    const f = this.live(id);
    if (f.kind !== 'logs') throw unsupported('filter is not a log filter (mc_getFilterLogs serves filters made by mc_newFilter)');
    return queryLogs(this.sources, f.query, this.limits);
  }

  getLogs(query: LogQuery): Promise<LogEntry[]> {
    return queryLogs(this.sources, query, this.limits);
  }

  /** Stops the sweep timer and the event subscriptions; drops every filter. */
  stop(): void {
    clearInterval(this.sweeper);
    this.deps.chain.off('newHead', this.onNewHead);
    (this.deps.rewinds ?? this.deps.chain).off('rewound', this.onRewound);
    this.deps.pool.off('pendingTx', this.onPendingTx);
    this.filters.clear();
  }

  /** Removes expired filters (run by the timer; public for tests). */
  sweep(): void {
    for (const [id, f] of this.filters) if (this.expired(f)) this.filters.delete(id);
  }

  private install(filter: Filter): bigint {
    if (this.filters.size >= this.maxFilters) this.sweep();
    if (this.filters.size >= this.maxFilters) throw limitExceeded(`filters (max ${this.maxFilters} installed)`);
    let id: bigint;
    do id = bytesToBigint(randomBytes(16));
    while (id === 0n || this.filters.has(id));
    this.filters.set(id, filter);
    return id;
  }

  private expired(f: Filter): boolean {
    return this.now() - f.lastPoll >= this.timeoutMs;
  }

  private live(id: bigint): Filter {
    const f = this.filters.get(id);
    if (!f) throw filterNotFound();
    if (this.expired(f)) {
      this.filters.delete(id);
      throw filterNotFound();
    }
    return f;
  }

  /** Appends; trimming to the newest `maxBuffered` waits until twice that, so it costs O(1) per item. */
  private buffer<T>(target: T[], items: T[]): void {
    for (const item of items) target.push(item);
    if (target.length > 2 * this.maxBuffered) target.splice(0, target.length - this.maxBuffered);
  }

  /** Empties a buffer, answering its newest `maxBuffered` items. */
  private drain<T>(target: T[]): T[] {
    const all = target.splice(0);
    return all.length > this.maxBuffered ? all.slice(all.length - this.maxBuffered) : all;
  }

  /** A new canonical block, or (`removed`) one that left the canonical chain: only its logs, flagged. */
  private deliverBlock(block: Block, receipts: Receipt[], removed = false): void {
    const n = block.header.number;
    for (const f of this.filters.values()) {
      if (f.kind === 'blocks' && !removed) this.buffer(f.hashes, [block.hash]);
      if (f.kind !== 'logs' || f.query.blockHash) continue;
      const { fromBlock, toBlock, criteria } = f.query;
      // For changes, `latest` and `pending` bound nothing; only explicit numbers do.
      if (fromBlock === 'pending' || (typeof fromBlock === 'bigint' && n < fromBlock)) continue;
      if (typeof toBlock === 'bigint' && n > toBlock) continue;
      if (!bloomMayMatch(block.header.logsBloom, f.matcher)) continue;
      const entries = blockLogs(block, receipts, criteria);
      if (removed) for (const e of entries) e.removed = true;
      this.buffer(f.logs, entries);
    }
  }

  /** Logs of pending transactions not delivered to this filter before. */
  private async newPendingLogs(f: LogFilter): Promise<LogEntry[]> {
    const pending = await this.deps.pending.get();
    const groups = pendingLogs(pending, f.query.criteria);
    const current = new Set<string>();
    const fresh: LogEntry[] = [];
    pending.transactions.forEach((tx, i) => {
      const key = bytesToHex(tx.hash);
      current.add(key);
      if (!f.deliveredPending.has(key)) fresh.push(...groups[i]);
    });
    // Remember only what is still pending, so the set stays as small as the pending block.
    f.deliveredPending = current;
    return fresh;
  }
}
