// Shared set-up of the reliability tests: a real node with a declared app chain, the contract
// the corpus uses for megabyte replies, and the memory checks (the live heap after a forced full
// collection, and the settled resident memory).

import path from 'node:path';
import { contractAddress } from '../../src/chain/transaction.js';
import { bytesToHex, hexToBytes } from '../../src/encoding/hex.js';
import { ROOT, readMetric, startNodeProcess, type NodeProcess } from '../../tools/lib/nodeProcess.js';
import { rpc, sleep, waitUntil } from '../../tools/lib/rpcClient.js';
import { DEV, rawTx } from '../helpers/accounts.js';

export const APP_CHAIN = '0x57b7b8225bcb5d4c6c5abbe2e44fa67998cfa791';
export const MiB = 1024 * 1024;

/** `--appChains` for one declared app chain that never flushes during a test. */
export const APP_CHAIN_FLAGS = ['--appChains', JSON.stringify([{ address: APP_CHAIN, owner: DEV[0].address, flushRound: 100_000 }])];

/** Init code deploying runtime `PUSH1 0 CALLDATALOAD PUSH1 0 RETURN`: returns calldata[0:32] zero bytes. */
const BIG_RETURN_INIT = '0x65' + '6000356000f3' + '6000526006601af3';

const GC_ON_SIGNAL = path.join(ROOT, 'test/helpers/gcOnSignal.cjs');

/**
 * Starts the node; with `gcOnSignal`, SIGUSR2 makes it run a full collection (a preloaded test
 * helper: mcnode has no such hook) for `collectGarbage`.
 */
export async function startReliabilityNode(datadir: string, extra: string[] = [], gcOnSignal = false): Promise<NodeProcess> {
  const nodeFlags = gcOnSignal ? ['--expose-gc', '--require', GC_ON_SIGNAL] : [];
  return startNodeProcess(datadir, { args: ['--mining.mode', 'instant', ...APP_CHAIN_FLAGS, ...extra], nodeFlags });
}

/** One reading of the node's V8 heap from its metrics endpoint, in bytes. */
export async function heapOf(node: NodeProcess): Promise<{ used: number; external: number }> {
  const text = await (await fetch(node.metrics!)).text();
  return { used: readMetric(text, 'nodejs_heap_size_used_bytes'), external: readMetric(text, 'nodejs_external_memory_bytes') };
}

/**
 * Runs a full collection in a node started with `gcOnSignal` and returns its heap right after.
 * Without it, whether V8 has collected a burst of garbage yet is a matter of timing.
 */
export async function collectGarbage(node: NodeProcess): Promise<{ used: number; external: number }> {
  const reports = () => [...node.stderr().matchAll(/^full collection: heap (\d+) external (\d+)$/gm)];
  const before = reports().length;
  node.proc.kill('SIGUSR2');
  const [, used, external] = await waitUntil(async () => reports()[before], 'a full collection', 30_000, 50);
  return { used: Number(used), external: Number(external) };
}

/** Deploys the big-return contract from DEV[1] (nonce 0) and returns its address. */
export async function deployBigReturn(node: NodeProcess): Promise<string> {
  const { raw, hash } = rawTx(DEV[1].key, { nonce: 0n, data: hexToBytes(BIG_RETURN_INIT), gas: 100_000n });
  await rpc(node.http!, 'mc_sendRawTransaction', [raw]);
  const receipt = await waitUntil(() => rpc(node.http!, 'mc_getTransactionReceipt', [hash]), 'deploy receipt');
  if (receipt.status !== '0x1') throw new Error('big-return contract deploy failed');
  return bytesToHex(contractAddress(hexToBytes(DEV[1].address), 0n));
}

/**
 * Resident memory after the node had `ms` to settle: the lowest of a few readings, since a
 * single reading may catch a transient allocation. Nothing is forced (no GC call).
 */
export async function settledRss(node: NodeProcess, ms = 3000): Promise<number> {
  let low = Infinity;
  const end = Date.now() + ms;
  while (Date.now() < end) {
    low = Math.min(low, node.rss() ?? Infinity);
    await sleep(250);
  }
  return low;
}

/**
 * Waits up to `timeoutMs` for resident memory to fall below `limit` (V8 returns memory a few
 * seconds after a burst, unforced); returns the lowest reading seen.
 */
export async function settleBelow(node: NodeProcess, limit: number, timeoutMs: number): Promise<number> {
  let low = Infinity;
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    low = Math.min(low, node.rss() ?? Infinity);
    if (low < limit) return settledRss(node, 1000).then((r) => Math.min(r, low));
    await sleep(500);
  }
  return low;
}
