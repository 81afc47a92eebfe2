// Ethash light caches by epoch: generated in a worker thread (never on the event loop), kept in
// memory for the epochs around the head, and stored under <datadir>/ethash/ so that a restart
// reads them back instead of regenerating. A file carries a keccak256 trailer; one that does
// not match (torn write, other data) is regenerated. Nothing waits for a cache until asked.

import fs from 'node:fs/promises';
import path from 'node:path';
import { workerThreads } from '../../runtime/lazyBuiltins.js';
import { equalBytes, keccak256 } from '../../encoding/bytes.js';
import { bytesToHex } from '../../encoding/hex.js';
import { cacheSize, epochSeed } from './params.js';
import { EthashKernel } from './ethashKernel.js';
import type { EthashCacheMessage } from '../../../workers/ethashCache.js';
import { workerModule } from '../../runtime/workerModule.js';

/** level: 'warn' for failures that mining works around (it goes on with less); default info */
export type CacheLog = (message: string, fields: Record<string, unknown>, level?: 'warn') => void;

export interface EthashCachesOptions {
  /** where caches are stored; none: memory only */
  dir?: string;
  /** compiled worker module; defaults to dist/workers/ethashCache.js */
  workerFile?: string;
  /** generate on the calling thread (tools and tests without a build) */
  inline?: boolean;
  log?: CacheLog;
}

/** Epochs kept in memory: the head's, the next, and the one before (late blocks, imports). */
const KEPT = 3;
const REVISION = 23; // geth's cache file revision, kept for familiarity of the names

export function cacheFileName(epoch: number): string {
  return `cache-R${REVISION}-${epoch}-${bytesToHex(epochSeed(epoch).subarray(0, 8)).slice(2)}`;
}

export class EthashCaches {
  private readonly entries = new Map<number, Promise<Uint8Array>>();
  private latest = 0;
  /** caches read from disk / generated since start (tests, the bench) */
  readonly stats = { loaded: 0, generated: 0 };

  constructor(private readonly opts: EthashCachesOptions = {}) {}

  /** The epoch's cache (on a SharedArrayBuffer), from memory, disk or a fresh generation. */
  get(epoch: number): Promise<Uint8Array> {
    let entry = this.entries.get(epoch);
    if (entry) {
      this.entries.delete(epoch); // the map's order is the order of use
    } else {
      entry = this.obtain(epoch);
      entry.catch(() => this.entries.delete(epoch));
    }
    this.entries.set(epoch, entry);
    this.trim();
    return entry;
  }

  /** Starts on the head's epoch, then the next one (one generation at a time); returns at once. */
  prepare(epoch: number): void {
    this.latest = Math.max(this.latest, epoch);
    const failed = (e: number) => (err: Error) => this.opts.log?.('Ethash cache generation failed', { epoch: e, error: err.message });
    this.get(epoch).then(() => this.get(epoch + 1).catch(failed(epoch + 1)), failed(epoch));
  }

  /** Drops the least recently used caches beyond KEPT, never the head's epoch or the next. */
  private trim(): void {
    for (const epoch of this.entries.keys()) {
      if (this.entries.size <= KEPT) return;
      if (epoch !== this.latest && epoch !== this.latest + 1) this.entries.delete(epoch);
    }
  }

  private async obtain(epoch: number): Promise<Uint8Array> {
    const file = this.opts.dir ? path.join(this.opts.dir, cacheFileName(epoch)) : undefined;
    if (file) {
      const stored = await this.read(file, epoch);
      if (stored) {
        this.stats.loaded++;
        return stored;
      }
    }
    const started = performance.now();
    this.opts.log?.('generating Ethash cache', { epoch, bytes: cacheSize(epoch) });
    const cache = this.opts.inline ? this.generateInline(epoch) : await this.generateInWorker(epoch);
    this.stats.generated++;
    this.opts.log?.('Ethash cache ready', { epoch, ms: Math.round(performance.now() - started) });
    if (file) await this.write(file, cache).catch((err: Error) => this.opts.log?.('cannot store Ethash cache', { file, error: err.message }));
    return cache;
  }

  private async read(file: string, epoch: number): Promise<Uint8Array | undefined> {
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(file);
    } catch {
      return undefined;
    }
    const size = cacheSize(epoch);
    if (bytes.length !== size + 32) return undefined;
    const body = bytes.subarray(0, size);
    if (!equalBytes(keccak256(body), bytes.subarray(size))) return undefined;
    const cache = new Uint8Array(new SharedArrayBuffer(size));
    cache.set(body);
    return cache;
  }

  private async write(file: string, cache: Uint8Array): Promise<void> {
    await fs.mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    const handle = await fs.open(tmp, 'w');
    try {
      await handle.write(cache);
      await handle.write(keccak256(cache));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, file);
  }

  private generateInline(epoch: number): Uint8Array {
    const kernel = new EthashKernel();
    kernel.generateCache(epoch);
    const cache = new Uint8Array(new SharedArrayBuffer(cacheSize(epoch)));
    cache.set(kernel.cache());
    return cache;
  }

  private generateInWorker(epoch: number): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      const worker = new (workerThreads().Worker)(this.opts.workerFile ?? workerModule('ethashCache'), { workerData: { epoch }, execArgv: [] });
      worker.unref(); // a pending generation never holds the process open
      let done = false;
      worker.on('message', (msg: EthashCacheMessage) => {
        if ('progress' in msg) {
          this.opts.log?.('Ethash cache progress', { epoch, percent: Math.round(msg.progress * 100) });
        } else {
          done = true;
          resolve(msg.cache);
          void worker.terminate();
        }
      });
      worker.on('error', (err) => reject(err));
      worker.on('exit', (code) => {
        if (!done) reject(new Error(`Ethash cache worker exited with code ${code}`));
      });
    });
  }
}
