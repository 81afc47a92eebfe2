// Developer controls and tracing, in process on a temp datadir with an instant fake seal:
// debug_traceTransaction's struct logger (steps/s) and callTracer (traces/s) on a ~50,000-step
// transaction; snapshot and revert latency on a 10,000-block chain (once the chain can rewind).
// Run: `npx tsc -p . && node dist/bench/devctl.js`, or BENCH_ONLY=devctl npm run bench.

import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultConfig } from '../src/config/load.js';
import { createLogger } from '../src/log.js';
import { Database } from '../src/store/database.js';
import { devAccounts, difficultyRule, openChainCore, type ChainCore } from '../src/node/chainCore.js';
import { TxPool } from '../src/txpool/txPool.js';
import { PoolEntries } from '../src/store/poolEntries.js';
import { Miner } from '../src/miner/miner.js';
import { TrieNodeStore } from '../src/state/trieNodeStore.js';
import { signTransaction } from '../src/chain/transaction.js';
import { hexToBytes, bytesToHex } from '../src/encoding/hex.js';
import { keccak256 } from '../src/encoding/bytes.js';
import type { Block, SignedTx } from '../src/chain/types.js';
import { TraceRunner } from '../src/tracing/traceRunner.js';
import { StructLogger } from '../src/tracing/structLogger.js';
import { CallTracer } from '../src/tracing/callTracer.js';
import { formatCallFrame, formatStructTrace } from '../src/rpc/modules/debugFormat.js';
import { ROOT } from './nodeProcess.js';
import { DevClock } from '../src/devControls/devClock.js';
import { DevSnapshots } from '../src/devControls/devSnapshots.js';
import { decodeTransaction } from '../src/chain/transaction.js';

const SPIN_ROUNDS = 1_430n;

export interface BenchChain {
  db: Database;
  core: ChainCore;
  pool: TxPool;
  miner: Miner;
  key: Uint8Array;
  nonce: bigint;
  close(): Promise<void>;
}

export async function openBenchChain(dir: string): Promise<BenchChain> {
  const config = defaultConfig();
  const db = await Database.open(join(dir, 'chaindata'));
  const core = await openChainCore(config, db, createLogger(0));
  const pool = new TxPool(new PoolEntries(db), {
    minGasPrice: 1n, priceBump: 10n, globalSlots: 4096, globalQueue: 1024, accountQueue: 64,
    blockGasLimit: () => core.chain.head.header.gasLimit,
    accountAt: async (a) => {
      const acct = await core.world.getAccount(core.chain.head.header.stateRoot, a);
      return { nonce: acct?.nonce ?? 0n, balance: acct?.balance ?? 0n };
    },
    journalPath: join(dir, 'txpool.journal'),
  });
  // The proof of work is not what is measured here.
  const seal = async () => ({ nonce: 0n, mix: new Uint8Array(32) });
  const miner = new Miner(core.chain, pool, core.builder, core.nodes, seal, {
    mode: 'off', period: 1, coinbase: new Uint8Array(20).fill(1), extraData: new Uint8Array(),
    targetGasLimit: 9_000_000n, difficulty: difficultyRule(config, core.chain.genesis),
  });
  const bench: BenchChain = {
    db, core, pool, miner, key: devAccounts(config)[0].privateKey, nonce: 0n,
    async close() {
      pool.close();
      await miner.stop();
      await db.close();
    },
  };
  return bench;
}

/** Signs, pools and mines one transaction; returns its block. */
export async function mineTx(b: BenchChain, to: Uint8Array | null, data: Uint8Array, gas: bigint): Promise<{ block: Block; tx: SignedTx }> {
  const tx = signTransaction(
    { nonce: b.nonce++, syscnt: 0n, gasPrice: 1_000_000_000n, gas, to, value: 0n, data, shardingFlag: 0n, via: null },
    b.key, 100n,
  );
  await b.pool.add(tx);
  const [block] = await b.miner.mineBlocks(1);
  return { block, tx };
}

function contract(name: string): { bytecode: string } {
  return JSON.parse(readFileSync(join(ROOT, 'test/fixtures/contracts/contracts.json'), 'utf8')).contracts[name];
}

const word = (v: bigint | string) => (typeof v === 'string' ? v.replace(/^0x/, '') : v.toString(16)).padStart(64, '0');
const selector = (sig: string) => bytesToHex(keccak256(new TextEncoder().encode(sig)).subarray(0, 4)).slice(2);

