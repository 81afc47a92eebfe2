// Fork mode (`BENCH_ONLY=fork`, docs/fork-mode.md): an mcnode upstream on loopback holding a
// contract with 200 filled storage slots, then a fork of it at its head behind a counting proxy.
// Measured: the first mc_call summing the 200 slots (cold: every slot fetched) and the same call
// warm, next to Anvil forking the same upstream at the same block (eth_call); the upstream calls
// and HTTP requests each cold call made; and restart-to-first-answer (spawn → the same call
// answered) of the fork with its warm cache, next to Anvil's restart with its own RPC cache.
// Single runs on a loopback upstream: the figures are indicative on a busy machine.
// Run: `node tools/build.mjs && node dist/bench/fork.js`, or BENCH_ONLY=fork npm run bench.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { deriveDevKeys, privateKeyToAddress } from '../src/accounts/keys.js';
import { signTransaction } from '../src/chain/transaction.js';
import { bytesToHex, hexToBytes } from '../src/encoding/hex.js';
import { ROOT, startBenchNode, type BenchNode } from './nodeProcess.js';
import { CHAIN_ID, GAS_PRICE } from './transfers.js';
import { word } from './setup.js';

const MNEMONIC = 'test test test test test test test test test test test junk';
const CLI = path.join(ROOT, 'dist/src/cmd/cli.js');
const ANVIL = path.join(ROOT, 'node_modules/@foundry-rs', `anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`, 'bin/anvil');
const SLOTS = 200;
const WARM_RUNS = 5;

/**
 * Calldata (n, mode, start): mode 0 returns the sum of slots [0, n); mode 1 writes slot i = i + 1
 * for i in [start, n). The same program as test/helpers/forkUpstream.ts assembles.
 */
const SLOTS_INIT = '0x6100508061000d6000396000f360003560203561002e57600060005b828110156100245780548201915060010161000e565b5060005260206000f35b6040355b8181101561004857806001018155600101610032565b8160006000a100';
const sumCall = (n: number) => '0x' + word(n) + word(0) + word(0);
const fillCall = (start: number, n: number) => '0x' + word(n) + word(1) + word(start);

interface Proxy {
  url: string;
  calls: number;
  requests: number;
  reset(): void;
  close(): void;
}

/** Forwards JSON-RPC to `target`, counting HTTP requests and calls (batch members one by one). */
async function countingProxy(target: string): Promise<Proxy> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    proxy.requests++;
    try {
      const parsed = JSON.parse(body);
      proxy.calls += Array.isArray(parsed) ? parsed.length : 1;
    } catch {
      proxy.calls++;
    }
    try {
      const up = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      res.writeHead(up.status, { 'content-type': 'application/json' });
      res.end(await up.text());
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: Proxy = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: 0,
    requests: 0,
    reset() {
      proxy.calls = 0;
      proxy.requests = 0;
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
  return proxy;
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const reply = await res.json();
  if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result;
}

/** A process started for the bench, with the URL its output names once it listens. */
interface Spawned {
  proc: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

async function spawnListening(cmd: string, args: string[], pattern: RegExp, env: NodeJS.ProcessEnv = process.env): Promise<Spawned> {
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${path.basename(cmd)} did not start:\n${out}`)), 60_000);
    const seen = (c: Buffer) => {
      out += c;
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1].startsWith('http') ? m[1] : `http://${m[1]}`);
      }
    };
    proc.stdout!.on('data', seen);
    proc.stderr!.on('data', seen);
    proc.once('exit', (code) => reject(new Error(`${path.basename(cmd)} exited with ${code}:\n${out}`)));
  });
  proc.removeAllListeners('exit');
  return {
    proc,
    url,
    stop: () => new Promise((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    }),
  };
}

