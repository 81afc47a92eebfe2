// Subscriptions: 100 WebSocket clients each hold a newHeads subscription on a node that seals a
// block per transaction (instant mode). Blocks are made one after another; each round measures
// how long every subscriber waits from the transaction's send to its block's notification.
//
// Environment: BENCH_SUBSCRIBERS (100), BENCH_BLOCKS (200).

import WebSocket from 'ws';
import { deriveDevKeys, privateKeyToAddress } from '../src/accounts/keys.js';
import { startBenchNode } from './nodeProcess.js';
import { signedBodies } from './transfers.js';

const MNEMONIC = 'test test test test test test test test test test test junk';
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
  const node = await startBenchNode([], []);
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

    const key = deriveDevKeys(MNEMONIC, 1)[0];
    const recipient = privateKeyToAddress(deriveDevKeys(MNEMONIC, 2)[1]);
    const bodies = signedBodies(key, 0n, blocks, { recipient });
    let head = Number(await node.rpc('mc_blockNumber'));
    const started = performance.now();
    delivered = 0;
    for (const body of bodies) {
      roundNumber = head + 1;
      waiting = subscribers;
      const done = new Promise<void>((resolve, reject) => {
        roundDone = resolve;
        setTimeout(() => reject(new Error(`block ${roundNumber}: ${waiting} subscribers not told within ${ROUND_TIMEOUT_MS} ms`)), ROUND_TIMEOUT_MS).unref();
      });
      roundStart = performance.now();
      const res = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const reply = (await res.json()) as { error?: { message: string } };
      if (reply.error) throw new Error(`send failed: ${reply.error.message}`);
      await done;
      head = roundNumber;
    }
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    console.log(`subscriptions: ${subscribers} newHeads subscribers (WebSocket), ${blocks} blocks made one after another`);
    console.log(`  ${Math.round(delivered / seconds).toLocaleString('en-US')} notifications/s delivered (${(blocks / seconds).toFixed(1)} blocks/s)`);
    console.log(`  send → notification latency: p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms ` +
      '(includes building and sealing the block; instant mining, devnet difficulty)');
  } finally {
    for (const ws of clients) ws.terminate();
    await node.stop();
  }
}
