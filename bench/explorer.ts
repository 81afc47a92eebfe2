// Explorer support: ots_searchTransactionsBefore pages for an address with 10,000 transactions,
// trace_block of a full block (in process: replay, tracer, JSON text, as the handlers do), and the
// built-in explorer's first paint in headless chromium against a node on a 100,000-block chain.
// Run: BENCH_ONLY=explorer npm run bench (BENCH_EXPLORER_BLOCKS sets the chain length).

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { signTransaction } from '../src/chain/transaction.js';
import { hexToBytes, bytesToHex } from '../src/encoding/hex.js';
import { keccak256 } from '../src/encoding/bytes.js';
import { TraceRunner } from '../src/tracing/traceRunner.js';
import { TrieNodeStore } from '../src/state/trieNodeStore.js';
import { ChainTraces } from '../src/tracing/chainTraces.js';
import { FlatCallTracer } from '../src/tracing/flatCallTracer.js';
import { AddressIndexReader } from '../src/blockchain/addressIndex.js';
import { TransactionSearch } from '../src/blockchain/transactionSearch.js';
import { formatSearchPage } from '../src/rpc/modules/otsFormat.js';
import { formatTransactionTraces } from '../src/rpc/modules/traceFormat.js';
import { ROOT, startBenchNode } from './nodeProcess.js';
import { mineTx, openBenchChain, type BenchChain } from './devctl.js';

const SEARCH_TXS = 10_000;
/** Transactions of the searched address per block: its page of 25 spans a few blocks. */
const PER_BLOCK = 10;
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const ms = (n: number) => n.toFixed(n < 10 ? 2 : 1);
const word = (v: bigint | string) => (typeof v === 'string' ? v.replace(/^0x/, '') : v.toString(16)).padStart(64, '0');
const selector = (sig: string) => bytesToHex(keccak256(new TextEncoder().encode(sig)).subarray(0, 4)).slice(2);

function contract(name: string): { bytecode: string } {
  return JSON.parse(readFileSync(join(ROOT, 'test/fixtures/contracts/contracts.json'), 'utf8')).contracts[name];
}

/** Pools `count` signed transactions of the bench account and mines them, PER_BLOCK a block. */
async function mineMany(b: BenchChain, count: number, fields: (i: number) => { to: Uint8Array | null; data: Uint8Array; gas: bigint; value?: bigint }): Promise<void> {
  for (let done = 0; done < count;) {
    const n = Math.min(PER_BLOCK, count - done);
    for (let i = 0; i < n; i++) {
      const f = fields(done + i);
      await b.pool.add(signTransaction(
        { nonce: b.nonce++, syscnt: 0n, gasPrice: 1_000_000_000n, gas: f.gas, to: f.to, value: f.value ?? 0n, data: f.data, shardingFlag: 0n, via: null },
        b.key, 100n,
      ));
    }
    while (b.pool.counts().pending > 0) await b.miner.mineBlocks(1);
    done += n;
  }
}

