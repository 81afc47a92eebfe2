// The upstream's chain at and below the fork block (docs/fork-mode.md#history): block hashes,
// blocks, receipts, transaction lookups and log queries, fetched when asked for and kept in the
// fork cache. Only the canonical chain as the fork block sees it belongs to the fork: a block is
// served when the upstream's block at its number, as cached for this fork, has its hash. What the
// upstream does not have at or below the fork block is remembered (in memory) as not there, so a
// client polling for a receipt asks the upstream once.

import { SharedFetches } from './sharedFetches.js';
import { RLP } from '@ethereumjs/rlp';
import type { Block, Header, Log, Receipt } from '../chain/types.js';
import { bigintToBytes, bytesToBigint, equalBytes } from '../encoding/bytes.js';
import { Lru } from '../store/lru.js';
import type { CachedBlock, ForkCache } from './forkCache.js';
import type { BlockRef } from './forkSource.js';
import { forkUnavailable } from './upstreamClient.js';
import type { Upstream, UpstreamLogFilter } from './upstream.js';

/** A log of the upstream with its place (the shape filters/logQuery.ts calls a LogEntry). */
export interface HistoryLog {
  log: Log;
  at: { blockHash: Uint8Array; blockNumber: bigint; index: number; txHash: Uint8Array; logIndex: number };
}

/** Hashes the upstream does not have at or below the fork block, remembered per run. */
const ABSENT_ENTRIES = 10_000;

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

function encodeLogs(logs: HistoryLog[]): Uint8Array {
  return RLP.encode(logs.map(({ log, at }) => [
    log.address, log.topics, log.data, at.blockHash, bigintToBytes(at.blockNumber), bigintToBytes(BigInt(at.index)), at.txHash, bigintToBytes(BigInt(at.logIndex)),
  ]));
}

function decodeLogs(bytes: Uint8Array): HistoryLog[] {
  return (RLP.decode(bytes) as unknown as Uint8Array[][]).map((f) => ({
    log: { address: f[0], topics: f[1] as unknown as Uint8Array[], data: f[2] },
    at: { blockHash: f[3], blockNumber: bytesToBigint(f[4]), index: Number(bytesToBigint(f[5])), txHash: f[6], logIndex: Number(bytesToBigint(f[7])) },
  }));
}

export class ForkHistory {
  private readonly fetches = new SharedFetches();
  private readonly absent = new Lru<string, true>(ABSENT_ENTRIES);

  constructor(
    private readonly cache: ForkCache,
    private readonly upstream: () => Promise<Upstream>,
    /** the fork block (it changes with a re-fork) */
    private readonly anchor: () => BlockRef,
    /** each upstream header served: its state root then reads that block's state */
    private readonly onHeader: (header: Header, hash: Uint8Array) => void,
    private readonly counters: { hits: number; misses: number },
  ) {}

  /** The highest block the history serves: the fork block. */
  get forkNumber(): bigint {
    return this.anchor().number;
  }


  async hashByNumber(n: bigint): Promise<Uint8Array | undefined> {
    const anchor = this.anchor();
    if (n > anchor.number || n < 0n) return undefined;
    if (n === anchor.number) return anchor.hash;
    const cached = await this.cache.canonical(anchor.hash, n);
    if (cached !== undefined) {
      this.counters.hits++;
      return cached;
    }
    return this.fetches.once(`n${hex(anchor.hash)}${n}`, async () => {
      this.counters.misses++;
      const found = await (await this.upstream()).headerByNumber(n);
      if (!found) throw forkUnavailable(`the upstream has no block ${n}, below the fork block ${anchor.number}`);
      await this.cache.putCanonical(anchor.hash, n, found.hash);
      this.onHeader(found.header, found.hash);
      return found.hash;
    });
  }

  /** A block of the fork's history with its total difficulty, or undefined when it is not one. */
  async block(hash: Uint8Array): Promise<CachedBlock | undefined> {
    const key = hex(hash);
    if (this.absent.get(key)) return undefined;
    let found = await this.cache.block(hash);
    const fetched = found === undefined;
    if (found !== undefined) {
      this.counters.hits++;
    } else {
      found = await this.fetches.once(`b${key}`, async () => {
        this.counters.misses++;
        return (await (await this.upstream()).blockByHash(hash)) ?? undefined;
      });
    }
    const canonical = found && (await this.hashByNumber(found.block.header.number));
    if (!found || !canonical || !equalBytes(canonical, hash)) {
      this.absent.set(key, true);
      return undefined;
    }
    // Kept (with its transactions' lookups) once known to belong to the fork.
    if (fetched) await this.cache.putBlock(this.anchor().hash, found);
    this.onHeader(found.block.header, found.block.hash);
    return found;
  }

  async blockByNumber(n: bigint): Promise<CachedBlock | undefined> {
    const hash = await this.hashByNumber(n);
    return hash && this.block(hash);
  }

  async receipts(hash: Uint8Array): Promise<Receipt[] | undefined> {
    const cached = await this.cache.receipts(hash);
    if (cached !== undefined) {
      this.counters.hits++;
      return cached;
    }
    const found = await this.block(hash);
    if (!found) return undefined;
    return this.fetches.once(`r${hex(hash)}`, async () => {
      this.counters.misses++;
      const receipts = await (await this.upstream()).receipts(found.block);
      await this.cache.putReceipts(hash, receipts);
      return receipts;
    });
  }

  /** Where a transaction of the fork's history sits. */
  async findTransaction(txHash: Uint8Array): Promise<{ block: Block; index: number } | undefined> {
    const key = hex(txHash);
    if (this.absent.get(key)) return undefined;
    let location: { blockHash: Uint8Array; index: number } | undefined = await this.cache.txLocation(txHash);
    if (location === undefined) {
      location = await this.fetches.once(`t${key}`, async () => {
        this.counters.misses++;
        const at = await (await this.upstream()).transactionLocation(txHash);
        return at && at.blockNumber <= this.anchor().number ? at : undefined;
      });
    } else {
      this.counters.hits++;
    }
    const found = location && (await this.block(location.blockHash));
    if (!found || !location) {
      this.absent.set(key, true);
      return undefined;
    }
    return { block: found.block, index: location.index };
  }

  /** Logs of blocks from..to (at or below the fork block) that match the filter, in chain order. */
  async logs(filter: UpstreamLogFilter): Promise<HistoryLog[]> {
    const anchor = this.anchor();
    const query = RLP.encode([bigintToBytes(filter.fromBlock), bigintToBytes(filter.toBlock), filter.addresses, filter.topics.map((t) => t ?? [])]);
    const cached = await this.cache.logs(anchor.hash, query);
    if (cached !== undefined) {
      this.counters.hits++;
      return decodeLogs(cached);
    }
    this.counters.misses++;
    const logs: HistoryLog[] = (await (await this.upstream()).logs(filter)).map((l) => ({
      log: l.log, at: { blockHash: l.blockHash, blockNumber: l.blockNumber, index: l.txIndex, txHash: l.txHash, logIndex: l.logIndex },
    }));
    await this.cache.putLogs(anchor.hash, query, encodeLogs(logs));
    return logs;
  }
}
