// Network figures between real node processes on loopback: sync import rate from a peer (empty
// blocks, then transfer blocks), block propagation latency A→B, and a 100-block branch switch.
// Chains are built with `mcnode fixture` from generated scripts. Latency is observed by polling
// both nodes' heads every few milliseconds, so it carries that resolution.
//
// Sync windows run from the moment the follower starts syncing (mc_syncing turns on, polled every
// 2 ms after admin_addPeer) until its head is the source's head; the connection (TCP, RLPx
// handshake, Status) before that is printed on its own. CPU figures are the syncing node's and
// the serving node's CPU time (/proc) over the same window.
//
// Environment: BENCH_SYNC_BLOCKS (10,000 empty blocks), BENCH_SYNC_TX_BLOCKS (200 blocks of
// BENCH_SYNC_TXS = 50 transfers), BENCH_PROPAGATION_BLOCKS (40), BENCH_NODE_FLAGS (Node flags).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startNodeProcess, type NodeProcess } from '../tools/lib/nodeProcess.js';
import { ROOT } from './nodeProcess.js';

const CLI = path.join(ROOT, 'dist/src/cmd/cli.js');
const KEYS = [
  '0xd318c56399426da38a80a354c89780d05ed2650017a63768e1b9cab0957de817',
  '0x44526d42a0c4e822f20f0625e0585338e69565d61275264d8b1dcd7d78daa681',
  '0x48b57e7f9d653fbc6926f192c6ca7734b66efa3435740e8a8b1bef7e7a95333b',
];
const GENESIS = { config: { chainId: 100 }, nonce: '0x42', timestamp: '0x5f5e1000', extraData: '0x', gasLimit: '0x895440', difficulty: '0x200', alloc: {} };

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** CPU seconds (user + system) of a process so far, from /proc; the machine may be shared. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return NaN;
  }
}

function mcnode(...args: string[]): void {
  const run = spawnSync(process.execPath, [CLI, ...args, '--verbosity', '1'], { encoding: 'utf8', timeout: 600_000 });
  if (run.status !== 0) throw new Error(`mcnode ${args.join(' ')} failed:\n${run.stderr}${run.stdout}`);
}

/** Builds a chain into `datadir` from a generated script; `txs` transfers per block. */
function buildChain(dir: string, name: string, blocks: number, txs: number, coinbase = '0x' + '00'.repeat(19) + '01'): string {
  const script = {
    genesis: GENESIS,
    keys: KEYS,
    coinbase,
    blocks: Array.from({ length: blocks }, () => ({
      txs: Array.from({ length: txs }, (_, i) => ({ from: i % KEYS.length, to: '0x' + '00'.repeat(19) + 'aa', value: '0x1', gas: '0x5208', gasPrice: '0x4a817c800' })),
    })),
  };
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(script));
  const datadir = path.join(dir, name);
  mcnode('fixture', file, '--datadir', datadir, '--ipcdisable', '--minerthreads', '1');
  return datadir;
}

