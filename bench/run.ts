// `npm run bench`: JSON-RPC throughput and latency of a real node process (started on a temp
// datadir with instant mining), then the other benchmark files that exist (pow, logs).
// Figures are measured and printed next to their targets; nothing here fails on a figure.
//
// Environment: BENCH_SECONDS (10) and BENCH_CONNECTIONS (16) per read workload; BENCH_TRANSFERS
// (2000) per transfer workload (MOAC and classic); BENCH_ONLY=blockNumber,getBalance,call,getBlock,transfers,layers,startup,provider,pow,ethash,logs,reorg,subscriptions,devctl,network,explorer,scale,fork
// to run a subset; BENCH_NODE_FLAGS for the node binary (e.g. "--cpu-prof --cpu-prof-dir /tmp/prof");
// BENCH_NODE_ARGS for extra node CLI flags; BENCH_LOADGEN=js to use the JavaScript generator even when wrk is installed; BENCH_MARKS=<file> writes each workload's measured
// window (for profileSummary.ts --marks).

import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { deriveDevKeys, privateKeyToAddress } from '../src/accounts/keys.js';
import { bytesToHex } from '../src/encoding/hex.js';
import { runLoad, type BodySource, type LoadResult } from './load.js';
import { runWrk, wrkAvailable } from './wrk.js';
import { startBenchNode, type BenchNode } from './nodeProcess.js';
import { deployStore, fillLatestBlock, selector, word } from './setup.js';
import { benchTransfers, type TransferResult } from './transfers.js';

const MNEMONIC = 'test test test test test test test test test test test junk';
const WORKLOADS = ['blockNumber', 'getBalance', 'call', 'getBlock', 'transfers', 'layers', 'startup', 'provider', 'pow', 'ethash', 'mining', 'logs', 'reorg', 'subscriptions', 'devctl', 'network', 'explorer', 'scale', 'fork'] as const;
type Workload = (typeof WORKLOADS)[number];
const NODE_WORKLOADS: readonly Workload[] = ['blockNumber', 'getBalance', 'call', 'getBlock', 'transfers'];

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

function selectedWorkloads(): Set<Workload> {
  const raw = process.env.BENCH_ONLY;
  // The scale bench builds a large chain (minutes): only when named.
  if (!raw) return new Set(WORKLOADS.filter((w) => w !== 'scale'));
  const names = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const n of names) {
    if (!(WORKLOADS as readonly string[]).includes(n)) throw new Error(`BENCH_ONLY: unknown workload "${n}" (have ${WORKLOADS.join(', ')})`);
  }
  return new Set(names as Workload[]);
}

interface Row {
  label: string;
  value: number;
  unit: string;
  target: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  nodeCpu?: NodeCpu;
  clientCpu?: number;
  note?: string;
}

const FAILED = { value: NaN, p50Ms: NaN, p99Ms: NaN, errors: NaN };

const fmtInt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const fmtMs = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 1) : 'n/a');
const fmtPct = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? 'n/a' : `${Math.round(n * 100)}%`);

