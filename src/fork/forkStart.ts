// Making a new fork (docs/fork-mode.md#starting-a-fork): find the upstream's dialect, chain ids
// and the fork block, and fetch that block. A fork of a block the cache already knows (the same
// upstream and an explicit block number) asks the upstream nothing. Nothing is written before the
// upstream has answered all of it: a fresh cache directory is made only then.

import { existsSync } from 'node:fs';
import { ConfigError, NodeError } from '../errors.js';
import { ForkCache, type CachedBlock, type UpstreamIdentity } from './forkCache.js';
import type { ForkRecord } from './forkRecord.js';
import type { UpstreamOptions } from './forkRuntime.js';
import { UpstreamClient } from './upstreamClient.js';
import { displayUrl } from './transport.js';
import { Upstream, detectDialect } from './upstream.js';

/** How far below the upstream's head a fork starts by default: a short reorganisation there cannot move the base. */
export const DEFAULT_DEPTH = 5n;

export interface ForkRequest {
  url: string;
  /** the fork block; negative: that many below the upstream's head; undefined: DEFAULT_DEPTH below it */
  block: bigint | undefined;
  options: UpstreamOptions;
  cacheDir: string;
  /** local blocks' difficulty */
  difficulty: bigint;
  /** given by the user: they win over the upstream's */
  chainId?: bigint;
  networkId?: bigint;
}

export interface ForkStart {
  record: ForkRecord;
  anchor: CachedBlock;
  cache: ForkCache;
  /** connected and checked; undefined when everything came from the cache */
  upstream?: Upstream;
}

/**
 * The fork a request names, or a ConfigError saying why it cannot be made. `open`: the cache, when
 * the caller has it open already (a re-fork); it stays open whatever happens.
 */
export async function startFork(req: ForkRequest, open?: ForkCache): Promise<ForkStart> {
  let cache = open ?? (existsSync(req.cacheDir) ? await ForkCache.open(req.cacheDir) : undefined);
  try {
    const known = cache && (await fromCache(cache, req));
    if (known) return { ...known, cache: cache! };
    const fetched = await fromUpstream(req);
    cache ??= await ForkCache.open(req.cacheDir);
    await cache.putIdentity(req.url, fetched.identity);
    await cache.putNumbered(req.url, fetched.anchor.block.header.number, fetched.anchor.block.hash);
    await cache.putBlock(fetched.anchor.block.hash, fetched.anchor);
    return { record: recordOf(req, fetched.identity, fetched.anchor), anchor: fetched.anchor, cache, upstream: fetched.upstream };
  } catch (err) {
    if (cache !== open) await cache?.close();
    if (err instanceof NodeError) throw new ConfigError(`cannot fork ${displayUrl(req.url)}: ${err.message}`);
    throw err;
  }
}

function recordOf(req: ForkRequest, id: UpstreamIdentity, anchor: CachedBlock): ForkRecord {
  const { header, hash } = anchor.block;
  return {
    url: req.url, dialect: id.dialect, number: header.number, hash, stateRoot: header.stateRoot,
    chainId: req.chainId ?? id.chainId, networkId: req.networkId ?? id.networkId, difficulty: req.difficulty, cacheDir: req.cacheDir,
  };
}

/** A fork of an explicit block of an upstream the cache has seen: no request at all. */
async function fromCache(cache: ForkCache, req: ForkRequest): Promise<Omit<ForkStart, 'cache'> | undefined> {
  if (req.block === undefined || req.block < 0n) return undefined;
  const identity = await cache.identity(req.url);
  const hash = identity && (await cache.numbered(req.url, req.block));
  const anchor = hash && (await cache.block(hash));
  if (!identity || !anchor) return undefined;
  return { record: recordOf(req, identity, anchor), anchor };
}

async function fromUpstream(req: ForkRequest): Promise<{ identity: UpstreamIdentity; anchor: CachedBlock; upstream: Upstream }> {
  const client = new UpstreamClient(req.url, req.options);
  try {
    const dialect = await detectDialect(client);
    const upstream = new Upstream(client, dialect);
    const [head, chainId, networkId] = await Promise.all([upstream.blockNumber(), upstream.chainId(), upstream.networkId()]);
    const number = req.block === undefined ? head - DEFAULT_DEPTH : req.block < 0n ? head + req.block : req.block;
    if (number < 0n) throw new ConfigError(`cannot fork ${client.shownUrl} at block ${number}: its head is #${head}`);
    if (number > head) throw new ConfigError(`cannot fork ${client.shownUrl} at block ${number}: its head is #${head}`);
    const anchor = await upstream.blockByNumber(number, true);
    if (!anchor) throw new ConfigError(`cannot fork ${client.shownUrl}: it has no block ${number}`);
    return { identity: { dialect, chainId, networkId }, anchor, upstream };
  } catch (err) {
    client.close();
    throw err;
  }
}
