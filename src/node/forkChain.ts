// A fork datadir opened or made (docs/fork-mode.md#a-fork-is-a-datadir): its record and anchor
// block in the chain database, its cache, and the ForkRuntime that serves its state and history.
// Used by the node, `import` and `export`, as openChainCore is.

import path from 'node:path';
import type { Config } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import { bytesToHex } from '../encoding/hex.js';
import type { Logger } from '../log.js';
import type { Database } from '../store/database.js';
import { keys } from '../store/schema.js';
import type { Block } from '../chain/types.js';
import { blockFromParts } from '../chain/block.js';
import { TrieNodeStore } from '../state/trieNodeStore.js';
import { forkBaseRoot } from '../state/forkTrie.js';
import { Blockchain } from '../blockchain/blockchain.js';
import { chainRulesOps, type DatadirRules } from '../blockchain/chainRules.js';
import { ForkCache } from '../fork/forkCache.js';
import { decodeForkRecord, encodeForkRecord, type ForkRecord } from '../fork/forkRecord.js';
import { ForkRuntime, type UpstreamOptions } from '../fork/forkRuntime.js';
import { startFork, type ForkRequest, type ForkStart } from '../fork/forkStart.js';
import { forkRecords, readForkRecord, type ForkPreamble } from '../chainFile/forkFile.js';
import type { ForkExport } from '../chainFile/exportChain.js';
import { ChainFileError } from '../chainFile/chainFileError.js';
import { POW_NAMES, type PowName } from '../consensus/powNames.js';
import { parseHeaders } from '../fork/transport.js';
import { displayUrl } from '../fork/transport.js';

/** A fork datadir, open. */
export interface OpenFork {
  runtime: ForkRuntime;
  chain: Blockchain;
  /** made in this run (its first local block, funding the dev accounts, is still to be sealed) */
  created: boolean;
}

/** How this run reaches the upstream (flags only: headers may be secrets and are never stored). */
export function upstreamOptions(config: Config, log?: Logger): UpstreamOptions {
  let headers: [string, string][];
  try {
    headers = parseHeaders(config.fork.header);
  } catch (err) {
    throw new ConfigError(`invalid config value for fork.header: ${(err as Error).message}`);
  }
  return {
    headers, retries: config.fork.retries, timeoutMs: config.fork.timeout,
    onFailure: log && ((reason) => log.warn('fork upstream request failed', { reason })),
  };
}

export const defaultCacheDir = (config: Config): string => path.resolve(config.fork.cache ?? path.join(config.datadir, 'forkcache'));

/** What `--fork.url` asks for, for a new fork. */
export function forkRequest(config: Config, log?: Logger): ForkRequest {
  const given = config.given ?? new Set<string>();
  return {
    url: config.fork.url!,
    block: config.fork.block,
    options: upstreamOptions(config, log),
    cacheDir: defaultCacheDir(config),
    difficulty: config.genesis.difficulty,
    chainId: given.has('chain.chainId') ? config.chain.chainId : undefined,
    networkId: given.has('chain.networkId') ? config.chain.networkId : undefined,
  };
}

/** The rules of a fork's local blocks: dev controls on, the configured proof of work and classic transactions. */
export function forkRules(config: Config): DatadirRules {
  return { devControls: true, pow: config.chain.pow, classicTxBlock: config.genesis.classicTxBlock };
}

/** The fork block as the chain stores it: its header under the upstream's hash, no body. */
export function anchorBlock(header: Block['header'], hash: Uint8Array): Block {
  return { ...blockFromParts(header, []), hash };
}

/**
 * The fork a datadir holds, or makes one in a fresh datadir when `--fork.url` is given (`start`:
 * already fetched before the database was opened). undefined: not a fork datadir.
 */
export async function openFork(config: Config, db: Database, log: Logger, start?: ForkStart): Promise<OpenFork | undefined> {
  const stored = await db.get(keys.fork);
  if (stored) {
    const found = await reopen(config, db, log, decodeForkRecord(stored));
    await start?.cache.close();
    return found;
  }
  if (!config.fork.url && !start) return undefined;
  if (await db.get(keys.head)) {
    await start?.cache.close();
    throw new ConfigError(`${config.datadir} holds a chain that is not a fork; fork into a fresh --datadir`);
  }
  return create(db, log, start ?? (await startFork(forkRequest(config, log))), config);
}

async function create(db: Database, log: Logger, start: ForkStart, config: Config): Promise<OpenFork> {
  const { record, anchor } = start;
  const nodes = new TrieNodeStore(db);
  const baseRoot = await forkBaseRoot(nodes, record.hash);
  const chain = await Blockchain.createFork(db, anchorBlock(anchor.block.header, anchor.block.hash), anchor.totalDifficulty, [
    ...nodes.drainWrites(),
    { type: 'put', key: keys.fork, value: encodeForkRecord(record) },
    ...chainRulesOps(forkRules(config)),
  ]);
  log.info('forked', { upstream: record.url ? displayUrl(record.url) : 'none', block: record.number, hash: bytesToHex(record.hash), chainId: record.chainId });
  const runtime = new ForkRuntime(start.cache, record, baseRoot, upstreamOptions(config, log), start.upstream);
  return { runtime, chain, created: true };
}

