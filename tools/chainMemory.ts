// `node dist/tools/chainMemory.js`: resident memory against chain length (docs/testing.md#benchmarks,
// bench/RESULTS.md#memory). Builds chains of 1,000 and 100,000 blocks (one transfer each, to one
// of 4,096 recipients) with `mcnode fixture`, keeps them for the next run, starts a node on each,
// makes random reads all over the chain — a full block with its transactions, a recipient's
// balance at that block, `mc_getLogs` over a 100-block window — and prints the node's resident
// memory with where it lives (V8 heap, malloc, LevelDB's mapped tables). A bounded node ends the
// long chain's reads at about the short chain's memory.
//
// CHAIN_MEMORY_BLOCKS  chain lengths, comma-separated (default 1000,100000)
// CHAIN_MEMORY_READS   reads per chain, each a block, a balance and a log query (default 5000)
// CHAIN_MEMORY_DIR     where the chains are built and kept (default <tmp>/mcnode-chain-memory)
// CHAIN_MEMORY_SEED    seed of the reads (default: fresh, printed)
// CHAIN_MEMORY_NODE_FLAGS  flags for the node binary

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLI, readMetric, startNodeProcess } from './lib/nodeProcess.js';
import { Random, seedOf } from './lib/random.js';
import { rpcBatch } from './lib/rpcClient.js';
import { describeMemoryMap, memoryMap } from './lib/smaps.js';

const KEYS = [
  '0xd318c56399426da38a80a354c89780d05ed2650017a63768e1b9cab0957de817',
  '0x44526d42a0c4e822f20f0625e0585338e69565d61275264d8b1dcd7d78daa681',
  '0x48b57e7f9d653fbc6926f192c6ca7734b66efa3435740e8a8b1bef7e7a95333b',
];
const GENESIS = { config: { chainId: 100 }, nonce: '0x42', timestamp: '0x5f5e1000', extraData: '0x', gasLimit: '0x895440', difficulty: '0x200', alloc: {} };
const RECIPIENTS = 4096;
/** reads in flight at once, as batches of this many */
const BATCH = 16;
const CONCURRENCY = 4;

const recipient = (i: number) => '0x' + 'ee'.repeat(18) + (i % RECIPIENTS).toString(16).padStart(4, '0');
const hex = (n: number) => '0x' + n.toString(16);

/** Builds (once) a chain of `blocks` one-transfer blocks under `dir`; returns its datadir. */
function chainOf(dir: string, blocks: number): string {
  const datadir = path.join(dir, `chain-${blocks}`);
  if (existsSync(path.join(datadir, 'done'))) return datadir;
  rmSync(datadir, { recursive: true, force: true });
  const script = {
    genesis: GENESIS,
    keys: KEYS,
    coinbase: '0x' + '00'.repeat(19) + '01',
    blocks: Array.from({ length: blocks }, (_, i) => ({
      txs: [{ from: i % KEYS.length, to: recipient(i), value: '0x1', gas: '0x5208', gasPrice: '0x4a817c800' }],
    })),
  };
  const file = path.join(dir, `chain-${blocks}.json`);
  writeFileSync(file, JSON.stringify(script));
  const started = performance.now();
  const run = spawnSync(process.execPath, [CLI, 'fixture', file, '--datadir', datadir, '--ipcdisable', '--minerthreads', '1', '--verbosity', '1'], {
    encoding: 'utf8',
    timeout: 3_600_000,
    maxBuffer: 64 * 2 ** 20,
  });
  if (run.status !== 0) throw new Error(`fixture of ${blocks} blocks failed:\n${run.stderr}${run.stdout}`);
  rmSync(file);
  writeFileSync(path.join(datadir, 'done'), '');
  console.log(`built a chain of ${blocks} blocks in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return datadir;
}

async function measure(chain: string, blocks: number, reads: number, seed: number, nodeFlags: string[]): Promise<void> {
  // The node writes to its datadir (pool journal, keys): it runs on a copy.
  const datadir = mkdtempSync(path.join(os.tmpdir(), 'mcnode-chainmem-'));
  cpSync(chain, datadir, { recursive: true });
  const node = await startNodeProcess(datadir, { args: ['--metrics', '--verbosity', '2'], nodeFlags });
  const mib = (b: number | undefined) => ((b ?? NaN) / 2 ** 20).toFixed(1);
  try {
    const idle = node.rss();
    const cpu = () => {
      const t = node.cpuTimes();
      return t ? t.user + t.system : NaN;
    };
    const cpuBefore = cpu();
    const rng = new Random(seed, blocks);
    const started = performance.now();
    let next = 0;
    let errors = 0;
    const worker = async () => {
      while (next < reads) {
        const calls = [];
        for (let i = 0; i < BATCH && next < reads; i++, next++) {
          const n = rng.int(blocks) + 1;
          const from = Math.max(1, n - 99);
          calls.push(
            { method: 'mc_getBlockByNumber', params: [hex(n), true] },
            { method: 'mc_getBalance', params: [recipient(rng.int(RECIPIENTS)), hex(n)] },
            { method: 'mc_getLogs', params: [{ fromBlock: hex(from), toBlock: hex(n), topics: [hex(n).padEnd(66, '0')] }] },
          );
        }
        for (const r of await rpcBatch(node.http!, calls, 120_000)) if (r.error) errors++;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (performance.now() - started) / 1000;
    const cpuMsPerRead = ((cpu() - cpuBefore) * 1000) / reads;
    const text = await (await fetch(node.metrics!)).text();
    const map = memoryMap(node.pid);
    console.log(
      `${blocks} blocks: ${reads} reads in ${seconds.toFixed(1)} s (${errors} errors, node CPU ${cpuMsPerRead.toFixed(2)} ms a read); RSS idle ${mib(idle)} MiB, after ${mib(node.rss())} MiB: ` +
        `heap ${mib(readMetric(text, 'nodejs_heap_size_used_bytes'))}/${mib(readMetric(text, 'nodejs_heap_size_total_bytes'))} MiB, ` +
        `external ${mib(readMetric(text, 'nodejs_external_memory_bytes'))} MiB; ${map ? describeMemoryMap(map) : 'no smaps'}`,
    );
  } finally {
    await node.stop();
    rmSync(datadir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const lengths = (process.env.CHAIN_MEMORY_BLOCKS ?? '1000,100000').split(',').map(Number);
  const reads = Number(process.env.CHAIN_MEMORY_READS ?? 5000);
  const dir = process.env.CHAIN_MEMORY_DIR ?? path.join(os.tmpdir(), 'mcnode-chain-memory');
  const seed = seedOf(process.env.CHAIN_MEMORY_SEED);
  const nodeFlags = process.env.CHAIN_MEMORY_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  mkdirSync(dir, { recursive: true });
  console.log(`chainMemory: CHAIN_MEMORY_BLOCKS=${lengths.join(',')} CHAIN_MEMORY_READS=${reads} CHAIN_MEMORY_SEED=${seed} (chains kept in ${dir})`);
  for (const blocks of lengths) await measure(chainOf(dir, blocks), blocks, reads, seed, nodeFlags);
}

main().catch((err: unknown) => {
  console.error(`chainMemory: ${(err as Error)?.stack ?? String(err)}`);
  process.exitCode = 1;
});