function printTable(rows: Row[]): void {
  const header = ['workload', 'result', 'target', 'vs target', 'p50 ms', 'p99 ms', 'errors', 'node CPU (sys)', 'bench CPU', 'per node core'];
  const lines = rows.map((r) => [
    r.label,
    `${fmtInt(r.value)} ${r.unit}`,
    `≥ ${fmtInt(r.target)} ${r.unit}`,
    Number.isFinite(r.value) ? `${Math.round((r.value / r.target) * 100)}%` : 'n/a',
    fmtMs(r.p50Ms),
    fmtMs(r.p99Ms),
    Number.isFinite(r.errors) ? String(r.errors) : 'n/a',
    r.nodeCpu ? `${fmtPct(r.nodeCpu.total)} (${fmtPct(r.nodeCpu.system)})` : 'n/a',
    fmtPct(r.clientCpu),
    r.nodeCpu ? `${fmtInt(r.value / r.nodeCpu.total)} ${r.unit}` : 'n/a',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const render = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(render(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const l of lines) console.log(render(l));
  console.log('CPU columns: share of one core over the run (node process, its kernel part in brackets; this load generator).');
  console.log('per node core: result ÷ node CPU, what one fully available core would give (less noisy on a busy machine).');
  for (const r of rows) if (r.note) console.log(`  ${r.label}: ${r.note}`);
}

interface NodeCpu {
  /** user+system share of one core */
  total: number;
  system: number;
}

/** Runs `fn` and measures the node's CPU use over it as a share of one core. */
async function withNodeCpu<T>(node: BenchNode, fn: () => Promise<T>): Promise<{ result: T; nodeCpu?: NodeCpu }> {
  const cpu0 = node.cpuTimes();
  const t0 = performance.now();
  const result = await Promise.race([node.died, fn()]);
  const cpu1 = node.cpuTimes();
  const wall = (performance.now() - t0) / 1000;
  if (cpu0 === undefined || cpu1 === undefined) return { result };
  const system = (cpu1.system - cpu0.system) / wall;
  return { result, nodeCpu: { total: (cpu1.user - cpu0.user) / wall + system, system } };
}

// Profile windows in CLOCK_MONOTONIC microseconds, the clock V8's .cpuprofile timestamps use.
const MONOTONIC_OFFSET_US = Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000;
const marks: { name: string; fromUs: number; toUs: number }[] = [];
const mark = (name: string, fromMs: number, toMs: number) =>
  marks.push({ name, fromUs: Math.round(fromMs * 1000 + MONOTONIC_OFFSET_US), toUs: Math.round(toMs * 1000 + MONOTONIC_OFFSET_US) });

function loadRow(label: string, target: number, load: LoadResult, nodeCpu?: NodeCpu, note?: string): Row {
  return {
    label, value: load.perSecond, unit: 'req/s', target, p50Ms: load.p50Ms, p99Ms: load.p99Ms,
    errors: load.errors, nodeCpu, clientCpu: load.clientCpu,
    note: [note, load.firstError && `first error: ${load.firstError}`].filter(Boolean).join('; ') || undefined,
  };
}

function transferRow(label: string, target: number, r: TransferResult, nodeCpu?: NodeCpu): Row {
  const note = `${r.txs} txs in ${r.seconds.toFixed(2)} s over ${r.blocks} blocks; sends alone ${fmtInt(r.load.perSecond)}/s` +
    (r.load.firstError ? `; first error: ${r.load.firstError}` : '');
  return {
    label, value: r.perSecond, unit: 'tx/s', target, p50Ms: r.load.p50Ms, p99Ms: r.load.p99Ms,
    errors: r.load.errors, nodeCpu, clientCpu: r.load.clientCpu, note,
  };
}

async function benchNode(rows: Row[], only: Set<Workload>): Promise<void> {
  const seconds = envInt('BENCH_SECONDS', 10);
  const connections = Math.floor(envInt('BENCH_CONNECTIONS', 16));
  const transfers = Math.floor(envInt('BENCH_TRANSFERS', 2000));
  const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const devCount = Math.max(10, connections);
  const keys = deriveDevKeys(MNEMONIC, devCount);

  console.log(`mcnode JSON-RPC bench: node ${process.version}, ${os.availableParallelism()} cores, ` +
    `load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`${connections} keep-alive connections, ${seconds} s per read workload, ${transfers} transfers per transfer workload`);

  const node = await startBenchNode(nodeFlags, ['--accounts.devCount', String(devCount), ...nodeArgs]);
  const onSignal = () => {
    void node.stop().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  try {
    let store = '';
    if (only.has('call')) {
      store = await deployStore(node, keys[0]);
      const sum = await node.rpc('mc_call', [{ to: store, data: selector('add(uint256,uint256)') + word(2) + word(3) }, 'latest']);
      if (BigInt(sum) !== 5n) console.log(`warning: Store.add(2, 3) returned ${sum}`);
    }
    let blockTxs = 0;
    if (only.has('getBlock')) {
      for (let attempt = 0; attempt < 3 && blockTxs < 4; attempt++) blockTxs = await fillLatestBlock(node, keys[1], 8);
    }

    const durationMs = seconds * 1000;
    const warmupMs = Math.min(1000, durationMs / 10);
    // wrk when installed (what tools/perf's comparison uses); its body varies through a counter word.
    const useWrk = wrkAvailable();
    console.log(`load generator: ${useWrk ? 'wrk -t1 (its own process)' : 'bench/load.ts (JavaScript, in the bench process)'}`);
    const read = async (name: Workload, label: string, target: number, body: BodySource, wrkBody?: { prefix: string; suffix: string }, note?: string) => {
      if (!only.has(name)) return;
      process.stderr.write(`running ${label} …\n`);
      const load = useWrk
        ? async () => {
          const b = wrkBody ?? (body as string);
          await runWrk({ url: node.url, connections, seconds: Math.max(1, Math.round(warmupMs / 1000)), body: b });
          return runWrk({ url: node.url, connections, seconds, body: b });
        }
        : () => runLoad({ url: node.url, connections, durationMs, warmupMs, body });
      const { result, nodeCpu } = await withNodeCpu(node, load);
      rows.push(loadRow(label, target, result, nodeCpu, note));
      mark(name, result.startedAt, result.startedAt + result.elapsedMs);
    };

    const rpcBody = (method: string, params: string) => `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${params}}`;
    await read('blockNumber', 'mc_blockNumber', 35_000, rpcBody('mc_blockNumber', '[]'));
    const balanceOf = bytesToHex(privateKeyToAddress(keys[2]));
    await read('getBalance', 'mc_getBalance', 30_000, rpcBody('mc_getBalance', `["${balanceOf}","latest"]`));
    const add = selector('add(uint256,uint256)');
    // Distinct arguments on every request, so no cache of identical calls can answer.
    await read('call', 'mc_call Store.add(a,b)', 4_000, (conn, k) =>
      `{"jsonrpc":"2.0","id":${k},"method":"mc_call","params":[{"to":"${store}","data":"${add}${word(conn * 1_000_000_000 + k)}${word(k * 3 + 1)}"},"latest"]}`,
    { prefix: `{"jsonrpc":"2.0","id":1,"method":"mc_call","params":[{"to":"${store}","data":"${add}`, suffix: `${word(7)}"},"latest"]}` });
    await read('getBlock', 'mc_getBlockByNumber(latest,true)', 15_000, rpcBody('mc_getBlockByNumber', '["latest",true]'),
      undefined, `latest block holds ${blockTxs} transactions`);

    if (only.has('transfers')) {
      const recipient = privateKeyToAddress(keys[devCount - 1]);
      const transfer = async (name: string, label: string, target: number, senders: Uint8Array[], perSender: number, classic = false) => {
        process.stderr.write(`running ${label} (${perSender * senders.length} txs) …\n`);
        try {
          const r = await withNodeCpu(node, () => benchTransfers(node, senders, perSender, { recipient, classic }));
          rows.push(transferRow(label, target, r.result, r.nodeCpu));
          mark(name, r.result.load.startedAt, r.result.load.startedAt + r.result.seconds * 1000);
        } catch (err) {
          // Transactions that never get mined are a node failure; the next workload still runs.
          rows.push({ ...FAILED, label, unit: 'tx/s', target, note: `FAILED: ${(err as Error).message}` });
          process.exitCode = 1;
        }
      };
      await transfer('transfersSequential', 'raw transfers, sequential', 600, [keys[0]], transfers);
      const perSender = Math.max(1, Math.floor(transfers / connections));
      await transfer('transfersInFlight', `raw transfers, ${connections} in flight`, 2_000, keys.slice(0, connections), perSender);
      // Classic (Ethereum-signed) transactions take the same path; the rows show they cost the same.
      await transfer('classicSequential', 'classic transfers, sequential', 600, [keys[0]], transfers, true);
      await transfer('classicInFlight', `classic transfers, ${connections} in flight`, 2_000, keys.slice(0, connections), perSender, true);
    }
  } catch (err) {
    console.error(`bench failed: ${(err as Error).message}\n--- node output ---\n${node.output().slice(-4000)}`);
    process.exitCode = 1;
  } finally {
    process.off('SIGINT', onSignal);
    const code = await node.stop();
    if (code !== 0 && code !== null) console.log(`note: node exited with code ${code} on SIGTERM`);
  }
}

/** Runs bench/<file> if it was built; a missing file is a note, not a failure. */
async function runOptional(file: string, exportName: string): Promise<void> {
  const url = new URL(`./${file}.js`, import.meta.url).href;
  let mod: Record<string, unknown>;
  try {
    mod = await import(url);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes(`${file}.js`)) {
      console.log(`\n(bench/${file}.ts not present: skipped)`);
      return;
    }
    console.log(`\nbench/${file}.ts could not be loaded: ${e.message}`);
    return;
  }
  const fn = mod[exportName];
  if (typeof fn !== 'function') {
    console.log(`\n(bench/${file}.ts has no ${exportName} export: skipped)`);
    return;
  }
  console.log('');
  try {
    await fn();
  } catch (err) {
    console.log(`bench/${file}.ts failed: ${(err as Error).stack ?? err}`);
  }
}

async function main(): Promise<void> {
  const only = selectedWorkloads();
  const rows: Row[] = [];
  if (NODE_WORKLOADS.some((w) => only.has(w))) await benchNode(rows, only);
  if (process.env.BENCH_MARKS) writeFileSync(process.env.BENCH_MARKS, JSON.stringify(marks, null, 1) + '\n');
  console.log('');
  if (rows.length) printTable(rows);
  if (only.has('layers')) await runOptional('layers', 'benchLayers');
  if (only.has('startup')) await runOptional('startup', 'benchStartup');
  if (only.has('provider')) await runOptional('provider', 'benchProvider');
  if (only.has('pow')) await runOptional('pow', 'benchPow');
  if (only.has('ethash')) await runOptional('ethash', 'benchEthash');
  if (only.has('mining')) await runOptional('mining', 'benchMining');
  if (only.has('logs')) await runOptional('logs', 'benchLogs');
  if (only.has('reorg')) await runOptional('reorg', 'benchReorg');
  if (only.has('subscriptions')) await runOptional('subscriptions', 'benchSubscriptions');
  if (only.has('devctl')) await runOptional('devctl', 'benchDevControls');
  if (only.has('network')) await runOptional('network', 'benchNetwork');
  if (only.has('explorer')) await runOptional('explorer', 'benchExplorer');
  if (only.has('scale')) await runOptional('scale', 'benchScale');
  if (only.has('fork')) await runOptional('fork', 'benchFork');
}

await main();
