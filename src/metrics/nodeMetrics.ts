// What the node exposes to Prometheus: chain head, pool sizes, hash rate, RPC calls and
// latencies by method, database size, process health (memory, handles, event-loop delay). Each value is read from its component when scraped.

import { MetricsRegistry, type RpcStats } from './registry.js';
import { cachedDirSize } from './dirSize.js';
import { addProcessMetrics, watchLoopDelay, type LoopDelay } from './processMetrics.js';

export interface NodeMetricSources {
  version: string;
  headNumber: () => bigint;
  poolCounts: () => { pending: number; queued: number };
  /** local proof-of-work hashes per second */
  hashrate: () => number;
  mining: () => boolean;
  /** the chain database directory */
  chaindata: string;
  rpc: RpcStats;
  /** event-loop delay windows (default: started here) */
  loop?: LoopDelay;
  /** a fork's upstream requests and cache reads (docs/fork-mode.md#faults-and-metrics) */
  fork?: { requests: () => number; hits: () => number; misses: () => number };
}

export const METRIC_PREFIX = 'mcnode';

export function nodeMetrics(src: NodeMetricSources): MetricsRegistry {
  const p = METRIC_PREFIX;
  const dbSize = cachedDirSize(src.chaindata);
  const registry = new MetricsRegistry()
    .add({ name: `${p}_info`, help: 'Build information (always 1)', type: 'gauge', samples: () => [{ labels: { version: src.version }, value: 1 }] })
    .gauge(`${p}_chain_head_block`, 'Number of the head block', () => Number(src.headNumber()))
    .gauge(`${p}_txpool_pending`, 'Executable transactions in the pool', () => src.poolCounts().pending)
    .gauge(`${p}_txpool_queued`, 'Transactions in the pool waiting behind a nonce gap', () => src.poolCounts().queued)
    .gauge(`${p}_miner_hashrate`, 'Local proof-of-work hashes per second', () => Math.round(src.hashrate()))
    .gauge(`${p}_miner_mining`, '1 while local workers seal blocks', () => (src.mining() ? 1 : 0))
    .gauge(`${p}_db_size_bytes`, 'Size of the chain database directory (refreshed every 5 s)', dbSize);
  const { fork } = src;
  if (fork) {
    const counter = (name: string, help: string, read: () => number) => registry.add({ name, help, type: 'counter', samples: () => [{ value: read() }] });
    counter(`${p}_fork_upstream_requests_total`, 'Requests sent to the fork\'s upstream (a batch counts once, each retry too)', fork.requests);
    counter(`${p}_fork_cache_hits_total`, 'Fork reads (state, blocks, logs) the fork cache answered', fork.hits);
    counter(`${p}_fork_cache_misses_total`, 'Fork reads that asked the upstream', fork.misses);
  }
  addProcessMetrics(registry, src.loop ?? watchLoopDelay());
  for (const family of src.rpc.families(p)) registry.add(family);
  return registry;
}
