// Subscriptions: 100 WebSocket clients each hold a newHeads subscription. The bench is the node's
// miner (remote mode): it searches each block's nonce itself, then times every subscriber from
// the moment the seal is handed over (mc_submitWork) to its block's notification.
//
// Environment: BENCH_SUBSCRIBERS (100), BENCH_BLOCKS (200).

import WebSocket from 'ws';
import { powKernel } from '../src/consensus/pow.js';
import { bytesToHex, hexToBytes } from '../src/encoding/hex.js';
import { startBenchNode } from './nodeProcess.js';
const ROUND_TIMEOUT_MS = 10_000;

const envInt = (name: string, fallback: number) => {
  const n = Number(process.env[name]);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
};

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function benchSubscriptions(): Promise<void> {
  const subscribers = envInt('BENCH_SUBSCRIBERS', 100);
  const blocks = envInt('BENCH_BLOCKS', 200);
  process.stderr.write(`running newHeads to ${subscribers} subscribers over ${blocks} blocks …\n`);
  const node = await startBenchNode([], ['--mining.mode', 'remote']);
  const clients: WebSocket[] = [];
  try {
    const wsUrl = node.url.replace('http:', 'ws:');
    // block number → subscribers still waiting for it, and who is told
    let waiting = 0;
    let roundDone: (() => void) | undefined;
    let roundStart = 0;
    let roundNumber = -1;
    const latencies: number[] = [];
    let delivered = 0;
    for (let i = 0; i < subscribers; i++) {
      const ws = new WebSocket(wsUrl, { perMessageDeflate: false });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      await new Promise<void>((resolve) => {
        ws.once('message', () => resolve());
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
      });
      ws.on('message', (data) => {
        const now = performance.now();
        const m = JSON.parse(String(data));
        delivered++;
        if (Number(m.params?.result?.number) !== roundNumber) return;
        latencies.push(now - roundStart);
        if (--waiting === 0) roundDone?.();
      });
      clients.push(ws);
    }

    const kernel = powKernel();
    const mix = new Uint8Array(32);
    let head = Number(await node.rpc('mc_blockNumber'));
    let searching = 0;
    const started = performance.now();
    delivered = 0;
    for (let b = 0; b < blocks; b++) {
      const s0 = performance.now();
      const [sealHash, , target] = await node.rpc('mc_getWork');
      const nonce = kernel.search(hexToBytes(sealHash), hexToBytes(target), 0n, 1 << 30, mix);
      if (nonce < 0) throw new Error('no nonce found');
      searching += performance.now() - s0;
      roundNumber = head + 1;
      waiting = subscribers;
      const done = new Promise<void>((resolve, reject) => {
        roundDone = resolve;
        setTimeout(() => reject(new Error(`block ${roundNumber}: ${waiting} subscribers not told within ${ROUND_TIMEOUT_MS} ms`)), ROUND_TIMEOUT_MS).unref();
      });
      roundStart = performance.now();
      const accepted = await node.rpc('mc_submitWork', ['0x' + BigInt(nonce).toString(16).padStart(16, '0'), sealHash, bytesToHex(mix)]);
      if (!accepted) throw new Error('a valid solution was refused');
      await done;
      head = roundNumber;
    }
    // Notifications per second of delivery: the bench's own nonce search is left out.
    const seconds = (performance.now() - started - searching) / 1000;
    latencies.sort((a, b) => a - b);
    console.log(`subscriptions: ${subscribers} newHeads subscribers (WebSocket), ${blocks} empty blocks sealed one after another`);
    console.log(`  ${Math.round(delivered / seconds).toLocaleString('en-US')} notifications/s delivered (${(blocks / seconds).toFixed(1)} blocks/s)`);
    console.log(`  seal → notification (mc_submitWork sent → each subscriber told): p50 ${percentile(latencies, 50).toFixed(2)} ms, ` +
      `p99 ${percentile(latencies, 99).toFixed(2)} ms`);
  } finally {
    for (const ws of clients) ws.terminate();
    await node.stop();
  }
}
