// The one client of a fork's upstream (docs/fork-mode.md#the-upstream): JSON-RPC calls over a
// transport, at most 8 exchanges in flight, calls made in the same turn of the event loop (or
// waiting for a free slot) sent together as one batch, each exchange retried on a transport
// failure with a growing pause, and a call that still fails rejected with -32000 `fork upstream
// unavailable: <reason>`. An error answer from the upstream is an answer: not retried.

import { NodeError, ErrorKind } from '../errors.js';
import { TransportError, displayUrl, openTransport, type Transport } from './transport.js';

/** Most exchanges waiting for the upstream at once (docs/fork-mode.md#the-upstream). */
export const MAX_IN_FLIGHT = 8;
/** Most calls in one batch. */
const MAX_BATCH = 100;
/** First pause before a retry; it doubles per retry, up to MAX_PAUSE_MS. */
const FIRST_PAUSE_MS = 100;
const MAX_PAUSE_MS = 2000;

/** The upstream answered a call with a JSON-RPC error. */
export class UpstreamError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }

  /** The upstream does not have the method (JSON-RPC's -32601, or its wording). */
  get methodMissing(): boolean {
    return this.code === -32601 || /not (exist|available|found|supported)/i.test(this.message) && /method/i.test(this.message);
  }
}

export const forkUnavailable = (reason: string): NodeError => new NodeError(ErrorKind.ForkUnavailable, `fork upstream unavailable: ${reason}`);

export interface ClientOptions {
  /** `Name: value` pairs sent with every HTTP request and the WebSocket handshake */
  headers?: readonly [string, string][];
  /** retries of a failed exchange (default 3) */
  retries?: number;
  /** milliseconds one exchange may take (default 30,000) */
  timeoutMs?: number;
  /** each exchange as it is sent (the metrics count them) */
  onExchange?: (calls: number) => void;
  /** each exchange that failed in the end */
  onFailure?: (reason: string) => void;
  /** a transport for tests */
  transport?: Transport;
}

interface Pending {
  id: number;
  method: string;
  params: unknown[];
  resolve(value: unknown): void;
  reject(err: Error): void;
}

interface Answer {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}

export class UpstreamClient {
  private readonly transport: Transport;
  private readonly queue: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;
  private nextId = 1;
  /** false once the upstream refused a batch: calls go one by one */
  private batching = true;
  private closed = false;
  /** exchanges so far (retries included) and the calls they carried */
  readonly stats = { exchanges: 0, calls: 0, failures: 0 };

  constructor(
    readonly url: string,
    private readonly opts: ClientOptions = {},
  ) {
    this.transport = opts.transport ?? openTransport(url, opts.headers ?? []);
  }

  /** The URL without credentials, for messages. */
  get shownUrl(): string {
    return displayUrl(this.url);
  }

  /** One call; it may travel in a batch with others made in the same turn. */
  call(method: string, params: unknown[] = []): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(forkUnavailable('the upstream client is closed'));
      this.queue.push({ id: this.nextId++, method, params, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        queueMicrotask(() => {
          this.scheduled = false;
          this.pump();
        });
      }
    });
  }

  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
      const calls = this.queue.splice(0, this.batching ? MAX_BATCH : 1);
      this.inFlight++;
      void this.send(calls).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async send(calls: Pending[]): Promise<void> {
    const message = calls.length === 1 ? request(calls[0]) : calls.map(request);
    const retries = this.opts.retries ?? 3;
    let reason = '';
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await pause(Math.min(FIRST_PAUSE_MS * 2 ** (attempt - 1), MAX_PAUSE_MS));
      if (this.closed) break;
      this.stats.exchanges++;
      this.stats.calls += calls.length;
      this.opts.onExchange?.(calls.length);
      let answer: unknown;
      try {
        answer = await this.transport.exchange(message, calls.map((c) => c.id), this.opts.timeoutMs ?? 30_000);
      } catch (err) {
        // TransportError: refused, reset, timed out; anything else is a fault of ours, reported alike.
        reason = err instanceof TransportError ? err.message : `client fault: ${(err as Error)?.message ?? String(err)}`;
        continue;
      }
      this.settle(calls, answer);
      return;
    }
    this.stats.failures++;
    const why = this.closed ? 'the upstream client is closed' : `${this.shownUrl}: ${reason}${retries > 0 ? ` (after ${retries} ${retries === 1 ? 'retry' : 'retries'})` : ''}`;
    this.opts.onFailure?.(why);
    for (const c of calls) c.reject(forkUnavailable(why));
  }

  private settle(calls: Pending[], answer: unknown): void {
    const answers = Array.isArray(answer) ? (answer as Answer[]) : [answer as Answer];
    if (calls.length > 1 && !Array.isArray(answer)) {
      // An upstream without batches: from now on one call per exchange.
      this.batching = false;
      this.queue.unshift(...calls);
      return;
    }
    const byId = new Map<unknown, Answer>();
    for (const a of answers) if (a && typeof a === 'object') byId.set(a.id, a);
    for (const c of calls) {
      const a = byId.get(c.id) ?? (calls.length === 1 ? answers[0] : undefined);
      if (!a || typeof a !== 'object') c.reject(forkUnavailable(`${this.shownUrl}: no answer to ${c.method}`));
      else if (a.error) c.reject(new UpstreamError(c.method, Number(a.error.code ?? 0), String(a.error.message ?? 'error')));
      else if (!('result' in a)) c.reject(forkUnavailable(`${this.shownUrl}: ${c.method} answered without a result`));
      else c.resolve(a.result);
    }
  }

  close(): void {
    this.closed = true;
    for (const c of this.queue.splice(0)) c.reject(forkUnavailable('the upstream client is closed'));
    this.transport.close();
  }
}

const request = (c: Pending) => ({ jsonrpc: '2.0', id: c.id, method: c.method, params: c.params });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());
