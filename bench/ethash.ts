// Ethash throughput: epoch-0 cache generation, light hashimoto on one core (our WebAssembly
// kernel beside a tight plain-JavaScript loop and @ethereumjs/ethash), the Sealer's workers with
// 1 and 2 threads, dataset items/s (one thread; the --ethash.dagdir generator with 1 and 2
// workers), full hashimoto over a shared dataset, and blocks/s at the testnet preset's difficulty.
// Run: `npx tsc -p . && node dist/bench/ethash.js` (or BENCH_ONLY=ethash npm run bench).

import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { randomFillSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { keccak256, keccak512 } from 'ethereum-cryptography/keccak.js';
import { Ethash } from '@ethereumjs/ethash';
import { EthashKernel } from '../src/consensus/ethash/ethashKernel.js';
import { EthashCaches } from '../src/consensus/ethash/ethashCaches.js';
import { EthashEngine } from '../src/consensus/ethash/ethashEngine.js';
import { EthashDatasets } from '../src/consensus/ethash/ethashDataset.js';
import { cacheSize, datasetSize } from '../src/consensus/ethash/params.js';
import { Sealer } from '../src/miner/sealer.js';

const MEASURE_MS = 2000;
/** Pages of the synthetic dataset the full hashimoto reads. */
const FULL_BENCH_BYTES = 64 << 20;
/** Items generated per dataset measurement (a real dataset has ~16.8 million). */
const DAG_BENCH_ITEMS = 262144;
const SEAL = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) & 0xff);
const NEVER = new Uint8Array(32);
/** The testnet preset's genesis difficulty (config/testnet.json). */
const TESTNET_DIFFICULTY = 0x1000n;

function timed<T>(fn: () => T): { value: T; ms: number; cpuMs: number } {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const value = fn();
  const used = process.cpuUsage(cpu);
  return { value, ms: performance.now() - start, cpuMs: (used.user + used.system) / 1000 };
}

/** Rates of the last `rate` call per second of this thread's CPU time: other load on the machine barely moves it. */
let lastPerCpuSecond = 0;

/** Hashes per second of `step(n)` after one warm-up call. */
function rate(step: (n: number) => void, chunk: number, measureMs = MEASURE_MS): number {
  step(chunk);
  let hashes = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  while (performance.now() - start < measureMs) {
    step(chunk);
    hashes += chunk;
  }
  const used = process.cpuUsage(cpu);
  lastPerCpuSecond = (hashes * 1e6) / (used.user + used.system);
  return (hashes * 1000) / (performance.now() - start);
}

