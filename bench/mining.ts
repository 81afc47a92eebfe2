// Mining figures at the devnet difficulty (0x200): blocks/s sealed by the node's own miner, and
// the getWork → submitWork round trip of a remote miner (the search itself done here, with the
// same WebAssembly kernel the node uses, so the figure is the node's side plus a fast miner).

import { performance } from 'node:perf_hooks';
import { powKernel } from '../src/consensus/pow.js';
import { bytesToHex, hexToBytes } from '../src/encoding/hex.js';
import { startBenchNode } from './nodeProcess.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function localSealing(): Promise<string> {
  // Interval mining with a 1 ms period: the miner seals empty blocks back to back.
  const node = await startBenchNode([], ['--mining.mode', 'interval', '--mining.period', '0.001']);
  try {
    const first = Number(await node.rpc('mc_blockNumber'));
    const started = performance.now();
    await new Promise((r) => setTimeout(r, Math.min(seconds, 5) * 1000));
    const blocks = Number(await node.rpc('mc_blockNumber')) - first;
    const rate = blocks / ((performance.now() - started) / 1000);
    return `local sealing, empty blocks at 0x200:       ${rate.toFixed(0)} blocks/s`;
  } finally {
    await node.stop();
  }
}

async function remoteRoundTrips(): Promise<string[]> {
  const node = await startBenchNode([], ['--mining.mode', 'remote']);
  const kernel = powKernel();
  const mix = new Uint8Array(32);
  const rpcTimes: number[] = [];
  let blocks = 0;
  try {
    const end = performance.now() + Math.min(seconds, 5) * 1000;
    const started = performance.now();
    while (performance.now() < end) {
      const t0 = performance.now();
      const [sealHash, , target] = await node.rpc('mc_getWork');
      const t1 = performance.now();
      const nonce = kernel.search(hexToBytes(sealHash), hexToBytes(target), 0n, 1 << 30, mix);
      if (nonce < 0) throw new Error('no nonce found');
      const t2 = performance.now();
      const accepted = await node.rpc('mc_submitWork', ['0x' + BigInt(nonce).toString(16).padStart(16, '0'), sealHash, bytesToHex(mix)]);
      const t3 = performance.now();
      if (!accepted) throw new Error('a valid solution was refused');
      blocks++;
      rpcTimes.push(t1 - t0 + (t3 - t2));
    }
    const rate = blocks / ((performance.now() - started) / 1000);
    rpcTimes.sort((a, b) => a - b);
    return [
      `remote mining, getWork → search → submitWork: ${rate.toFixed(0)} blocks/s`,
      `  getWork + submitWork (node side, search excluded): p50 ${percentile(rpcTimes, 50).toFixed(2)} ms, p99 ${percentile(rpcTimes, 99).toFixed(2)} ms`,
    ];
  } finally {
    await node.stop();
  }
}

export async function benchMining(): Promise<void> {
  console.log('\nmining at the devnet difficulty 0x200');
  console.log(await localSealing());
  for (const line of await remoteRoundTrips()) console.log(line);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/.*\/dist\//, '/dist/'))) {
  await benchMining();
}