async function benchSearchAndTrace(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mcnode-bench-ots-'));
  const b = await openBenchChain(dir);
  try {
    const recipient = new Uint8Array(20).fill(0x42);
    let t0 = performance.now();
    await mineMany(b, SEARCH_TXS, () => ({ to: recipient, data: new Uint8Array(), gas: 21_000n, value: 1n }));
    const buildSeconds = (performance.now() - t0) / 1000;
    const chain = b.core.chain;
    const runner = new TraceRunner({ world: b.core.world, scratchNodes: () => TrieNodeStore.scratchOver(b.core.nodes), makeEvm: (sm) => b.core.builder.createEvm(sm), rules: b.core.rules, gasCap: 50_000_000n });
    const traces = new ChainTraces(chain, runner);
    const search = new TransactionSearch({
      chain, index: new AddressIndexReader(b.db), building: () => undefined,
      nonceAt: async () => 0n, creatorIn: async () => undefined,
    });

    // The newest page, then every older page down to the first transaction (25 a page, as Otterscan asks).
    const first: number[] = [];
    for (let i = 0; i < 20; i++) {
      t0 = performance.now();
      JSON.stringify(formatSearchPage(await search.before(recipient, 0n, 25)));
      first.push(performance.now() - t0);
    }
    const pages: number[] = [];
    let before = 0n;
    let seen = 0;
    for (;;) {
      t0 = performance.now();
      const page = await search.before(recipient, before, 25);
      JSON.stringify(formatSearchPage(page));
      pages.push(performance.now() - t0);
      seen += page.txs.length;
      if (page.lastPage || page.txs.length === 0) break;
      before = page.txs[page.txs.length - 1].block.header.number;
    }
    console.log(`ots_searchTransactionsBefore on an address with ${SEARCH_TXS.toLocaleString('en-US')} transactions (${chain.head.header.number} blocks of ${PER_BLOCK} built in ${buildSeconds.toFixed(1)} s; in process: index, blocks, receipts, JSON text)`);
    console.log(`  newest page: median ${ms(median(first))} ms; paging to the oldest: ${pages.length} pages (${seen.toLocaleString('en-US')} transactions with whole blocks), median ${ms(median(pages))} ms, max ${ms(Math.max(...pages))} ms`);

    // A full block of contract calls with internal frames: Nest.run(v) (a CALL that stores and logs, a reverted STATICCALL, a STATICCALL).
    const store = await mineTx(b, null, hexToBytes(contract('Store').bytecode + word(7n)), 1_000_000n);
    const storeAddr = (await chain.getReceipts(store.block.hash))![0].contractAddress!;
    const nest = await mineTx(b, null, hexToBytes(contract('Nest').bytecode + word(bytesToHex(storeAddr))), 1_500_000n);
    const nestAddr = (await chain.getReceipts(nest.block.hash))![0].contractAddress!;
    const gasLimit = chain.head.header.gasLimit;
    const probe = await mineTx(b, nestAddr, hexToBytes('0x' + selector('run(uint256)') + word(1n)), 200_000n);
    const used = (await chain.getReceipts(probe.block.hash))![0].gasUsed;
    // Each call's gas limit a little above what one uses, so that the block fills up to its limit.
    const perCall = used + used / 8n;
    const calls = Number(gasLimit / perCall);
    for (let i = 0; i < calls; i++) {
      await b.pool.add(signTransaction(
        { nonce: b.nonce++, syscnt: 0n, gasPrice: 1_000_000_000n, gas: perCall, to: nestAddr, value: 0n, data: hexToBytes('0x' + selector('run(uint256)') + word(BigInt(i + 1))), shardingFlag: 0n, via: null },
        b.key, 100n,
      ));
    }
    const [full] = await b.miner.mineBlocks(1);
    const runs: number[] = [];
    let entries = 0;
    for (let i = 0; i < 5; i++) {
      t0 = performance.now();
      const out = (await traces.block(full, () => new FlatCallTracer())).flatMap((tr, k) => formatTransactionTraces(tr, full, k));
      JSON.stringify(out);
      entries = out.length;
      runs.push(performance.now() - t0);
    }
    console.log(`trace_block of a full block: ${full.transactions.length} Nest.run calls, ${full.header.gasUsed.toLocaleString('en-US')} of ${gasLimit.toLocaleString('en-US')} gas, ${entries} trace entries`);
    console.log(`  median ${ms(median(runs))} ms per block (${ms(median(runs) / full.transactions.length)} ms per transaction), max ${ms(Math.max(...runs))} ms`);
  } finally {
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const CHROMIUM = [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));

async function benchFirstPaint(): Promise<void> {
  const blocks = Number(process.env.BENCH_EXPLORER_BLOCKS ?? 100_000);
  if (!CHROMIUM) {
    console.log('explorer first paint: chromium not found (apt-get install chromium): skipped');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'mcnode-bench-paint-'));
  try {
    const b = await openBenchChain(dir);
    let t0 = performance.now();
    for (let built = 0; built < blocks; built += 1000) await b.miner.mineBlocks(Math.min(1000, blocks - built));
    for (let i = 0; i < 20; i++) await mineTx(b, new Uint8Array(20).fill(7), new Uint8Array(), 21_000n);
    const buildSeconds = (performance.now() - t0) / 1000;
    const head = b.core.chain.head.header.number;
    await b.close();

    const node = await startBenchNode([], ['--datadir', dir, '--mining.mode', 'off']);
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const paints: number[] = [];
      const tables: number[] = [];
      for (let i = 0; i < 6; i++) {
        const page = await browser.newPage();
        t0 = performance.now();
        await page.goto(`${node.url}/explorer/`);
        await page.waitForSelector('#latest-blocks tr:nth-child(13)');
        tables.push(performance.now() - t0);
        const paint = await page.evaluate(() => performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint')?.startTime ?? NaN);
        paints.push(paint);
        await page.close();
      }
      // The first load fills the node's caches and the browser's: the rest are what a visitor sees.
      const warm = (xs: number[]) => xs.slice(1);
      console.log(`explorer first paint on a ${head.toLocaleString('en-US')}-block chain (built in ${buildSeconds.toFixed(0)} s, fake seal; chromium headless, loopback)`);
      console.log(`  first contentful paint: first load ${ms(paints[0])} ms, then median ${ms(median(warm(paints)))} ms`);
      console.log(`  latest 12 blocks and their transactions on screen: first load ${ms(tables[0])} ms, then median ${ms(median(warm(tables)))} ms`);
    } finally {
      await browser.close();
      await node.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchExplorer(): Promise<void> {
  await benchSearchAndTrace();
  await benchFirstPaint();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await benchExplorer();
