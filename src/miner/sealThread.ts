// One dedicated thread for small keccak-pow searches (the devnet's one-transaction blocks): the
// main thread hands a range over through shared memory (consensus/sealChannel.ts) and awaits
// the result with Atomics.waitAsync, so its event loop admits the next transactions while the
// block seals. A piscina task costs more than such a search; this round trip costs ~10 µs.
// The thread starts on first use; until it is online (and if it ever fails) callers search inline.

import { Worker } from 'node:worker_threads';
import { ABORT, DONE, EXIT, IDLE, STATE, TASK, createChannel, readResult, stateWords, writeTask, type ChannelResult, type ChannelTask } from '../consensus/sealChannel.js';
import { workerModule } from '../runtime/workerModule.js';

/** Atomics.waitAsync (Node ≥ 16; typed in TypeScript's es2024 lib, which this project does not load). */
const waitAsync = (Atomics as unknown as {
  waitAsync(array: Int32Array, index: number, value: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync;

export class SealThread {
  private worker: Worker | undefined;
  private readonly channel = createChannel();
  private readonly words = stateWords(this.channel);
  private online = false;
  private failed = false;
  private busy = false;
  private running: Promise<ChannelResult | undefined> | undefined;
  /** resolves when the thread has exited (or failed): a search in flight must not wait forever */
  private exited: Promise<void> | undefined;
  /** wakes the search in flight if the thread exits (one search at a time, so one callback) */
  private wakeOnExit: (() => void) | undefined;

  constructor(private readonly file = workerModule('sealSearch')) {}

  /** True when a search can start now; the first call starts the thread. */
  get available(): boolean {
    if (!this.worker && !this.failed) this.start();
    return this.online && !this.busy && !this.failed;
  }

  private start(): void {
    const worker = new Worker(this.file, { workerData: { channel: this.channel }, execArgv: [] });
    worker.unref();
    worker.once('online', () => (this.online = true));
    this.exited = new Promise<void>((resolve) => {
      worker.once('error', () => resolve());
      worker.once('exit', () => resolve());
    }).then(() => {
      this.failed = true;
      this.online = false;
      this.wakeOnExit?.();
    });
    this.worker = worker;
  }

  /**
   * Searches [start, start + count) for the first nonce meeting the target; ends early without
   * a hit after `abort()`. One search at a time: check `available` first.
   */
  search(task: ChannelTask): Promise<ChannelResult | undefined> {
    if (!this.available) return Promise.reject(new Error('the seal thread is not available'));
    this.busy = true;
    // A pending Atomics.waitAsync does not keep the event loop alive; the referenced worker does.
    this.worker!.ref();
    Atomics.store(this.words, ABORT, 0);
    writeTask(this.channel, task);
    Atomics.store(this.words, STATE, TASK);
    Atomics.notify(this.words, STATE);
    this.running = this.collect().finally(() => {
      this.running = undefined;
      this.busy = false;
      this.worker!.unref();
    });
    return this.running;
  }

  private async collect(): Promise<ChannelResult | undefined> {
    const wait = waitAsync(this.words, STATE, TASK);
    if (wait.async) {
      // Not a race with `exited`: every race leaves a reaction on that promise, which stays
      // pending while the thread lives, so each sealed block kept ~250 bytes for good.
      const died = new Promise<void>((resolve) => (this.wakeOnExit = resolve));
      try {
        await Promise.race([wait.value, died]);
      } finally {
        this.wakeOnExit = undefined;
      }
    }
    if (Atomics.load(this.words, STATE) !== DONE) return undefined; // the thread died
    const result = readResult(this.channel);
    Atomics.store(this.words, STATE, IDLE);
    return result;
  }

  /** True once the thread has finished the search handed to it (its result is waiting). */
  get finished(): boolean {
    return Atomics.load(this.words, STATE) === DONE;
  }

  /** Makes the running search end within a slice (~1 ms), without a hit unless it had one. */
  abort(): void {
    Atomics.store(this.words, ABORT, 1);
  }

  /** Ends the thread, after stopping a search in flight. */
  async close(): Promise<void> {
    if (!this.worker || this.failed) return;
    this.abort();
    await this.running;
    this.worker.ref(); // unreferenced, its exit would not keep this event loop waiting
    Atomics.store(this.words, STATE, EXIT);
    Atomics.notify(this.words, STATE);
    await this.exited;
  }
}
