// The address index for a datadir made before it existed: on the first start of a version that
// keeps it, every canonical block with transactions up to the head of that moment is replayed
// (message events only) and indexed, in the background, with its progress logged and stored so
// that a restart continues where it stopped. Blocks that land meanwhile are indexed as they land.

import { RLP } from '@ethereumjs/rlp';
import type { Block } from '../chain/types.js';
import { bigintToBytes, bytesToBigint } from '../encoding/bytes.js';
import type { Database } from '../store/database.js';
import { keys } from '../store/schema.js';
import { touchedOf, type TouchedAddresses } from './addressIndex.js';
import type { Blockchain } from './blockchain.js';

export interface IndexRebuildDeps {
  db: Database;
  chain: Blockchain;
  /** per transaction of `block`, the addresses its frames touched, from a replay on its parent's state */
  replay: (block: Block) => Promise<Uint8Array[][]>;
  log: (message: string, fields: Record<string, unknown>) => void;
  warn: (message: string, fields: Record<string, unknown>) => void;
}

/** Blocks between two stored progress marks (and progress lines, at most every few seconds). */
const MARK_EVERY = 1000n;
const LOG_EVERY_MS = 5000;

/** Where a rebuild stands: blocks `next`..`end` are still to index. */
export interface RebuildProgress {
  next: bigint;
  end: bigint;
}

export class AddressIndexRebuild {
  private stopped = false;
  private running: Promise<void> | undefined;

  private constructor(private readonly deps: IndexRebuildDeps, private progress: RebuildProgress | undefined) {}

  /** Reads the index's state; a datadir without one (made before the index) starts a rebuild up to its head. */
  static async open(deps: IndexRebuildDeps): Promise<AddressIndexRebuild> {
    const stored = await deps.db.get(keys.addressIndexState);
    if (stored) {
      const fields = RLP.decode(stored) as Uint8Array[];
      const progress = fields.length === 2 ? { next: bytesToBigint(fields[0]), end: bytesToBigint(fields[1]) } : undefined;
      return new AddressIndexRebuild(deps, progress);
    }
    const progress = { next: 1n, end: deps.chain.head.header.number };
    await deps.db.put(keys.addressIndexState, encodeProgress(progress));
    return new AddressIndexRebuild(deps, progress);
  }

  /** undefined once the index is complete */
  get building(): RebuildProgress | undefined {
    return this.progress && { ...this.progress };
  }

  /** Starts the rebuild in the background (nothing to do when complete). */
  start(): void {
    if (!this.progress || this.running) return;
    this.running = this.run().catch((err: Error) => this.deps.warn('address index rebuild stopped', { error: err.message }));
  }

  /** Resolves when the rebuild has run to its end (or stopped). */
  async finished(): Promise<void> {
    await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async run(): Promise<void> {
    const { chain, db, log } = this.deps;
    const progress = this.progress!;
    log('rebuilding the address index for this datadir (ots_search* answer once it is done)', { from: progress.next, to: progress.end });
    let lastLog = Date.now();
    while (progress.next <= progress.end) {
      if (this.stopped) return;
      const block = await chain.getBlockByNumber(progress.next);
      if (block && block.transactions.length > 0) await chain.indexStoredBlock(block, await this.touched(block));
      progress.next++;
      if (progress.next % MARK_EVERY === 0n) await db.put(keys.addressIndexState, encodeProgress(progress));
      if (Date.now() - lastLog >= LOG_EVERY_MS) {
        lastLog = Date.now();
        log('rebuilding the address index', { block: progress.next - 1n, of: progress.end });
      }
    }
    await db.put(keys.addressIndexState, RLP.encode([]));
    this.progress = undefined;
    log('address index complete', { blocks: progress.end });
  }

  private async touched(block: Block): Promise<TouchedAddresses> {
    const receipts = (await this.deps.chain.getReceipts(block.hash)) ?? [];
    const frames = await this.deps.replay(block);
    return touchedOf(block, receipts.map((r, i) => ({ ...r, touched: frames[i] })));
  }
}

function encodeProgress(p: RebuildProgress): Uint8Array {
  return RLP.encode([bigintToBytes(p.next), bigintToBytes(p.end)]);
}
