// What the node exposes to Prometheus: chain head, pool sizes, hash rate, RPC calls and
// latencies by method, the call interpreter's counters, database size, process health (memory,
// handles, event-loop delay). Each value is read from its component when scraped.

import { MetricsRegistry, type RpcStats } from './registry.js';
import { cachedDirSize } from './dirSize.js';
import { addProcessMetrics, watchLoopDelay, type LoopDelay } from './processMetrics.js';
import type { CallCounters } from '../execution/callMonitor.js';

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
  /** what the HTTP fast path did, over every HTTP endpoint */
  httpFastPath: { readonly requests: number; readonly handOvers: number };
  /** the call interpreter's counters (execution/callMonitor.ts) */
  calls?: () => CallCounters;
  /** event-loop delay windows (default: started here) */
  loop?: LoopDelay;
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
  const counter = (name: string, help: string, read: () => number) => registry.add({ name, help, type: 'counter', samples: () => [{ value: read() }] });
  counter(`${p}_http_fastpath_requests_total`, 'HTTP JSON-RPC requests answered by the fast path (node:http answers the rest)', () => src.httpFastPath.requests);
  counter(`${p}_http_fastpath_handovers_total`, 'HTTP connections the fast path handed to node:http', () => src.httpFastPath.handOvers);
  const calls = src.calls;
  if (calls) {
    counter(`${p}_fastcall_calls_total`, 'Messages (mc_call, mc_estimateGas runs) started on the call interpreter', () => calls().calls);
    counter(`${p}_fastcall_fallbacks_total`, 'Messages the call interpreter handed to the library EVM (something it does not implement)', () => calls().fallbacks);
    counter(`${p}_fastcall_faults_total`, 'Messages the call interpreter failed on with an exception (the library EVM answered)', () => calls().faults);
    counter(`${p}_fastcall_verified_total`, 'Call interpreter answers compared with the library EVM (rpc.fastCallVerify)', () => calls().verified);
    counter(`${p}_fastcall_disagreements_total`, 'Compared answers where the call interpreter and the library EVM differed', () => calls().disagreements);
  }
  addProcessMetrics(registry, src.loop ?? watchLoopDelay());
  for (const family of src.rpc.families(p)) registry.add(family);
  return registry;
}
