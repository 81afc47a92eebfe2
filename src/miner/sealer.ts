// The Sealer finds proof-of-work nonces (docs/mining-and-ethash.md#the-workers) in a piscina worker pool. It splits the nonce
// space into bounded batches, keeps every worker fed, and stops all batches through shared abort
// flags as soon as one finds a seal or the caller's signal fires: running tasks are never killed,
// they notice the flag within a few milliseconds and return. It knows nothing about blocks, nor
// which PoW runs: the engine gives the target, the search context and the batch sizes.

import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Piscina } from 'piscina';
import { keccakPow, type PowEngine, type SearchContext } from '../consensus/powEngine.js';
import { searchStep } from '../consensus/powSearchStep.js';
import type { PowSearchResult, PowSearchTask } from '../../workers/powSearch.js';
import { workerModule } from '../runtime/workerModule.js';
import { SealThread } from './sealThread.js';

export interface SealerOptions {
  /** Worker threads, ≥ 1. */
  threads: number;
  /** Compiled worker module; defaults to dist/workers/powSearch.js. */
  workerFile?: string;
  /** Nonces per worker task; the engine's default takes ~10-250 ms. */
  batchSize?: number;
  /** the chain's PoW (default keccak-pow) */
  pow?: PowEngine;
  /**
   * Small keccak-pow searches (at or below the engine's inline limit) run on one dedicated
   * thread (sealThread.ts) instead of this one, so that this event loop stays free while a block
   * seals. Default false: they run inline, in short slices.
   */
  searchThread?: boolean;
}

export interface SealOptions {
  signal?: AbortSignal;
  /** Return the smallest valid nonce ≥ startNonce (default 0), whatever the thread count. */
  deterministic?: boolean;
  /** First nonce to try; random by default outside deterministic mode. */
  startNonce?: bigint;
  /** the block's number (Ethash picks its epoch by it); default 0 */
  number?: bigint;
}

export interface SealResult {
  nonce: bigint;
  mix: Uint8Array;
}

const NONCE_SPACE = 1n << 64n;
/** Inline searching yields to the event loop after this many hashes (keccak-pow). */
const INLINE_SLICE = 1 << 13;
/** Nonces handed to the search thread at a time (~0.5 s of hashing; a devnet seal takes ~512). */
const THREAD_RANGE = 1 << 20;
/** Two tasks per thread keep a worker busy while the previous result travels back. */
const TASKS_PER_THREAD = 2;
const RATE_WINDOW_MS = 3000;

interface Batch {
  index: number;
  abort: Int32Array;
}

interface RateSample {
  from: number;
  to: number;
  hashes: number;
}

// Loaded by the first pooled search, with the pool itself.
let PiscinaPool: typeof Piscina | undefined;

function checkThreads(threads: number): number {
  if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`sealer threads must be an integer ≥ 1, got ${threads}`);
  return threads;
}

/** Random words drawn 64 at a time: one-transaction blocks seal hundreds of times a second. */
const startNonces = new BigUint64Array(64);
let startNoncesLeft = 0;

function randomStartNonce(): bigint {
  if (startNoncesLeft === 0) {
    crypto.getRandomValues(startNonces);
    startNoncesLeft = startNonces.length;
  }
  // Below 2^63 so that a search never has to wrap in practice (it still could).
  return startNonces[--startNoncesLeft] >> 1n;
}

export class Sealer {
  private threads: number;
  private poolInstance: Piscina<PowSearchTask, PowSearchResult> | undefined;
  private readonly workerFile: string;
  private readonly batchSize: number;
  private readonly pow: PowEngine;
  /** Task promises not yet settled, across pools (a retired pool finishes its tasks). */
  private readonly outstanding = new Set<Promise<unknown>>();
  private readonly retiring = new Set<Promise<void>>();
  /** Stops every running seal (resolving it undefined). */
  private readonly stoppers = new Set<() => void>();
  private samples: RateSample[] = [];
  private total = 0;
  private closed = false;
  private readonly thread: SealThread | undefined;