async function reopen(config: Config, db: Database, log: Logger, record: ForkRecord): Promise<OpenFork> {
  if (config.fork.block !== undefined && config.fork.block >= 0n && config.fork.block !== record.number) {
    throw new ConfigError(`${config.datadir} is a fork of block ${record.number}; a fork of block ${config.fork.block} needs a fresh --datadir (or anvil_reset with forking)`);
  }
  let current = record;
  // Another URL for the same upstream (another endpoint, a restarted container): checked against the fork block on first use.
  if (config.fork.url && config.fork.url !== record.url) {
    current = { ...record, url: config.fork.url, dialect: undefined };
    await db.put(keys.fork, encodeForkRecord(current));
    log.info('fork upstream set', { upstream: displayUrl(config.fork.url), was: record.url ? displayUrl(record.url) : 'none' });
  }
  const cacheDir = config.fork.cache !== undefined ? defaultCacheDir(config) : record.cacheDir;
  const cache = await ForkCache.open(cacheDir);
  const chain = await Blockchain.open(db);
  if (!chain) {
    await cache.close();
    throw new ConfigError(`${config.datadir} is damaged: it records a fork but holds no chain`);
  }
  const baseRoot = await forkBaseRoot(TrieNodeStore.scratchOver(new TrieNodeStore(db)), record.hash);
  return { runtime: new ForkRuntime(cache, current, baseRoot, upstreamOptions(config, log)), chain, created: false };
}

/** BLOCKHASH reaches 256 blocks back: the hashes below the fork block an export carries. */
const BLOCKHASH_WINDOW = 256n;

/** A fork's export: its fork block, chain and base state before its blocks (chainFile/forkFile.ts). */
export function forkExport(fork: OpenFork, rules: DatadirRules): ForkExport {
  const { runtime, chain } = fork;
  return {
    get number() {
      return runtime.record.number;
    },
    async *records() {
      const r = runtime.record;
      const anchor = chain.genesis;
      yield* forkRecords({
        head: {
          number: r.number, hash: r.hash, header: anchor.header, totalDifficulty: (await chain.getTotalDifficulty(anchor.hash)) ?? 0n,
          chainId: r.chainId, networkId: r.networkId, difficulty: r.difficulty, pow: rules.pow, classicTxBlock: rules.classicTxBlock,
        },
        hashes: () => runtime.cache.canonicalRange(r.hash, r.number > BLOCKHASH_WINDOW ? r.number - BLOCKHASH_WINDOW : 0n, r.number),
        base: () => runtime.cache.baseState(r.hash),
      });
    },
  };
}

/** The config an import of a fork file runs with: the file's proof of work and classic-transaction rule. */
export function configForForkFile(config: Config, preamble: ForkPreamble): Config {
  if (!(POW_NAMES as readonly string[]).includes(preamble.head.pow)) throw new ConfigError(`the file's fork names an unknown proof of work "${preamble.head.pow}"`);
  return {
    ...config,
    chain: { ...config.chain, pow: preamble.head.pow as PowName },
    genesis: { ...config.genesis, classicTxBlock: preamble.head.classicTxBlock },
  };
}

/** A new fork made from a fork file's records (no upstream asked; `--fork.url` gives it one for what the file lacks). */
export async function forkStartFromFile(config: Config, preamble: ForkPreamble): Promise<ForkStart> {
  const { head } = preamble;
  const cacheDir = defaultCacheDir(config);
  const cache = await ForkCache.open(cacheDir);
  await cache.putBase(head.hash, preamble.base);
  for (const [n, hash] of preamble.hashes) await cache.putCanonical(head.hash, n, hash);
  const record: ForkRecord = {
    url: config.fork.url, dialect: undefined, number: head.number, hash: head.hash, stateRoot: head.header.stateRoot,
    chainId: head.chainId, networkId: head.networkId, difficulty: head.difficulty, cacheDir,
  };
  return { record, anchor: { block: anchorBlock(head.header, head.hash), totalDifficulty: head.totalDifficulty }, cache };
}

/** Reads a fork file's records into an open fork's cache; a file of another fork block is refused. */
export function forkRecordsInto(runtime: ForkRuntime): (item: Uint8Array) => Promise<void> {
  const into: Partial<ForkPreamble> = {};
  let written = 0;
  let hashes = 0;
  return async (item) => {
    readForkRecord(item, into);
    const head = into.head!;
    const r = runtime.record;
    if (head.number !== r.number || !(head.hash.length === r.hash.length && head.hash.every((b, i) => b === r.hash[i]))) {
      throw new ChainFileError(`the file is a fork of block ${head.number} ${bytesToHex(head.hash)}; this datadir forks block ${r.number} ${bytesToHex(r.hash)}`);
    }
    await runtime.cache.putBase(r.hash, into.base!.slice(written));
    written = into.base!.length;
    for (const [n, hash] of into.hashes!.slice(hashes)) await runtime.cache.putCanonical(r.hash, n, hash);
    hashes = into.hashes!.length;
  };
}