async function send(node: BenchNode, key: Uint8Array, nonce: bigint, to: string | null, data: string, gas: bigint): Promise<any> {
  const tx = signTransaction(
    { nonce, syscnt: 0n, gasPrice: GAS_PRICE, gas, to: to === null ? null : hexToBytes(to), value: 0n, data: hexToBytes(data), shardingFlag: 0n, via: null },
    key, CHAIN_ID,
  );
  const hash = await node.rpc('mc_sendRawTransaction', [bytesToHex(tx.raw)]);
  for (;;) {
    const receipt = await node.rpc('mc_getTransactionReceipt', [hash]);
    if (receipt) {
      if (receipt.status !== '0x1') throw new Error(`transaction failed: ${JSON.stringify(receipt)}`);
      return receipt;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (n: number) => n.toFixed(n < 10 ? 2 : 1);

/** Times `call` cold once, then warm (median of WARM_RUNS); counts the proxy's traffic of the cold one. */
async function coldAndWarm(call: () => Promise<unknown>, proxy: Proxy) {
  proxy.reset();
  let t0 = performance.now();
  await call();
  const cold = performance.now() - t0;
  const counted = { calls: proxy.calls, requests: proxy.requests };
  const warm: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    t0 = performance.now();
    await call();
    warm.push(performance.now() - t0);
  }
  return { cold, warm: median(warm), ...counted, warmCalls: proxy.calls - counted.calls };
}

/** Spawn → first answer to `call`; the upstream traffic meanwhile. */
async function restartToAnswer(start: () => Promise<Spawned>, call: (url: string) => Promise<unknown>, proxy: Proxy) {
  proxy.reset();
  const t0 = performance.now();
  const started = await start();
  await call(started.url);
  return { ms: performance.now() - t0, calls: proxy.calls, started };
}

export async function benchFork(): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`node tools/build.mjs\` first`);
  const [key] = deriveDevKeys(MNEMONIC, 1);
  const from = bytesToHex(privateKeyToAddress(key));
  const upstream = await startBenchNode([], []);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcnode-bench-fork-'));
  const stops: (() => Promise<void> | void)[] = [() => upstream.stop().then(() => undefined)];
  try {
    let nonce = BigInt(await upstream.rpc('mc_getTransactionCount', [from, 'pending']));
    const contract: string = (await send(upstream, key, nonce++, null, SLOTS_INIT, 200_000n)).contractAddress;
    await send(upstream, key, nonce++, contract, fillCall(0, SLOTS / 2), 3_000_000n);
    await send(upstream, key, nonce++, contract, fillCall(SLOTS / 2, SLOTS), 3_000_000n);
    const forkBlock = Number(await upstream.rpc('mc_blockNumber'));
    const expected = BigInt((SLOTS * (SLOTS + 1)) / 2);
    const check = (result: string) => {
      if (BigInt(result) !== expected) throw new Error(`sum ${BigInt(result)}, expected ${expected}`);
    };
    const call = (url: string, method: string) => rpc(url, method, [{ to: contract, data: sumCall(SLOTS) }, 'latest']).then(check);
    console.log(`\nFork mode: mcnode upstream on loopback at block ${forkBlock}, a call summing ${SLOTS} storage slots`);

    // mcnode forking the upstream
    const proxy = await countingProxy(upstream.url);
    stops.push(() => proxy.close());
    const forkDir = path.join(dir, 'fork');
    const forkArgs = [CLI, '--datadir', forkDir, '--rpcport', '0', '--scsrpcport', '0', '--ipcdisable', '--verbosity', '1', '--mining.mode', 'off', '--fork.url', proxy.url, '--fork.block', String(forkBlock)];
    const startFork = () => spawnListening(process.execPath, forkArgs, /HTTP\s+(http:\/\/\S+)/);
    let fork = await startFork();
    stops.push(() => fork.stop());
    const mc = await coldAndWarm(() => call(fork.url, 'mc_call'), proxy);
    await fork.stop();
    const mcRestart = await restartToAnswer(startFork, (url) => call(url, 'mc_call'), proxy);
    fork = mcRestart.started;

    // Anvil forking the same upstream at the same block (its RPC cache under a HOME of its own)
    const anvilProxy = await countingProxy(upstream.url);
    stops.push(() => anvilProxy.close());
    const anvilEnv = { ...process.env, HOME: path.join(dir, 'anvil-home') };
    const startAnvil = () => spawnListening(ANVIL, ['--host', '127.0.0.1', '--port', '0', '--fork-url', anvilProxy.url, '--fork-block-number', String(forkBlock)], /Listening on (\S+)/, anvilEnv);
    let anvil: Spawned | undefined;
    let an: Awaited<ReturnType<typeof coldAndWarm>> | undefined;
    let anRestart: Awaited<ReturnType<typeof restartToAnswer>> | undefined;
    if (existsSync(ANVIL)) {
      anvil = await startAnvil();
      stops.push(() => anvil?.stop());
      an = await coldAndWarm(() => call(anvil!.url, 'eth_call'), anvilProxy);
      await anvil.stop();
      anRestart = await restartToAnswer(startAnvil, (url) => call(url, 'eth_call'), anvilProxy);
      anvil = anRestart.started;
    }

    const row = (label: string, a: string, b: string) => console.log(`  ${label.padEnd(46)} ${a.padStart(16)} ${b.padStart(16)}`);
    row('', 'mcnode fork', an ? 'Anvil fork' : '(no Anvil)');
    row(`cold call, ${SLOTS} slots (ms)`, ms(mc.cold), an ? ms(an.cold) : '');
    row('  upstream calls / HTTP requests', `${mc.calls} / ${mc.requests}`, an ? `${an.calls} / ${an.requests}` : '');
    row(`warm call (ms, median of ${WARM_RUNS})`, ms(mc.warm), an ? ms(an.warm) : '');
    row('  upstream calls (all warm runs)', String(mc.warmCalls), an ? String(an.warmCalls) : '');
    row('restart → first answer, warm cache (ms)', ms(mcRestart.ms), anRestart ? ms(anRestart.ms) : '');
    row('  upstream calls during restart + call', String(mcRestart.calls), anRestart ? String(anRestart.calls) : '');
    console.log(`  goal: ≤ one upstream call per account and per slot (${SLOTS + 1} here), fewer with batching`);
  } finally {
    for (const stop of stops.reverse()) await stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchFork();
