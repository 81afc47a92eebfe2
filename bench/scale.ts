// The scale bench (issue 28 item 3): builds a chain of SCALE_BLOCKS blocks (default 1,000,000)
// holding SCALE_ACCOUNTS funded accounts (100,000) and SCALE_CONTRACTS contracts (10,000), in
// one process through the node's own miner and block processor (no RPC), then starts the real
// node on it and measures: start to first answer, node CPU per random getBalance /
// getBlockByNumber / getTransactionReceipt (beside the same on a 1,000-block chain), mc_getLogs
// for one address over the last 100,000 blocks, resident memory after 10,000 random reads, and
// datadir bytes per empty block and per transfer block.
//
// Every block is sealed and valid: the chain is a devnet whose genesis difficulty is 1 (any nonce
// meets the target; the seal is still searched and checked), so the build rate is the node's
// own work and not the proof of work's. The devnet's 0x200 costs ~512 hashes a block more.
// Run: BENCH_ONLY=scale npm run bench (sizes by the environment; a full size takes long on a
// busy machine: run a smaller one and scale the build figures, saying so).

import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { openBenchChain, type BenchChain } from './devctl.js';
import { signTransaction } from '../src/chain/transaction.js';
import { privateKeyToAddress } from '../src/accounts/keys.js';
import { keccak256 } from '../src/encoding/bytes.js';
import { bytesToHex, hexToBytes } from '../src/encoding/hex.js';
import type { SignedTx } from '../src/chain/types.js';
import { DEFAULT_LOG_LIMITS } from '../src/filters/logQuery.js';
import { startNodeProcess, processRss, type NodeProcess } from '../tools/lib/nodeProcess.js';

