// A soak run: a real node under mixed traffic (traffic.ts) for a while, sampled every 10 s from
// its Prometheus endpoint (resident memory, event-loop delay p99, open handles, heap), then
// judged: memory flat after warm-up (growth ≤ 10%), event loop responsive (p99 < 100 ms), handles
// not piling up, no unexpected error, nothing alarming in the log, abandoned filters expired.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readMetric, startNodeProcess, troubleIn, type NodeProcess } from '../lib/nodeProcess.js';
import { rpc, sleep } from '../lib/rpcClient.js';
import { ChainDriver } from '../crash/chainDriver.js';
import { describeMemoryMap, memoryMap, type MemoryMap } from '../lib/smaps.js';
import { deployLogger, startTraffic, type TrafficStats } from './traffic.js';

export const SOAK_APP_CHAIN = '0x57b7b8225bcb5d4c6c5abbe2e44fa67998cfa791';
export const MAX_RSS_GROWTH = 0.1;
export const MAX_LOOP_P99_MS = 100;
/**
 * Live V8 heap after a full collection that a healthy node stays under: its caches are bounded
 * (trie nodes, blocks, receipts, hashes: about 100 MB at most, mostly trie nodes).
 */
export const MAX_LIVE_HEAP_MB = 256;
/** filters.timeout of the soak node: abandoned filters must be gone this long after their last poll */
const FILTER_TIMEOUT_S = 30;

export interface SoakOptions {
  seconds: number;
  seed: number;
  sampleEverySeconds?: number;
  warmupSeconds?: number;
  /** flags for the node binary (diagnosis: --heapsnapshot-signal=SIGUSR2, --cpu-prof) */
  nodeFlags?: string[];
  /**
   * Judge resident-memory growth (default true). A one-minute slice ends while the caches are
   * still filling, so it leaves RSS to the full run and watches the live heap instead.
   */
  judgeRss?: boolean;
  /** judge the event-loop delay (false in the CI slice: a busy machine's timing is no verdict on the node) */
  judgeLoop?: boolean;
  log?: (line: string) => void;
}

export interface Sample {
  t: number;
  rss: number;
  heap: number;
  heapTotal: number;
  external: number;
  /** V8 new space (young generation) and old space reserved, bytes */
  newSpace: number;
  oldSpace: number;
  /** where the resident memory lives (malloc, mapped tables, …), when /proc can tell */
  map?: MemoryMap;
  /** node process CPU seconds so far (user + system) */
  cpuSeconds: number;
  /** MB live after the last full collection of the window (from --trace-gc), NaN when none ran */
  liveMb: number;
  handles: number;
  p99Ms: number;
  maxDelayMs: number;
  head: number;
  calls: number;
}

export interface SoakResult {
  samples: Sample[];
  traffic: TrafficStats;
  baselineRss: number;
  finalRss: number;
  rssGrowth: number;
  /** the highest RSS sampled after warm-up */
  peakRss: number;
  /** node CPU (user + system) per call after warm-up, ms */
  cpuMsPerCall: number;
  rssJudged: boolean;
  worstP99Ms: number;
  /** the largest live heap after a full collection, MB */
  maxLiveMb: number;
  baselineHandles: number;
  finalHandles: number;
  /** abandoned filters checked gone after the filter timeout */
  expiredFilters: number;
  problems: string[];
  seconds: number;
}

/**
 * The live heap after full collections in --trace-gc output ("Mark-Compact 120 (150) -> 60 (152) MB"):
 * the largest of the window, since the sealer's worker threads print their own small heaps too.
 */
function cpuSecondsOf(node: NodeProcess): number {
  const t = node.cpuTimes();
  return t ? t.user + t.system : NaN;
}