/** Items/s of the --ethash.dagdir generator (worker start-up included) over DAG_BENCH_ITEMS items. */
async function datasetRate(workers: number, cache: Uint8Array): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcnode-bench-dag-'));
  try {
    const datasets = new EthashDatasets({ dir, workers, maxItems: DAG_BENCH_ITEMS });
    const start = performance.now();
    if (!(await datasets.get(0, async () => cache))) throw new Error('dataset generation failed');
    const ms = performance.now() - start;
    await datasets.close();
    return (DAG_BENCH_ITEMS * 1000) / ms;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A straightforward light hashimoto in plain JavaScript (Int32Array words, Math.imul FNV). */
function plainHashimoto(cache: Uint32Array, rows: number, pages: number, seal: Uint8Array, nonce: bigint): Uint8Array {
  const input = new Uint8Array(40);
  input.set(seal);
  new DataView(input.buffer).setBigUint64(32, nonce, true);
  const s = keccak512(input);
  const sWords = new Uint32Array(s.buffer, s.byteOffset, 16);
  const mix = new Uint32Array(32);
  for (let i = 0; i < 32; i++) mix[i] = sWords[i % 16];
  const item = new Uint32Array(16);
  const itemBytes = new Uint8Array(item.buffer);
  for (let a = 0; a < 64; a++) {
    const p = ((Math.imul(a ^ sWords[0], 0x01000193) ^ mix[a % 32]) >>> 0) % pages;
    for (let half = 0; half < 2; half++) {
      const index = 2 * p + half;
      item.set(cache.subarray((index % rows) * 16, (index % rows) * 16 + 16));
      item[0] ^= index;
      itemBytes.set(keccak512(itemBytes));
      for (let j = 0; j < 256; j++) {
        const parent = ((Math.imul(index ^ j, 0x01000193) ^ item[j % 16]) >>> 0) % rows;
        for (let k = 0; k < 16; k++) item[k] = Math.imul(item[k], 0x01000193) ^ cache[parent * 16 + k];
      }
      itemBytes.set(keccak512(itemBytes));
      for (let k = 0; k < 16; k++) mix[16 * half + k] = Math.imul(mix[16 * half + k], 0x01000193) ^ item[k];
    }
  }
  const cmix = new Uint32Array(8);
  for (let i = 0; i < 8; i++) {
    cmix[i] = Math.imul(Math.imul(Math.imul(mix[4 * i], 0x01000193) ^ mix[4 * i + 1], 0x01000193) ^ mix[4 * i + 2], 0x01000193) ^ mix[4 * i + 3];
  }
  const out = new Uint8Array(96);
  out.set(s);
  out.set(new Uint8Array(cmix.buffer), 64);
  return keccak256(out);
}

async function sealerRate(threads: number, engine: EthashEngine): Promise<number> {
  const sealer = new Sealer({ threads, pow: engine });
  try {
    await sealer.seal(SEAL, 64n, { number: 1n }); // workers started, cache copied in, kernel warm
    const controller = new AbortController();
    const pending = sealer.seal(SEAL, 1n << 62n, { signal: controller.signal, number: 1n });
    const before = sealer.totalHashes;
    const start = performance.now();
    await sleep(MEASURE_MS * 2);
    controller.abort();
    await pending;
    await sealer.settled();
    return ((sealer.totalHashes - before) * 1000) / (performance.now() - start);
  } finally {
    await sealer.close();
  }
}

async function blocksPerSecond(engine: EthashEngine, blocks: number): Promise<number> {
  const sealer = new Sealer({ threads: 2, pow: engine });
  try {
    await sealer.seal(SEAL, 64n, { number: 1n });
    const start = performance.now();
    for (let i = 0; i < blocks; i++) {
      const seal = keccak256(Uint8Array.of(i, 1, 2, 3));
      await sealer.seal(seal, TESTNET_DIFFICULTY, { number: BigInt(i + 1) });
    }
    return (blocks * 1000) / (performance.now() - start);
  } finally {
    await sealer.close();
  }
}

export async function benchEthash(): Promise<void> {
  const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));
  console.log(`Ethash, epoch 0 (cache ${cacheSize(0)} bytes, dataset ${datasetSize(0)} bytes; ${availableParallelism()} cores, node ${process.version})`);
  const kernel = new EthashKernel();
  const gen = timed(() => kernel.generateCache(0));
  console.log(`cache generation, epoch 0: ${gen.ms.toFixed(0)} ms wall, ${gen.cpuMs.toFixed(0)} ms CPU (target ≤ 2,000 ms)`);

  const mix = new Uint8Array(32);
  let nonce = 0n;
  const ours = rate((n) => {
    kernel.search(SEAL, NEVER, nonce, n, mix);
    nonce += BigInt(n);
  }, 64);
  const oursCpu = lastPerCpuSecond;
  const cache = kernel.cache().slice();
  const words = new Uint32Array(cache.buffer);
  const rows = cacheSize(0) / 64;
  const pages = datasetSize(0) / 128;
  const same = Buffer.from(plainHashimoto(words, rows, pages, SEAL, 5n)).equals(kernel.hash(SEAL, 5n).result);
  if (!same) console.log('warning: the plain JavaScript loop disagrees with the kernel');
  let plainNonce = 0n;
  const plain = rate((n) => {
    for (let i = 0; i < n; i++) plainHashimoto(words, rows, pages, SEAL, plainNonce++);
  }, 8);
  const plainCpu = lastPerCpuSecond;
  // @ethereumjs/ethash hashing over the same cache (its own cache generation takes a minute).
  const reference = new Ethash();
  reference.cache = Array.from({ length: rows }, (_, i) => cache.slice(i * 64, i * 64 + 64));
  reference.fullSize = datasetSize(0);
  let refNonce = 0;
  const ethereumjs = rate((n) => {
    for (let i = 0; i < n; i++) reference.run(SEAL, Uint8Array.of(0, 0, 0, 0, 0, 0, 0, refNonce++ & 0xff));
  }, 1, 3000);
  const ethereumjsCpu = lastPerCpuSecond;

  const itemRate = rate((n) => void kernel.datasetItems(n * 7, n), 1024);
  const itemCpu = lastPerCpuSecond;

  // Full hashimoto over 64 MiB of random pages (more than the CPU caches hold, like the real
  // 1 GB): the rate of reading a shared dataset in place.
  const fullKernel = new EthashKernel();
  fullKernel.loadCache(0, cache);
  fullKernel.limitPages(FULL_BENCH_BYTES / 128);
  const synthetic = new Uint8Array(new SharedArrayBuffer(FULL_BENCH_BYTES));
  for (let at = 0; at < synthetic.length; at += 65536) randomFillSync(synthetic, at, 65536);
  fullKernel.useDataset(synthetic);
  const fullMix = new Uint8Array(32);
  let fullNonce = 0n;
  const full = rate((n) => void fullKernel.search(SEAL, NEVER, (fullNonce += BigInt(n)), n, fullMix), 1024);
  const fullCpu = lastPerCpuSecond;
  const dagOne = await datasetRate(1, cache);
  const dagTwo = await datasetRate(2, cache);
  const fullItems = datasetSize(0) / 64;

  const engine = new EthashEngine(new EthashCaches({ inline: true }));
  await engine.caches.get(0);
  const one = await sealerRate(1, engine);
  const two = await sealerRate(2, engine);
  const blocks = await blocksPerSecond(engine, 5);

  const rowsOut: Array<[string, string]> = [
    ['light hashimoto, WebAssembly kernel, main thread', `${fmt(ours)} hashes/s, ${fmt(oursCpu)} per CPU-second (target ≥ 1,000)`],
    ['light hashimoto, plain JavaScript loop, main thread', `${fmt(plain)} hashes/s, ${fmt(plainCpu)} per CPU-second`],
    ['light hashimoto, @ethereumjs/ethash, main thread', `${fmt(ethereumjs)} hashes/s, ${fmt(ethereumjsCpu)} per CPU-second`],
    ['Sealer, 1 worker', `${fmt(one)} hashes/s`],
    ['Sealer, 2 workers', `${fmt(two)} hashes/s (${(two / one).toFixed(2)}× one; target ≥ 1.8×)`],
    ['dataset items from the cache, main thread', `${fmt(itemRate)} items/s, ${fmt(itemCpu)} per CPU-second (full dataset: ${fmt(datasetSize(0) / 64 / itemCpu)} CPU-seconds)`],
    ['--ethash.dagdir generation, 1 worker', `${fmt(dagOne)} items/s (epoch 0's ${fmt(fullItems)} items: ~${fmt(fullItems / dagOne)} s)`],
    ['--ethash.dagdir generation, 2 workers', `${fmt(dagTwo)} items/s (${(dagTwo / dagOne).toFixed(2)}× one; epoch 0: ~${fmt(fullItems / dagTwo)} s)`],
    ['full hashimoto, shared dataset (64 MiB random pages), main thread', `${fmt(full)} hashes/s, ${fmt(fullCpu)} per CPU-second (${(full / ours).toFixed(0)}× light)`],
    [`blocks sealed at the testnet difficulty ${TESTNET_DIFFICULTY}, 2 workers`, `${blocks.toFixed(2)} blocks/s`],
  ];
  const width = Math.max(...rowsOut.map(([name]) => name.length));
  for (const [name, value] of rowsOut) console.log(`${name.padEnd(width)}  ${value}`);
  console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}: wall-clock rates shrink as other processes share the cores`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await benchEthash();