async function rpc(node: NodeProcess, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(node.http!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const start = (datadir: string, extra: string[] = []) =>
  startNodeProcess(datadir, { args: ['--port', '0', '--rpcapi', 'mc,net,admin', '--minerthreads', '1', ...extra], nodeFlags: nodeFlags() });
/** BENCH_NODE_FLAGS: Node flags for the node processes, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
const nodeFlags = () => process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean);
const enodeOf = (node: NodeProcess) => /P2P\s+(enode:\/\/\S+)/.exec(node.stdout())![1];

async function until(fn: () => Promise<boolean>, timeoutMs: number, pollMs = 5): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

interface SyncTiming {
  /** admin_addPeer until the follower is syncing (connection, handshake, Status) */
  connectMs: number;
  /** syncing until the follower's head is the source's head */
  seconds: number;
  blocks: number;
  /** CPU seconds of the syncing node and of the serving node over `seconds` */
  cpu: number;
  serverCpu: number;
  /** admin_addPeer until the head (the reorganisation figure) */
  totalSeconds: number;
}

/** A fresh node with `source`'s genesis syncs all of it (or `target`, a datadir of another branch, switches to it). */
async function timeSync(dir: string, source: string, name: string, target?: string): Promise<SyncTiming> {
  const a = await start(source, ['--mining.mode', 'off']);
  const bDir = target ?? path.join(dir, `${name}-follower`);
  if (!target) mcnode('init', path.join(source, 'genesis.json'), '--datadir', bDir, '--ipcdisable');
  const b = await start(bDir, ['--mining.mode', 'off']);
  try {
    const top = await rpc(a, 'mc_getBlockByNumber', ['latest', false]);
    const from = BigInt(await rpc(b, 'mc_blockNumber'));
    const t0 = performance.now();
    await rpc(b, 'admin_addPeer', [enodeOf(a)]);
    let reached = false;
    await until(async () => {
      if ((await rpc(b, 'mc_syncing')) !== false) return true;
      // A short sync may begin and end between two polls.
      reached = (await rpc(b, 'mc_getBlockByNumber', ['latest', false])).hash === top.hash;
      return reached;
    }, 60_000, 2);
    const t1 = performance.now();
    const cpu1 = cpuSeconds(b.pid);
    const server1 = cpuSeconds(a.pid);
    if (!reached) await until(async () => (await rpc(b, 'mc_getBlockByNumber', ['latest', false])).hash === top.hash, 600_000, 10);
    const t2 = performance.now();
    return {
      connectMs: t1 - t0,
      seconds: (t2 - t1) / 1000,
      blocks: Number(BigInt(top.number) - from),
      cpu: cpuSeconds(b.pid) - cpu1,
      serverCpu: cpuSeconds(a.pid) - server1,
      totalSeconds: (t2 - t0) / 1000,
    };
  } finally {
    await b.stop();
    await a.stop();
  }
}

async function propagation(dir: string, count: number): Promise<number[]> {
  mcnode('init', path.join(dir, 'empty', 'genesis.json'), '--datadir', path.join(dir, 'pa'), '--ipcdisable');
  mcnode('init', path.join(dir, 'empty', 'genesis.json'), '--datadir', path.join(dir, 'pb'), '--ipcdisable');
  const a = await start(path.join(dir, 'pa'), ['--mining.mode', 'interval', '--mining.period', '0.25']);
  const b = await start(path.join(dir, 'pb'), ['--mining.mode', 'off']);
  const seenA = new Map<string, number>();
  const lat: number[] = [];
  try {
    await rpc(b, 'admin_addPeer', [enodeOf(a)]);
    await until(async () => (await rpc(b, 'net_peerCount')) === '0x1', 30_000);
    let lastB = '';
    while (lat.length < count) {
      const [ha, hb] = await Promise.all([rpc(a, 'mc_getBlockByNumber', ['latest', false]), rpc(b, 'mc_getBlockByNumber', ['latest', false])]);
      const now = performance.now();
      if (!seenA.has(ha.hash)) seenA.set(ha.hash, now);
      if (hb.hash !== lastB) {
        lastB = hb.hash;
        const t = seenA.get(hb.hash);
        if (t !== undefined) lat.push(now - t);
      }
    }
  } finally {
    await b.stop();
    await a.stop();
  }
  return lat.sort((x, y) => x - y);
}

const pct = (s: number[], p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];

export async function benchNetwork(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcnode-bench-net-'));
  try {
    console.log(`network (two nodes on loopback; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs)`);
    const emptyBlocks = env('BENCH_SYNC_BLOCKS', 10_000);
    const built = performance.now();
    const empty = buildChain(dir, 'empty', emptyBlocks, 0);
    console.log(`(fixture of ${emptyBlocks} empty blocks built in ${((performance.now() - built) / 1000).toFixed(1)} s; sync windows: mc_syncing on → the source's head, connection timed apart)`);
    const s1 = await timeSync(dir, empty, 'empty');
    console.log(
      `sync, ${s1.blocks} empty blocks:              ${(s1.blocks / s1.seconds).toFixed(0)} blocks/s (target ≥ 1,000); ` +
        `${(s1.blocks / s1.cpu).toFixed(0)} blocks per CPU-second of the syncing node, ${(s1.blocks / (s1.cpu + s1.serverCpu)).toFixed(0)} of both nodes; connection ${s1.connectMs.toFixed(0)} ms`,
    );

    const txBlocks = env('BENCH_SYNC_TX_BLOCKS', 200);
    const perBlock = env('BENCH_SYNC_TXS', 50);
    const transfers = buildChain(dir, 'transfers', txBlocks, perBlock);
    const s2 = await timeSync(dir, transfers, 'transfers');
    const txs = s2.blocks * perBlock;
    console.log(
      `sync, ${s2.blocks} blocks × ${perBlock} transfers:      ${(s2.blocks / s2.seconds).toFixed(0)} blocks/s, ${(txs / s2.seconds).toFixed(0)} tx/s (target ≥ 2,000 tx/s); ` +
        `${(txs / s2.cpu).toFixed(0)} tx per CPU-second of the syncing node, ${(txs / (s2.cpu + s2.serverCpu)).toFixed(0)} of both; connection ${s2.connectMs.toFixed(0)} ms`,
    );

    const lat = await propagation(dir, env('BENCH_PROPAGATION_BLOCKS', 40));
    console.log(`propagation A→B (${lat.length} blocks, polled): p50 ${pct(lat, 50).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(1)} ms (target p50 < 20 ms)`);

    // Two branches from one genesis: 100 blocks (one coinbase) and 101 (another); the node on the
    // shorter one switches to the heavier when it meets it.
    const light = buildChain(dir, 'light', 100, 1, '0x' + '00'.repeat(19) + '02');
    const heavy = buildChain(dir, 'heavy', 101, 1, '0x' + '00'.repeat(19) + '03');
    const r = await timeSync(dir, heavy, 'heavy', light);
    console.log(`reorg, 100-block branch → 101-block branch: ${(r.totalSeconds * 1000).toFixed(0)} ms from admin_addPeer (connect, download, verify, switch)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/.*\/dist\//, '/dist/'))) {
  await benchNetwork();
}