export async function benchTracing(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mcnode-bench-trace-'));
  const b = await openBenchChain(dir);
  try {
    const store = await mineTx(b, null, hexToBytes(contract('Store').bytecode + word(7n)), 1_000_000n);
    const storeAddr = (await b.core.chain.getReceipts(store.block.hash))![0].contractAddress!;
    const nest = await mineTx(b, null, hexToBytes(contract('Nest').bytecode + word(bytesToHex(storeAddr))), 1_500_000n);
    const nestAddr = (await b.core.chain.getReceipts(nest.block.hash))![0].contractAddress!;
    const spin = await mineTx(b, nestAddr, hexToBytes('0x' + selector('spin(uint256)') + word(SPIN_ROUNDS)), 8_000_000n);
    const parent = (await b.core.chain.getBlockByHash(spin.block.header.parentHash))!.header;
    const runner = new TraceRunner({
      world: b.core.world, scratchNodes: () => TrieNodeStore.scratchOver(b.core.nodes), makeEvm: (sm) => b.core.builder.createEvm(sm), rules: b.core.rules,
      gasCap: 50_000_000n,
    });
    const limits = { timeoutMs: 600_000, timeoutText: '10m' };
    const opts = { disableStack: false, disableStorage: false, enableMemory: false, enableReturnData: false, limit: 0 };

    let steps = 0;
    const structRuns = 3;
    let t0 = performance.now();
    for (let i = 0; i < structRuns; i++) {
      const [trace] = await runner.traceBlock(parent, spin.block, [0], () => new StructLogger(opts), limits);
      steps = trace.structLogs.length;
      JSON.stringify(formatStructTrace(trace));
    }
    const structSeconds = (performance.now() - t0) / 1000 / structRuns;

    const callRuns = 10;
    t0 = performance.now();
    for (let i = 0; i < callRuns; i++) {
      const [frame] = await runner.traceBlock(parent, spin.block, [0], () => new CallTracer({ onlyTopCall: false, withLog: false }), limits);
      JSON.stringify(formatCallFrame(frame));
    }
    const callSeconds = (performance.now() - t0) / 1000 / callRuns;

    console.log(`debug_traceTransaction on a ${steps.toLocaleString('en-US')}-step transaction (in process: replay, tracer, JSON text)`);
    console.log(`  struct logger (stack and storage on): ${Math.round(steps / structSeconds).toLocaleString('en-US')} steps/s (${(structSeconds * 1000).toFixed(0)} ms per trace)`);
    console.log(`  callTracer: ${(1 / callSeconds).toFixed(1)} traces/s (${(callSeconds * 1000).toFixed(0)} ms per trace)`);
  } finally {
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  }
}


const CHAIN_BLOCKS = 10_000;
const REVERT_DEPTH = 100;

export async function benchSnapshots(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mcnode-bench-snap-'));
  const b = await openBenchChain(dir);
  try {
    let t0 = performance.now();
    for (let built = 0; built < CHAIN_BLOCKS; built += 500) await b.miner.mineBlocks(Math.min(500, CHAIN_BLOCKS - built));
    const buildSeconds = (performance.now() - t0) / 1000;
    const clock = await DevClock.open(b.db);
    const snapshots = new DevSnapshots(b.db, b.core.chain, b.pool, clock, b.miner, (raw) => decodeTransaction(raw, 100n));

    const takes: number[] = [];
    for (let i = 0; i < 200; i++) {
      t0 = performance.now();
      await snapshots.take();
      takes.push(performance.now() - t0);
    }
    const reverts: number[] = [];
    for (let round = 0; round < 5; round++) {
      const id = await snapshots.take();
      await b.miner.mineBlocks(REVERT_DEPTH);
      t0 = performance.now();
      if (!(await snapshots.revert(id))) throw new Error('revert failed');
      reverts.push(performance.now() - t0);
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    console.log(`\nsnapshots on a ${b.core.chain.head.header.number.toLocaleString('en-US')}-block chain (built in ${buildSeconds.toFixed(1)} s, fake seal)`);
    console.log(`  evm_snapshot: median ${median(takes).toFixed(2)} ms, max ${Math.max(...takes).toFixed(2)} ms (target < 5 ms)`);
    console.log(`  evm_revert of ${REVERT_DEPTH} blocks: median ${median(reverts).toFixed(1)} ms, max ${Math.max(...reverts).toFixed(1)} ms (target < 200 ms)`);
  } finally {
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchDevControls(): Promise<void> {
  await benchTracing();
  await benchSnapshots();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await benchDevControls();
