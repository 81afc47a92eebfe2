// A running fork (docs/fork-mode.md): the one owner of its upstream client, its cache and its
// retries. It serves the state layer (ForkBases: which base state a root reads) and the chain's
// history (ForkHistory), connects to the upstream on the first read that needs it (a restart asks
// nothing until then), and moves to another block or upstream when anvil_reset re-forks.

import { EMPTY_TRIE_ROOT } from '../chain/block.js';
import type { Header } from '../chain/types.js';
import { equalBytes } from '../encoding/bytes.js';
import type { BaseState, ForkBases, ForkStateAt } from '../state/baseState.js';
import type { ForkCache } from './forkCache.js';
import { ForkHistory } from './forkHistory.js';
import type { ForkRecord } from './forkRecord.js';
import { ForkSource, type BlockRef } from './forkSource.js';
import { UpstreamClient, forkUnavailable, type ClientOptions } from './upstreamClient.js';
import { Upstream, detectDialect } from './upstream.js';

/** How the fork reaches its upstream: `--fork.header`, `--fork.retries`, `--fork.timeout`. */
export type UpstreamOptions = Pick<ClientOptions, 'headers' | 'retries' | 'timeoutMs' | 'onFailure'>;

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

export class ForkRuntime implements ForkBases {
  /** reads the cache answered / that asked the upstream (state and history) */
  readonly counters = { hits: 0, misses: 0 };
  readonly source: ForkSource;
  readonly history: ForkHistory;
  private upstreamReady: Promise<Upstream> | undefined;
  private client: UpstreamClient | undefined;
  /** exchanges of clients closed by a re-fork */
  private closedExchanges = 0;
  /** state roots of upstream blocks (at or below the fork block) and what they read */
  private upstreamRoots = new Map<string, ForkStateAt>();
  private anchorState!: BaseState;

  constructor(
    readonly cache: ForkCache,
    private current: ForkRecord,
    /** the local root at the fork block (src/state/forkTrie.ts forkBaseRoot) */
    private baseRoot: Uint8Array,
    private readonly options: UpstreamOptions,
    /** an upstream already connected and checked (a fork made in this run) */
    connected?: Upstream,
  ) {
    this.source = new ForkSource(cache, () => this.upstream(), this.counters);
    this.history = new ForkHistory(cache, () => this.upstream(), () => this.anchor, (header, hash) => this.registerHeader(header, hash), this.counters);
    this.reset(current, baseRoot, connected);
  }

  get record(): ForkRecord {
    return this.current;
  }

  get anchor(): BlockRef {
    return { number: this.current.number, hash: this.current.hash };
  }

  /** Upstream exchanges so far (retries included). */
  get requests(): number {
    return this.closedExchanges + (this.client?.stats.exchanges ?? 0);
  }

  private reset(record: ForkRecord, baseRoot: Uint8Array, connected?: Upstream): void {
    this.current = record;
    this.baseRoot = baseRoot;
    this.anchorState = this.source.at(this.anchor);
    this.upstreamRoots = new Map([[hex(record.stateRoot), { local: baseRoot, base: this.anchorState }]]);
    if (connected) {
      this.client = connected.client;
      this.upstreamReady = Promise.resolve(connected);
    }
  }

  /** Moves the fork to another block (and upstream): anvil_reset with `forking`. */
  refork(record: ForkRecord, baseRoot: Uint8Array, connected?: Upstream): void {
    if (this.client && this.client !== connected?.client) {
      this.closedExchanges += this.client.stats.exchanges;
      this.client.close();
    }
    this.client = undefined;
    this.upstreamReady = undefined;
    this.reset(record, baseRoot, connected);
  }

  resolve(root: Uint8Array): ForkStateAt {
    return this.upstreamRoots.get(hex(root)) ?? { local: root, base: this.anchorState };
  }

  /** An upstream header below the fork block: its root reads that block's state (the fork block's own root stays the fork's). */
  private registerHeader(header: Header, hash: Uint8Array): void {
    const key = hex(header.stateRoot);
    if (this.upstreamRoots.has(key) || header.number >= this.current.number) return;
    this.upstreamRoots.set(key, { local: EMPTY_TRIE_ROOT, base: this.source.at({ number: header.number, hash }) });
  }

  /** The upstream, connected and checked once (it must have the fork block); a failed attempt is tried again next time. */
  upstream(): Promise<Upstream> {
    if (!this.upstreamReady) {
      const attempt = this.connect();
      this.upstreamReady = attempt;
      attempt.catch(() => {
        if (this.upstreamReady === attempt) this.upstreamReady = undefined;
      });
    }
    return this.upstreamReady;
  }

  private async connect(): Promise<Upstream> {
    const { url, number, hash } = this.current;
    if (url === undefined) throw forkUnavailable('this fork has no upstream (it was imported from a file); start it with --fork.url to fetch what the file does not hold');
    if (!this.client) this.client = new UpstreamClient(url, this.options);
    const client = this.client;
    const upstream = new Upstream(client, this.current.dialect ?? (await detectDialect(client)));
    const found = await upstream.headerByNumber(number);
    if (!found || !equalBytes(found.hash, hash)) {
      throw forkUnavailable(`${client.shownUrl} has ${found ? `another block #${number}` : `no block #${number}`} than the fork's ${'0x' + hex(hash)}: another chain, or a reorganisation`);
    }
    return upstream;
  }

  close(): void {
    this.client?.close();
  }
}
