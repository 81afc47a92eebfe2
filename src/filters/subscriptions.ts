// Push subscriptions (`mc_subscribe` over WebSocket and IPC): newHeads, logs, pending
// transactions and sync status, fed by the same chain and pool events as the polled filters.
// Each subscription hands its events to a `deliver` callback; rpc/ formats and sends them.

import type { Block, Receipt, SignedTx } from '../chain/types.js';
import { bytesToBigint } from '../encoding/bytes.js';
import { randomBytes } from 'node:crypto';
import {
  DEFAULT_LOG_LIMITS, blockLogs, bloomMatcher, bloomMayMatch, checkCriteria, type BloomMatcher, type LogCriteria, type LogEntry,
} from './logQuery.js';

/** What the chain announces: a new canonical head, or blocks taken off the canonical chain (newest first). */
export interface NewHead { block: Block; receipts: Receipt[] }
export interface Rewound { removed: { block: Block; receipts: Receipt[] }[] }

/** Sync progress as `mc_syncing` reports it; false once in sync. */
export type SyncStatus = false | { startingBlock: bigint; currentBlock: bigint; highestBlock: bigint };

export interface SubscriptionSources {
  chain: {
    on(event: 'newHead', listener: (e: NewHead) => void): unknown;
    off(event: 'newHead', listener: (e: NewHead) => void): unknown;
  };
  /** emits `'rewound'` once per rewind or reorganisation (the chain itself, once it rewinds) */
  rewinds?: {
    on(event: 'rewound', listener: (e: Rewound) => void): unknown;
    off(event: 'rewound', listener: (e: Rewound) => void): unknown;
  };
  pool: {
    on(event: 'pendingTx', listener: (tx: SignedTx) => void): unknown;
    off(event: 'pendingTx', listener: (tx: SignedTx) => void): unknown;
  };
  /** emits `'syncing'` when sync starts, progresses or ends (a node without peers never does) */
  sync?: {
    on(event: 'syncing', listener: (status: SyncStatus) => void): unknown;
    off(event: 'syncing', listener: (status: SyncStatus) => void): unknown;
  };
}

export type SubscriptionRequest =
  | { kind: 'newHeads' }
  | { kind: 'logs'; criteria: LogCriteria }
  | { kind: 'newPendingTransactions'; full: boolean }
  | { kind: 'syncing' };

export type SubscriptionEvent =
  | { kind: 'newHeads'; block: Block }
  | { kind: 'logs'; entry: LogEntry; removed: boolean }
  | { kind: 'newPendingTransactions'; tx: SignedTx; full: boolean }
  | { kind: 'syncing'; status: SyncStatus };

type Deliver = (event: SubscriptionEvent) => void;

interface Subscription {
  request: SubscriptionRequest;
  matcher?: BloomMatcher;
  deliver: Deliver;
}

export class SubscriptionHub {
  private readonly subs = new Map<bigint, Subscription>();
  /** per kind, so an event walks only the subscriptions that want it */
  private readonly byKind = new Map<SubscriptionRequest['kind'], Set<bigint>>();

  private readonly onNewHead = (e: NewHead) => {
    this.each('newHeads', (s) => s.deliver({ kind: 'newHeads', block: e.block }));
    this.each('logs', (s) => this.deliverLogs(s, e.block, e.receipts, false));
  };
  private readonly onRewound = (e: Rewound) => {
    this.each('logs', (s) => {
      for (const { block, receipts } of e.removed) this.deliverLogs(s, block, receipts, true);
    });
  };
  private readonly onPendingTx = (tx: SignedTx) =>
    this.each('newPendingTransactions', (s) => s.deliver({ kind: 'newPendingTransactions', tx, full: (s.request as { full: boolean }).full }));
  private readonly onSyncing = (status: SyncStatus) => this.each('syncing', (s) => s.deliver({ kind: 'syncing', status }));

  constructor(private readonly sources: SubscriptionSources) {
    sources.chain.on('newHead', this.onNewHead);
    sources.rewinds?.on('rewound', this.onRewound);
    sources.pool.on('pendingTx', this.onPendingTx);
    sources.sync?.on('syncing', this.onSyncing);
  }

  /** Sync status comes from the network's downloader, which starts after the hub. */
  watchSync(sync: NonNullable<SubscriptionSources['sync']>): void {
    this.sources.sync?.off('syncing', this.onSyncing);
    this.sources.sync = sync;
    sync.on('syncing', this.onSyncing);
  }

  get size(): number {
    return this.subs.size;
  }

  /** Starts delivering events of the requested kind; the id is random and never 0. */
  subscribe(request: SubscriptionRequest, deliver: Deliver): bigint {
    if (request.kind === 'logs') checkCriteria(request.criteria, DEFAULT_LOG_LIMITS);
    let id: bigint;
    do id = bytesToBigint(randomBytes(16));
    while (id === 0n || this.subs.has(id));
    const matcher = request.kind === 'logs' ? bloomMatcher(request.criteria) : undefined;
    this.subs.set(id, { request, matcher, deliver });
    let ids = this.byKind.get(request.kind);
    if (!ids) this.byKind.set(request.kind, (ids = new Set()));
    ids.add(id);
    return id;
  }

  unsubscribe(id: bigint): boolean {
    const s = this.subs.get(id);
    if (!s) return false;
    this.subs.delete(id);
    this.byKind.get(s.request.kind)?.delete(id);
    return true;
  }

  stop(): void {
    this.sources.chain.off('newHead', this.onNewHead);
    this.sources.rewinds?.off('rewound', this.onRewound);
    this.sources.pool.off('pendingTx', this.onPendingTx);
    this.sources.sync?.off('syncing', this.onSyncing);
    this.subs.clear();
    this.byKind.clear();
  }

  private each(kind: SubscriptionRequest['kind'], fn: (s: Subscription) => void): void {
    const ids = this.byKind.get(kind);
    if (!ids) return;
    for (const id of ids) {
      const s = this.subs.get(id);
      // A subscriber that fails (a closed connection) must not keep the others from their events.
      if (s) {
        try {
          fn(s);
        } catch {
          this.unsubscribe(id);
        }
      }
    }
  }

  private deliverLogs(s: Subscription, block: Block, receipts: Receipt[], removed: boolean): void {
    if (s.request.kind !== 'logs' || !bloomMayMatch(block.header.logsBloom, s.matcher!)) return;
    for (const entry of blockLogs(block, receipts, s.request.criteria)) s.deliver({ kind: 'logs', entry, removed });
  }
}
