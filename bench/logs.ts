// mc_getLogs scan speed: a 10,000-block chain written straight through Blockchain (one signed
// transaction and one log per block, on a temp LevelDB), then FilterSystem.getLogs over the whole
// range with a selective topic (1 block in 100 matches: the header bloom skips the rest) and with
// no constraint (every block's receipts are read). Cold = freshly reopened database, empty caches.
// Run: `npx tsc -p . && node dist/bench/logs.js`.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Header, Log, Receipt } from '../src/chain/types.js';
import { EMPTY_TRIE_ROOT, EMPTY_UNCLES_HASH, blockFromParts, logsBloom } from '../src/chain/block.js';
import { signTransaction } from '../src/chain/transaction.js';
import { bigintToFixed, keccak256 } from '../src/encoding/bytes.js';
import { Database } from '../src/store/database.js';
import { Blockchain } from '../src/blockchain/blockchain.js';
import { FilterSystem } from '../src/filters/filterSystem.js';
import { storedBlooms } from '../src/filters/blockBlooms.js';
import type { LogQuery } from '../src/filters/logQuery.js';
import { formatLog } from '../src/rpc/format.js';

const BLOCKS = 10_000;
const MARK_EVERY = 100;
const KEY = keccak256(new TextEncoder().encode('bench logs key'));
const EMITTER = bigintToFixed(0x5702en, 20);
const SIG = keccak256(new TextEncoder().encode('Stored(address,uint256)'));
const MARK = bigintToFixed(0xfeedn, 32);

function headerAt(number: bigint, parentHash: Uint8Array, bloom: Uint8Array): Header {
  return {
    parentHash, sha3Uncles: EMPTY_UNCLES_HASH, miner: EMITTER, stateRoot: EMPTY_TRIE_ROOT, transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT, logsBloom: bloom, difficulty: 512n, number, gasLimit: 9_000_000n, gasUsed: 30_000n,
    timestamp: 1_700_000_000n + number, extraData: new Uint8Array(), mixHash: new Uint8Array(32), nonce: new Uint8Array(8),
  };
}

/** Writes genesis plus BLOCKS blocks; every MARK_EVERY-th block's log carries the MARK topic. */
async function buildChain(dir: string): Promise<number> {
  const db = await Database.open(dir);
  const started = performance.now();
  const chain = await Blockchain.create(db, blockFromParts(headerAt(0n, new Uint8Array(32), new Uint8Array(256)), []), []);
  for (let n = 1; n <= BLOCKS; n++) {
    const tx = signTransaction(
      { nonce: BigInt(n - 1), syscnt: 0n, gasPrice: 1n, gas: 100_000n, to: EMITTER, value: 0n, data: new Uint8Array(), shardingFlag: 0n, via: null },
      KEY,
      100n,
    );
    const log: Log = { address: EMITTER, topics: [SIG, n % MARK_EVERY === 0 ? MARK : bigintToFixed(BigInt(n), 32)], data: bigintToFixed(BigInt(n), 32) };
    const bloom = logsBloom([log]);
    const receipt: Receipt = { status: 1, cumulativeGasUsed: 30_000n, gasUsed: 30_000n, logsBloom: bloom, logs: [log], contractAddress: null };
    await chain.commitBlock(blockFromParts(headerAt(BigInt(n), chain.head.hash, bloom), [tx]), [receipt], []);
  }
  await db.close();
  return (performance.now() - started) / 1000;
}

async function timeQuery(dir: string, query: LogQuery, runs: number): Promise<{ cold: number; warm: number; logs: number }> {
  const db = await Database.open(dir);
  try {
    const chain = (await Blockchain.open(db))!;
    const noPool = { on: () => undefined, off: () => undefined };
    const filters = new FilterSystem({ chain, pool: noPool, pending: { get: async () => ({ transactions: [], receipts: [] }) }, blooms: storedBlooms(db) }, { timeoutSeconds: 300 });
    // Formatting included: what mc_getLogs does apart from the JSON envelope.
    const answer = async () => (await filters.getLogs(query)).map((e) => formatLog(e.log, e.at));
    let start = performance.now();
    const logs = (await answer()).length;
    const cold = (performance.now() - start) / 1000;
    start = performance.now();
    for (let i = 0; i < runs; i++) await answer();
    const warm = (performance.now() - start) / 1000 / runs;
    filters.stop();
    return { cold, warm, logs };
  } finally {
    await db.close();
  }
}

export async function benchLogs(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mcnode-bench-logs-'));
  try {
    const buildSeconds = await buildChain(dir);
    const range = { fromBlock: 1n, toBlock: BigInt(BLOCKS) } as const;
    const selective = await timeQuery(dir, { ...range, criteria: { addresses: [], topics: [null, [MARK]] } }, 3);
    const everything = await timeQuery(dir, { ...range, criteria: { addresses: [EMITTER], topics: [] } }, 1);
    const rate = (s: number) => Math.round(BLOCKS / s).toLocaleString('en-US');
    console.log(`\nmc_getLogs over ${BLOCKS.toLocaleString('en-US')} blocks (FilterSystem.getLogs + formatLog on LevelDB; chain built in ${buildSeconds.toFixed(1)} s)`);
    console.log(`  selective topic (${selective.logs} logs, bloom skips 99%):  cold ${rate(selective.cold)} blocks/s (${(selective.cold * 1000).toFixed(0)} ms), warm ${rate(selective.warm)} blocks/s`);
    console.log(`  every block matches (${everything.logs} logs, all receipts):  cold ${rate(everything.cold)} blocks/s (${(everything.cold * 1000).toFixed(0)} ms), warm ${rate(everything.warm)} blocks/s`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await benchLogs();