  constructor(options: SealerOptions) {
    this.threads = checkThreads(options.threads);
    this.workerFile = options.workerFile ?? workerModule('powSearch');
    this.pow = options.pow ?? keccakPow;
    this.batchSize = options.batchSize ?? this.pow.tuning.batchSize;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1 || this.batchSize > 2 ** 31 - 1) {
      throw new RangeError('sealer batchSize must be an integer in [1, 2^31)');
    }
    if (options.searchThread) this.thread = new SealThread();
  }

  // Started by the first search that needs workers: a low difficulty seals inline, and idle
  // threads would cost start-up time and ~10 MB each.
  private get pool(): Piscina<PowSearchTask, PowSearchResult> {
    return (this.poolInstance ??= this.createPool(this.threads));
  }

  /** A nonce whose mix meets the difficulty's target, or undefined when aborted. */
  async seal(sealHash: Uint8Array, difficulty: bigint, opts: SealOptions = {}): Promise<SealResult | undefined> {
    if (this.closed) throw new Error('sealer is closed');
    if (sealHash.length !== 32) throw new RangeError('sealHash must be 32 bytes');
    const target = this.pow.target(difficulty);
    const deterministic = opts.deterministic ?? false;
    const start = opts.startNonce ?? (deterministic ? 0n : randomStartNonce());
    if (start < 0n || start >= NONCE_SPACE) throw new RangeError('startNonce out of range');
    if (opts.signal?.aborted) return undefined;
    const context = await this.pow.searchContext(opts.number ?? 0n);
    if (opts.signal?.aborted || this.closed) return undefined;
    if (difficulty <= this.pow.tuning.inlineMaxDifficulty) {
      if (context.pow === 'keccak-pow' && this.thread?.available) return this.sealOnThread(context, sealHash, target, start, opts.signal);
      return this.sealInline(context, sealHash, target, start, opts.signal);
    }
    PiscinaPool ??= (await import('piscina')).Piscina;
    return this.sealInPool(context, sealHash, target, start, deterministic, opts.signal);
  }

  /** Hashes per second over the last few seconds, all threads (and inline searches) together. */
  hashrate(): number {
    const now = performance.now();
    const windowStart = now - RATE_WINDOW_MS;
    let hashes = 0;
    let earliest = now;
    for (const s of this.samples) {
      if (s.to <= windowStart) continue;
      const inside = s.from >= windowStart || s.to === s.from ? 1 : (s.to - windowStart) / (s.to - s.from);
      hashes += s.hashes * inside;
      earliest = Math.min(earliest, Math.max(s.from, windowStart));
    }
    return now > earliest ? (hashes * 1000) / (now - earliest) : 0;
  }

  /** True when small searches go to the search thread (it is online and not failed). */
  get searchThreadOnline(): boolean {
    return this.thread?.available ?? false;
  }

  /** Hashes computed since the sealer was created. */
  get totalHashes(): number {
    return this.total;
  }

  /** Worker tasks still running or queued (aborted ones included until they return). */
  get pendingTasks(): number {
    return this.outstanding.size;
  }

  /** Resolves once no worker task is running or queued. */
  async settled(): Promise<void> {
    while (this.outstanding.size > 0) await Promise.allSettled([...this.outstanding]);
  }

  /** Resize the pool; running seals continue on the new pool, old workers exit after their tasks. */
  setThreads(threads: number): void {
    checkThreads(threads);
    if (this.closed || threads === this.threads) return;
    const old = this.poolInstance;
    this.poolInstance = undefined;
    this.threads = threads;
    if (!old) return;
    const retired = old.close().catch(() => undefined);
    this.retiring.add(retired);
    void retired.finally(() => this.retiring.delete(retired));
  }

  get threadCount(): number {
    return this.threads;
  }

  /** Stops running seals (they resolve undefined), waits for the tasks to return, ends the workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stop of [...this.stoppers]) stop();
    await this.settled();
    await this.thread?.close();
    await Promise.all([...this.retiring]);
    await this.poolInstance?.destroy();
  }

  private createPool(threads: number): Piscina<PowSearchTask, PowSearchResult> {
    return new PiscinaPool!<PowSearchTask, PowSearchResult>({
      filename: this.workerFile,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
      // The worker is plain compiled JS: do not start every thread with the parent's loaders and
      // instrumentation (a TypeScript loader under tap makes each worker take ~2 s to start).
      execArgv: [],
    });
  }

  private record(hashes: number, from: number): void {
    const to = performance.now();
    this.total += hashes;
    this.samples.push({ from, to, hashes });
    // Compacted once half of the samples have left the window (the middle one is old), not
    // whenever the oldest has: hundreds of inline seals a second would copy the list each time.
    if (this.samples.length > 64 && this.samples[this.samples.length >> 1].to < to - RATE_WINDOW_MS) {
      this.samples = this.samples.filter((s) => s.to >= to - RATE_WINDOW_MS);
    }
  }

  /** Small difficulties: search on this thread in short slices, yielding between them. */
  private async sealInline(
    context: SearchContext,
    sealHash: Uint8Array,
    target: Uint8Array,
    start: bigint,
    signal: AbortSignal | undefined,
  ): Promise<SealResult | undefined> {
    let stopped = false;
    const stop = () => (stopped = true);
    this.stoppers.add(stop);
    try {
      let nonce = start;
      for (let searched = 0n; searched < NONCE_SPACE; ) {
        if (stopped || signal?.aborted) return undefined;
        const from = performance.now();
        const count = NONCE_SPACE - nonce < INLINE_SLICE ? Number(NONCE_SPACE - nonce) : INLINE_SLICE;
        const hit = searchStep(context, sealHash, target, nonce, count);
        this.record(hit ? Number(hit.nonce - nonce) + 1 : count, from);
        if (hit) return hit;
        searched += BigInt(count);
        nonce = (nonce + BigInt(count)) % NONCE_SPACE;
        await yieldToEventLoop();
      }
      return undefined;
    } finally {
      this.stoppers.delete(stop);
    }
  }

  /** Small difficulties with a search thread: the same linear search from `start`, off this thread. */
  private async sealOnThread(
    context: SearchContext,
    sealHash: Uint8Array,
    target: Uint8Array,
    start: bigint,
    signal: AbortSignal | undefined,
  ): Promise<SealResult | undefined> {
    const thread = this.thread!;
    let stopped = false;
    const stop = () => {
      stopped = true;
      thread.abort();
    };
    this.stoppers.add(stop);
    signal?.addEventListener('abort', stop);
    try {
      let nonce = start;
      for (let searched = 0n; searched < NONCE_SPACE; ) {
        if (stopped || signal?.aborted) return undefined;
        const count = NONCE_SPACE - nonce < THREAD_RANGE ? Number(NONCE_SPACE - nonce) : THREAD_RANGE;
        const from = performance.now();
        const result = await thread.search({ sealHash, target, start: nonce, count });
        // The thread failed: the rest of the search runs here.
        if (!result) return await this.sealInline(context, sealHash, target, nonce, signal);
        this.record(result.hashes, from);
        if (stopped || signal?.aborted) return undefined;
        if (result.hit) return result.hit;
        searched += BigInt(count);
        nonce = (nonce + BigInt(count)) % NONCE_SPACE;
      }
      return undefined;
    } finally {
      this.stoppers.delete(stop);
      signal?.removeEventListener('abort', stop);
    }
  }

  /**
   * Batches are numbered in nonce order from `start`. In deterministic mode a hit in batch k is
   * final only once every batch below k has returned without one; batches above k are stopped.
   */
  private sealInPool(
    context: SearchContext,
    sealHash: Uint8Array,
    target: Uint8Array,
    start: bigint,
    deterministic: boolean,
    signal: AbortSignal | undefined,
  ): Promise<SealResult | undefined> {
    return new Promise((resolve, reject) => {
      const inflight = new Map<number, Batch>();
      let cursor = start;
      let issued = 0n;
      let nextIndex = 0;
      let best: { index: number; result: SealResult } | undefined;
      let finished = false;

      const finish = (result: SealResult | undefined, error?: unknown): void => {
        if (finished) return;
        finished = true;
        for (const batch of inflight.values()) Atomics.store(batch.abort, 0, 1);
        signal?.removeEventListener('abort', onAbort);
        this.stoppers.delete(onAbort);
        if (error !== undefined) reject(error);
        else resolve(result);
      };
      const onAbort = (): void => finish(undefined);

      const onResult = (batch: Batch, result: PowSearchResult): void => {
        inflight.delete(batch.index);
        if (finished) return;
        if ('nonce' in result) {
          const found = { nonce: BigInt(result.nonce), mix: result.mix };
          if (!deterministic) return finish(found);
          if (!best || batch.index < best.index) best = { index: batch.index, result: found };
          for (const other of inflight.values()) if (other.index > batch.index) Atomics.store(other.abort, 0, 1);
        }
        if (best) {
          for (const other of inflight.values()) if (other.index < best.index) return;
          return finish(best.result);
        }
        if (inflight.size === 0 && issued >= NONCE_SPACE) return finish(undefined);
        issue();
      };

      const issue = (): void => {
        while (!finished && !best && inflight.size < this.threads * TASKS_PER_THREAD && issued < NONCE_SPACE) {
          const count = NONCE_SPACE - cursor < this.batchSize ? Number(NONCE_SPACE - cursor) : this.batchSize;
          const batch: Batch = { index: nextIndex++, abort: new Int32Array(new SharedArrayBuffer(4)) };
          const task: PowSearchTask = { context, sealHash, target, start: cursor, count, slice: this.pow.tuning.slice, abort: batch.abort };
          cursor = (cursor + BigInt(count)) % NONCE_SPACE;
          issued += BigInt(count);
          inflight.set(batch.index, batch);
          const from = performance.now();
          const run = this.pool.run(task).then(
            (result) => {
              this.record(result.hashes, from);
              onResult(batch, result);
            },
            (error: unknown) => {
              inflight.delete(batch.index);
              finish(undefined, error);
            },
          );
          this.outstanding.add(run);
          void run.finally(() => this.outstanding.delete(run));
        }
      };

      signal?.addEventListener('abort', onAbort, { once: true });
      this.stoppers.add(onAbort);
      issue();
    });
  }
}