const envInt = (name: string, fallback: number) => {
  const raw = process.env[name];
  const n = raw ? Number(raw) : fallback;
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer`);
  return n;
};

/** Transfers per block: 9,000,000 gas / 21,000 leaves room for 428. */
const TRANSFERS_PER_BLOCK = 400;
/** Creations per block (53,000 + code gas each). */
const CREATIONS_PER_BLOCK = 100;
/** PUSH1 0 PUSH1 0 LOG0 STOP: every call logs once (mc_getLogs finds it by address). */
const RUNTIME = '60006000a000';
/** Init code returning RUNTIME. */
const INIT = '0x6006600c60003960066000f3' + RUNTIME;
const READS = 10_000;
const LOG_RANGE = 100_000n;
const LOG_QUERY_RANGE = BigInt(DEFAULT_LOG_LIMITS.maxBlockRange);

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return total;
}

interface Built {
  dir: string;
  seconds: number;
  txHashes: string[];
  accounts: string[];
  logAddress: string;
  emptyBytesPerBlock: number;
  transferBytesPerBlock: number;
  emptyBlocksPerSecond: number;
  transfersPerSecond: number;
}

/** Builds the chain in a temp datadir (the genesis difficulty is 1: see the header). */
async function buildChain(blocks: number, accounts: number, contracts: number): Promise<Built> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcnode-scale-'));
  const b = await openBenchChain(dir, 'real', (config) => {
    config.genesis.difficulty = 1n;
  });
  const started = performance.now();
  const txHashes: string[] = [];
  const addresses: string[] = [];
  let logAddress = '';
  const chaindata = path.join(dir, 'chaindata');
  try {
    const sender = b.key;
    const sign = (to: Uint8Array | null, data: Uint8Array, gas: bigint, value: bigint): SignedTx =>
      signTransaction({ nonce: b.nonce++, syscnt: 0n, gasPrice: 1n, gas, to, value, data, shardingFlag: 0n, via: null }, sender, 100n);
    const mineWith = async (txs: SignedTx[]) => {
      for (const tx of txs) await b.pool.add(tx);
      const [block] = await b.miner.mineBlocks(1);
      if (block.transactions.length !== txs.length) throw new Error(`block ${block.header.number} took ${block.transactions.length} of ${txs.length} transactions`);
      for (const tx of txs) txHashes.push(bytesToHex(tx.hash));
    };
    // Funded accounts: transfers of 1 sha from dev account 0.
    const bytesBefore = dirBytes(chaindata);
    const transfersStart = performance.now();
    let transferBlocks = 0;
    for (let i = 0; i < accounts; i += TRANSFERS_PER_BLOCK) {
      const txs: SignedTx[] = [];
      for (let k = i; k < Math.min(accounts, i + TRANSFERS_PER_BLOCK); k++) {
        const to = privateKeyToAddress(keccak256(new TextEncoder().encode(`scale account ${k}`)));
        addresses.push(bytesToHex(to));
        txs.push(sign(to, new Uint8Array(), 21_000n, 1n));
      }
      await mineWith(txs);
      transferBlocks++;
    }
    const transfersPerSecond = accounts / ((performance.now() - transfersStart) / 1000);
    const transferBytes = dirBytes(chaindata) - bytesBefore;
    // Contracts, and one call of the first in each creation block after it (its logs).
    for (let i = 0; i < contracts; i += CREATIONS_PER_BLOCK) {
      const txs: SignedTx[] = [];
      if (logAddress) txs.push(sign(hexToBytes(logAddress), new Uint8Array(), 30_000n, 0n));
      for (let k = i; k < Math.min(contracts, i + CREATIONS_PER_BLOCK); k++) txs.push(sign(null, hexToBytes(INIT), 80_000n, 0n));
      await mineWith(txs);
      if (!logAddress) {
        const receipts = await b.core.chain.getReceipts(b.core.chain.head.hash);
        logAddress = bytesToHex(receipts![0].contractAddress!);
      }
    }
    // Empty blocks up to the size, through anvil_mine's path.
    const emptyStart = performance.now();
    const emptyFrom = b.core.chain.head.header.number;
    const bytesBeforeEmpty = dirBytes(chaindata);
    const left = blocks - Number(emptyFrom);
    for (let done = 0; done < left; done += 10_000) {
      const run = await b.miner.mineRun(Math.min(10_000, left - done), (parent) => parent + 1n);
      if (run.length !== Math.min(10_000, left - done)) throw new Error('bulk mining stopped early');
    }
    const emptyBlocks = Number(b.core.chain.head.header.number - emptyFrom);
    const emptyBlocksPerSecond = emptyBlocks / ((performance.now() - emptyStart) / 1000);
    await closeChain(b);
    const emptyBytes = dirBytes(chaindata) - bytesBeforeEmpty;
    return {
      dir, seconds: (performance.now() - started) / 1000, txHashes, accounts: addresses, logAddress,
      emptyBytesPerBlock: emptyBlocks > 0 ? emptyBytes / emptyBlocks : NaN,
      transferBytesPerBlock: transferBlocks > 0 ? transferBytes / transferBlocks : NaN,
      emptyBlocksPerSecond, transfersPerSecond,
    };
  } catch (err) {
    await closeChain(b);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

const closed = new WeakSet<BenchChain>();
async function closeChain(b: BenchChain): Promise<void> {
  if (closed.has(b)) return;
  closed.add(b);
  await b.close();
}

interface Measured {
  startMs: number;
  cpuUsPerRead: Record<string, number>;
  getLogsMs: number;
  logs: number;
  rssMb: number;
}

/** Starts the node on `built` and measures the reads. */
async function measure(built: Built): Promise<Measured> {
  const t0 = performance.now();
  const node: NodeProcess = await startNodeProcess(built.dir, { args: ['--genesis.difficulty', '0x1', '--mining.mode', 'off', '--verbosity', '1', '--port', '0', '--nodiscover'] });
  try {
    const rpc = async (method: string, params: unknown[]) => {
      const res = await fetch(node.http!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
      const reply = (await res.json()) as { result?: any; error?: { message: string } };
      if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
      return reply.result;
    };
    const head = BigInt(await rpc('mc_blockNumber', []));
    const startMs = performance.now() - t0;
    const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
    const cpu = () => {
      const c = node.cpuTimes()!;
      return c.user + c.system;
    };
    const workloads: Record<string, () => unknown[]> = {
      getBalance: () => [pick(built.accounts), 'latest'],
      getBlockByNumber: () => ['0x' + BigInt(Math.floor(Math.random() * Number(head))).toString(16), false],
      getTransactionReceipt: () => [pick(built.txHashes)],
    };
    const cpuUsPerRead: Record<string, number> = {};
    const perWorkload = Math.floor(READS / 3);
    for (const [name, params] of Object.entries(workloads)) {
      const method = name === 'getTransactionReceipt' ? 'mc_getTransactionReceipt' : `mc_${name}`;
      const before = cpu();
      for (let i = 0; i < perWorkload; i += 10) await Promise.all(Array.from({ length: 10 }, () => rpc(method, params())));
      cpuUsPerRead[name] = ((cpu() - before) * 1e6) / perWorkload;
    }
    const rssMb = (processRss(node.pid) ?? NaN) / 2 ** 20;
    // The node answers at most LOG_QUERY_RANGE blocks a query (logQuery.ts): the range in such steps.
    const from = head > LOG_RANGE ? head - LOG_RANGE + 1n : 1n;
    const t1 = performance.now();
    let logs = 0;
    for (let start = from; start <= head; start += LOG_QUERY_RANGE) {
      const end = start + LOG_QUERY_RANGE - 1n < head ? start + LOG_QUERY_RANGE - 1n : head;
      const found = await rpc('mc_getLogs', [{ address: built.logAddress, fromBlock: '0x' + start.toString(16), toBlock: '0x' + end.toString(16) }]);
      logs += found.length;
    }
    const getLogsMs = performance.now() - t1;
    return { startMs, cpuUsPerRead, getLogsMs, logs, rssMb };
  } finally {
    await node.stop();
  }
}

export async function benchScale(): Promise<void> {
  const blocks = envInt('SCALE_BLOCKS', 1_000_000);
  const accounts = envInt('SCALE_ACCOUNTS', 100_000);
  const contracts = envInt('SCALE_CONTRACTS', 10_000);
  console.log(`\nscale: ${blocks.toLocaleString('en-US')} blocks, ${accounts.toLocaleString('en-US')} accounts, ${contracts.toLocaleString('en-US')} contracts (load ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores)`);
  const big = await buildChain(blocks, accounts, contracts);
  const small = await buildChain(1_000, Math.min(accounts, 4_000), Math.min(contracts, 400));
  try {
    console.log(`  build: ${big.seconds.toFixed(0)} s; transfers ${Math.round(big.transfersPerSecond).toLocaleString('en-US')} tx/s, empty blocks ${Math.round(big.emptyBlocksPerSecond).toLocaleString('en-US')} blocks/s`);
    console.log(`  datadir: ${Math.round(big.emptyBytesPerBlock)} bytes per empty block, ${Math.round(big.transferBytesPerBlock).toLocaleString('en-US')} bytes per ${TRANSFERS_PER_BLOCK}-transfer block (before compaction settles)`);
    const m = await measure(big);
    const s = await measure(small);
    console.log(`  start to first answer: ${m.startMs.toFixed(0)} ms (1,000-block chain ${s.startMs.toFixed(0)} ms; target 150)`);
    for (const name of Object.keys(m.cpuUsPerRead)) {
      const ratio = m.cpuUsPerRead[name] / s.cpuUsPerRead[name];
      console.log(`  ${name}: ${m.cpuUsPerRead[name].toFixed(0)} µs node CPU per request vs ${s.cpuUsPerRead[name].toFixed(0)} µs on 1,000 blocks (${ratio.toFixed(2)}×; target ≤ 1.2×)`);
    }
    console.log(`  mc_getLogs, one address, last ${LOG_RANGE.toLocaleString('en-US')} blocks (or all) in queries of ${LOG_QUERY_RANGE.toLocaleString('en-US')}: ${m.getLogsMs.toFixed(0)} ms, ${m.logs} logs (target 100 ms)`);
    console.log(`  RSS after ${READS.toLocaleString('en-US')} random reads: ${m.rssMb.toFixed(0)} MB (target 200)`);
  } finally {
    rmSync(big.dir, { recursive: true, force: true });
    rmSync(small.dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await benchScale();
