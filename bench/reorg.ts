// Rewind and reorganisation cost on the node's own parts (in process, temp LevelDB, devnet
// rules): a 100-block chain of transfer blocks is mined, a rival branch of 101 blocks from the
// genesis is built apart and imported through the one import path. Measured: the side blocks'
// import rate (full verification), the import of the block that makes the rival heavier (its
// verification, the switch batch of 100 + 101 blocks, events, pool return), the switch alone
// (`reorgTo` back to the first branch), and a 100-block `rewindTo` with the pool return.
// Run: `npx tsc -p . && node dist/bench/reorg.js` (or BENCH_ONLY=reorg npm run bench).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openRig } from '../tools/lib/chainRig.js';
import type { Block } from '../src/chain/types.js';

const LENGTH = 100;

const ms = (start: number) => performance.now() - start;

export async function benchReorg(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mcnode-bench-reorg-'));
  const rig = await openRig(dir);
  try {
    const { chain, pool, importer } = rig;
    // First branch: one transfer of account 1 per block, mined locally.
    for (let i = 0; i < LENGTH; i++) {
      await pool.add(rig.tx(1, BigInt(i)));
      await rig.mine();
    }
    const firstHead = chain.head;
    // Rival branch from the genesis: one transfer of account 2 per block, built apart.
    const rival: Block[] = [];
    let parent = chain.genesis;
    for (let i = 0; i <= LENGTH; i++) {
      parent = await rig.buildOn(parent, [rig.tx(2, BigInt(i))], 7);
      rival.push(parent);
    }
    let start = performance.now();
    for (const block of rival.slice(0, LENGTH)) {
      const outcome = await importer.importBlock(block);
      if (outcome !== 'side') throw new Error(`rival block imported as ${outcome}`);
    }
    const sideMs = ms(start);
    start = performance.now();
    const outcome = await importer.importBlock(rival[LENGTH]);
    await pool.settled();
    const reorgMs = ms(start);
    if (outcome !== 'reorged') throw new Error(`the heavier block was ${outcome}`);
    if (pool.size !== LENGTH) throw new Error(`pool holds ${pool.size} returned transactions, want ${LENGTH}`);

    // The switch alone, back to the first branch (100 blocks out, 100 in) and forth.
    start = performance.now();
    await chain.reorgTo(firstHead.hash);
    await pool.settled();
    const switchMs = ms(start);

    start = performance.now();
    const removed = await importer.rewindTo(chain.genesis.hash);
    const rewindMs = ms(start);
    if (removed.length !== LENGTH) throw new Error(`rewound ${removed.length} blocks`);

    const rate = Math.round((LENGTH / sideMs) * 1000);
    console.log(`reorganisation and rewind (in process, ${LENGTH}-block branches of one transfer each)`);
    console.log(`  side-branch import (full verification): ${rate} blocks/s (${sideMs.toFixed(0)} ms for ${LENGTH})`);
    console.log(`  reorg by import of the heavier block (100 out, 101 in, pool return): ${reorgMs.toFixed(1)} ms`);
    console.log(`  switch alone (reorgTo: 101 out, 100 in, pool return): ${switchMs.toFixed(1)} ms`);
    console.log(`  rewindTo 100 blocks (pool return included): ${rewindMs.toFixed(1)} ms (target < 200 ms)`);
  } finally {
    await rig.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await benchReorg();
