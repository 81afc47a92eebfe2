// Import rate of the one import path without the network: builds a chain of empty blocks and
// one of transfer blocks in a scratch rig, then imports them into a fresh rig and prints
// blocks/s, tx/s and per CPU-second. Blocks go in runs of 192 as sync hands them over
// (importBlocks: groups committed in one batch each), or one by one with `single`. Run under
// `node --cpu-prof` to see where import time goes.
//
//   node dist/tools/importRate.js [emptyBlocks=500] [txBlocks=40] [txsPerBlock=50] [runs|single]

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { decodeBlockParts, encodeBlock } from '../src/chain/block.js';
import { MAX_HEADERS } from '../src/p2p/messages.js';
import { openRig, type Rig } from './lib/chainRig.js';

// As in bench/network.ts: transfers to a low address, which run through the EVM.
const RECIPIENT = Uint8Array.from({ length: 20 }, (_, i) => (i === 19 ? 0xaa : 0));

async function buildChain(rig: Rig, blocks: number, txs: number): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const nonces = rig.keys.map(() => 0n);
  let parent = rig.chain.head;
  for (let b = 0; b < blocks; b++) {
    const list = Array.from({ length: txs }, (_, i) => {
      const from = i % rig.keys.length;
      return rig.tx(from, nonces[from]++, { to: RECIPIENT });
    });
    parent = await rig.buildOn(parent, list);
    out.push(encodeBlock(parent.header, parent.transactions));
  }
  return out;
}

async function importAll(label: string, blocks: Uint8Array[], txs: number): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcnode-import-rate-'));
  const rig = await openRig(dir);
  try {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    if (mode === 'single') {
      for (const raw of blocks) {
        const outcome = await rig.importer.importBlock(raw);
        if (outcome !== 'extended') throw new Error(`import gave ${outcome}`);
      }
    } else {
      const received = blocks.map((encoded) => ({ ...decodeBlockParts(encoded), encoded }));
      for (let i = 0; i < received.length; i += MAX_HEADERS) {
        const outcomes = await rig.importer.importBlocks(received.slice(i, i + MAX_HEADERS));
        if (outcomes.some((o) => o !== 'extended')) throw new Error(`import gave ${outcomes.join(', ')}`);
      }
    }
    const seconds = (performance.now() - t0) / 1000;
    const c = process.cpuUsage(cpu0);
    const cpu = (c.user + c.system) / 1e6;
    const n = blocks.length;
    console.log(`${label} (${mode}): ${n} blocks in ${seconds.toFixed(2)} s: ${(n / seconds).toFixed(0)} blocks/s, ${((n * txs) / seconds).toFixed(0)} tx/s; per CPU-second ${(n / cpu).toFixed(0)} blocks, ${((n * txs) / cpu).toFixed(0)} tx`);
  } finally {
    await rig.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const [emptyCount = 500, txBlockCount = 40, perBlock = 50] = process.argv.slice(2, 5).map(Number);
const mode = process.argv[5] === 'single' ? 'single' : 'runs';
const dir = mkdtempSync(path.join(os.tmpdir(), 'mcnode-import-src-'));
const source = await openRig(dir);
const empty = await buildChain(source, emptyCount, 0);
await source.close();
rmSync(dir, { recursive: true, force: true });
const dir2 = mkdtempSync(path.join(os.tmpdir(), 'mcnode-import-src-'));
const source2 = await openRig(dir2);
const transfers = await buildChain(source2, txBlockCount, perBlock);
await source2.close();
rmSync(dir2, { recursive: true, force: true });
console.log(`load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs`);
await importAll('empty blocks', empty, 0);
await importAll(`blocks of ${perBlock} transfers`, transfers, perBlock);