function lastLiveHeap(text: string): number {
  const all = [...text.matchAll(/Mark-Compact[^>]*-> ([\d.]+) \(/g)].map((m) => Number(m[1]));
  return all.length ? Math.max(...all) : NaN;
}


export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const log = o.log ?? (() => undefined);
  const every = (o.sampleEverySeconds ?? 10) * 1000;
  // The bounded caches (trie nodes above all) fill during the first minutes under this traffic.
  const warmup = (o.warmupSeconds ?? Math.max(20, Math.round(o.seconds / 3))) * 1000;
  const datadir = mkdtempSync(path.join(os.tmpdir(), 'mcnode-soak-'));
  const node = await startNodeProcess(datadir, {
    // --trace-gc shows the live heap after each full collection: the truest leak signal.
    nodeFlags: ['--trace-gc', ...(o.nodeFlags ?? [])],
    args: ['--metrics', '--filters.timeout', String(FILTER_TIMEOUT_S), '--verbosity', '2', '--appChains', JSON.stringify([{ address: SOAK_APP_CHAIN, flushRound: 100_000 }])],
  });
  const ep = { http: node.http!, scs: node.scs! };
  const problems: string[] = [];
  const samples: Sample[] = [];
  let expired = 0;
  const started = performance.now();
  let traffic: ReturnType<typeof startTraffic> | undefined;
  try {
    const driver = new ChainDriver(SOAK_APP_CHAIN, 6);
    await driver.resync(ep);
    const logger = await deployLogger(ep, driver);
    await driver.resync(ep);
    log(`soak: ${o.seconds} s of mixed traffic against node pid ${node.pid} (warm-up ${warmup / 1000} s, a sample every ${every / 1000} s)`);
    traffic = startTraffic(ep, driver, logger, o.seed);
    let gcSeen = node.stdout().length;
    const end = started + o.seconds * 1000;
    while (performance.now() < end && node.alive()) {
      await sleep(Math.min(every, Math.max(0, end - performance.now())));
      const text = await (await fetch(node.metrics!)).text().catch(() => '');
      const sample: Sample = {
        t: Math.round((performance.now() - started) / 1000),
        rss: node.rss() ?? readMetric(text, 'process_resident_memory_bytes'),
        heap: readMetric(text, 'nodejs_heap_size_used_bytes'),
        heapTotal: readMetric(text, 'nodejs_heap_size_total_bytes'),
        external: readMetric(text, 'nodejs_external_memory_bytes'),
        newSpace: readMetric(text, 'nodejs_heap_space_size_total_bytes{space="new"}'),
        oldSpace: readMetric(text, 'nodejs_heap_space_size_total_bytes{space="old"}'),
        cpuSeconds: cpuSecondsOf(node),
        map: memoryMap(node.pid),
        liveMb: lastLiveHeap(node.stdout().slice(gcSeen)),
        handles: readMetric(text, 'nodejs_active_handles'),
        p99Ms: readMetric(text, 'nodejs_eventloop_delay_p99_seconds') * 1000,
        maxDelayMs: readMetric(text, 'nodejs_eventloop_delay_max_seconds') * 1000,
        head: readMetric(text, 'mcnode_chain_head_block'),
        calls: traffic.stats.calls,
      };
      gcSeen = node.stdout().length;
      samples.push(sample);
      log(
        `  t=${sample.t}s rss ${(sample.rss / 2 ** 20).toFixed(1)} MiB heap ${(sample.heap / 2 ** 20).toFixed(1)}/${(sample.heapTotal / 2 ** 20).toFixed(1)} MiB ` +
          `(new ${(sample.newSpace / 2 ** 20).toFixed(1)} old ${(sample.oldSpace / 2 ** 20).toFixed(1)}) external ${(sample.external / 2 ** 20).toFixed(1)} MiB live ${sample.liveMb.toFixed(1)} MB handles ${sample.handles} ` +
          `loop p99 ${sample.p99Ms.toFixed(1)} ms (max ${sample.maxDelayMs.toFixed(1)}) head #${sample.head} calls ${sample.calls}` +
          (sample.map ? `\n    ${describeMemoryMap(sample.map)}` : ''),
      );
    }
    await traffic.stop();
    if (!node.alive()) problems.push('the node died');
    else if ((await rpc(ep.http, 'mc_blockNumber', [], 10_000).catch(() => undefined)) === undefined) problems.push('the node stopped answering');
    if (traffic.stats.unexpected > 0) problems.push(`${traffic.stats.unexpected} unexpected failures: ${traffic.stats.unexpectedSamples.slice(0, 5).join('; ')}`);
    for (const line of troubleIn(node.stderr())) problems.push(`node log: ${line}`);
    // Filters abandoned long enough ago must have been removed by the node (bounded filter table).
    const due = traffic.stats.abandoned.filter((f) => performance.now() - f.at > (FILTER_TIMEOUT_S + 10) * 1000);
    let lingering = 0;
    for (const f of due) if ((await rpc(ep.http, 'mc_uninstallFilter', [f.id]).catch(() => undefined)) !== false) lingering++;
    if (lingering > 0) problems.push(`${lingering} of ${due.length} abandoned filters still installed after ${FILTER_TIMEOUT_S} s`);
    expired = due.length;

    const judged = samples.filter((s) => s.t * 1000 >= warmup);
    const third = Math.max(1, Math.floor(judged.length / 3));
    const first = judged.slice(0, third);
    const last = judged.slice(-third);
    // The lowest reading of a window is the level after collection: what a leak would raise.
    const baselineRss = Math.min(...first.map((s) => s.rss));
    const finalRss = Math.min(...last.map((s) => s.rss));
    const rssGrowth = finalRss / baselineRss - 1;
    const peakRss = Math.max(...judged.map((s) => s.rss));
    const from = judged[0];
    const to = judged[judged.length - 1];
    const cpuMsPerCall = from && to && to.calls > from.calls ? ((to.cpuSeconds - from.cpuSeconds) * 1000) / (to.calls - from.calls) : NaN;
    const worstP99Ms = Math.max(...judged.map((s) => s.p99Ms));
    const maxLiveMb = Math.max(...samples.map((s) => s.liveMb).filter((v) => !Number.isNaN(v)));
    if (!(maxLiveMb <= MAX_LIVE_HEAP_MB)) problems.push(`live heap reached ${maxLiveMb} MB after a full collection (bound ${MAX_LIVE_HEAP_MB} MB)`);
    const baselineHandles = Math.max(...first.map((s) => s.handles));
    const finalHandles = Math.max(...last.map((s) => s.handles));
    if (judged.length < 2) problems.push(`only ${judged.length} samples after warm-up`);
    const rssJudged = o.judgeRss ?? true;
    if (rssJudged && !(rssGrowth <= MAX_RSS_GROWTH)) problems.push(`resident memory grew ${(rssGrowth * 100).toFixed(1)}% after warm-up (limit ${MAX_RSS_GROWTH * 100}%)`);
    if ((o.judgeLoop ?? true) && !(worstP99Ms < MAX_LOOP_P99_MS)) problems.push(`event-loop delay p99 reached ${worstP99Ms.toFixed(1)} ms (limit ${MAX_LOOP_P99_MS} ms)`);
    if (!(finalHandles <= baselineHandles * 1.5 + 20)) problems.push(`open handles grew from ${baselineHandles} to ${finalHandles}`);
    return {
      samples, traffic: traffic.stats, baselineRss, finalRss, rssGrowth, peakRss, cpuMsPerCall, rssJudged, worstP99Ms, maxLiveMb, baselineHandles, finalHandles, expiredFilters: expired, problems,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    // A run that failed half-way (the node died, a sample failed) stops its traffic too, or its
    // timers would keep this process alive.
    await traffic?.stop().catch(() => undefined);
    await node.stop();
    rmSync(datadir, { recursive: true, force: true });
  }
}

export function describeSoak(r: SoakResult): string {
  const mib = (b: number) => (b / 2 ** 20).toFixed(1);
  return [
    `soak: ${r.seconds.toFixed(0)} s, ${r.traffic.calls} calls, ${r.traffic.txs} main-chain and ${r.traffic.appTxs} app-chain transactions, ` +
      `${r.traffic.filtersCreated} filters (${r.traffic.filtersAbandoned} abandoned, ${r.expiredFilters} checked expired), ${r.traffic.unexpected} unexpected failures`,
    `  RSS after warm-up ${mib(r.baselineRss)} MiB → ${mib(r.finalRss)} MiB (${(r.rssGrowth * 100).toFixed(1)}%, ${r.rssJudged ? `limit ${MAX_RSS_GROWTH * 100}%` : 'not judged in a slice'}); ` +
      `worst event-loop p99 ${r.worstP99Ms.toFixed(1)} ms (limit ${MAX_LOOP_P99_MS} ms); largest live heap ${r.maxLiveMb} MB (bound ${MAX_LIVE_HEAP_MB} MB); ` +
      `open handles ${r.baselineHandles} → ${r.finalHandles}`,
    `  after warm-up: highest RSS ${mib(r.peakRss)} MiB; node CPU ${r.cpuMsPerCall.toFixed(3)} ms per call`,
    ...r.problems.map((p) => `  PROBLEM ${p}`),
    r.problems.length === 0 ? 'soak: PASS' : 'soak: FAIL',
  ].join('\n');
}
