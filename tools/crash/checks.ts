// What must hold after a node was killed with SIGKILL and started again (docs/persistence-and-guarantees.md#crash-safety): every
// acknowledged transaction is still pending or mined; the head, its recent ancestors, their
// receipts and the state at the head are consistent; and, from time to time, the whole chain
// re-executes block by block to the same roots (`mcnode export`, then `mcnode import` into a
// mirror datadir, which verifies PoW, signatures, state, transaction and receipt roots).

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CLI } from '../lib/nodeProcess.js';
import { rpc, rpcBatchAll } from '../lib/rpcClient.js';
import type { ChainDriver, Endpoints } from './chainDriver.js';

const run = promisify(execFile);

export interface RestartReport {
  head: { number: number; hash: string };
  problems: string[];
  mined: number;
  pending: number;
  appMined: number;
  appPending: number;
}

/** Checks the node's chain and the acknowledged transactions; `depth` recent blocks in detail. */
export async function checkAfterRestart(ep: Endpoints, driver: ChainDriver, depth = 6): Promise<RestartReport> {
  const problems: string[] = [];
  const head = await rpc(ep.http, 'mc_getBlockByNumber', ['latest', true]);
  const headNumber = Number(head.number);

  // Recent blocks: linked, each transaction with its receipt in that block, gas adding up.
  const from = Math.max(0, headNumber - depth + 1);
  const blocks = await rpcBatchAll(ep.http, range(from, headNumber).map((n) => ({ method: 'mc_getBlockByNumber', params: ['0x' + n.toString(16), true] })));
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i].result;
    if (!b) {
      problems.push(`block ${from + i} missing below the head`);
      continue;
    }
    const prev = blocks[i - 1]?.result;
    if (prev && b.parentHash !== prev.hash) problems.push(`block ${b.number} does not link to ${prev.hash}`);
    const receipts = await rpcBatchAll(ep.http, b.transactions.map((tx: any) => ({ method: 'mc_getTransactionReceipt', params: [tx.hash] })));
    receipts.forEach((r, j) => {
      if (!r.result) problems.push(`block ${b.number} tx ${j}: no receipt`);
      else if (r.result.blockHash !== b.hash || Number(r.result.transactionIndex) !== j) problems.push(`block ${b.number} tx ${j}: receipt points elsewhere`);
    });
    const last = receipts[receipts.length - 1]?.result;
    if (last && last.cumulativeGasUsed !== b.gasUsed) problems.push(`block ${b.number}: receipts use ${last.cumulativeGasUsed} gas, header ${b.gasUsed}`);
  }

  // The state at the head is readable for every sender.
  const state = await rpcBatchAll(ep.http, driver.senders.flatMap((s) => [
    { method: 'mc_getBalance', params: [s.address, 'latest'] },
    { method: 'mc_getTransactionCount', params: [s.address, 'latest'] },
  ]));
  state.forEach((r, i) => r.error && problems.push(`state at the head: ${r.error.message} (sender ${i >> 1})`));

  // Every acknowledged main-chain transaction: pending or mined, and if mined, canonically.
  const acked = [...driver.acked];
  const txs = await rpcBatchAll(ep.http, acked.map((h) => ({ method: 'mc_getTransactionByHash', params: [h] })));
  const mined: Array<{ hash: string; block: string; number: string }> = [];
  let pending = 0;
  txs.forEach((r, i) => {
    if (r.error) problems.push(`acknowledged ${acked[i]}: ${r.error.message}`);
    else if (!r.result) problems.push(`acknowledged ${acked[i]} is LOST`);
    else if (r.result.blockHash) mined.push({ hash: acked[i], block: r.result.blockHash, number: r.result.blockNumber });
    else pending++;
  });
  const receipts = await rpcBatchAll(ep.http, mined.map((m) => ({ method: 'mc_getTransactionReceipt', params: [m.hash] })));
  receipts.forEach((r, i) => {
    if (!r.result || r.result.blockHash !== mined[i].block) problems.push(`mined ${mined[i].hash}: receipt missing or in another block`);
  });
  const numbers = [...new Set(mined.map((m) => m.number))];
  const canon = await rpcBatchAll(ep.http, numbers.map((n) => ({ method: 'mc_getBlockByNumber', params: [n, false] })));
  const canonical = new Map(numbers.map((n, i) => [n, canon[i].result?.hash]));
  for (const m of mined) if (canonical.get(m.number) !== m.block) problems.push(`mined ${m.hash}: block ${m.block} is not canonical`);

  // Every acknowledged app-chain transaction: in the app chain's pool or in one of its blocks.
  const appAcked = [...driver.appAcked];
  const appTxs = await rpcBatchAll(ep.scs, appAcked.map((h) => ({ method: 'scs_getTransactionByHash', params: [driver.appChain, h] })));
  const appReceipts = await rpcBatchAll(ep.scs, appAcked.map((h) => ({ method: 'scs_getReceiptByHash', params: [driver.appChain, h] })));
  let appMined = 0;
  appTxs.forEach((r, i) => {
    if (r.error) problems.push(`acknowledged app-chain ${appAcked[i]}: ${r.error.message}`);
    else if (!r.result) problems.push(`acknowledged app-chain ${appAcked[i]} is LOST`);
    else if (appReceipts[i].result) appMined++;
  });
  const appHead = await rpc(ep.scs, 'scs_getBlock', [driver.appChain, 'latest']);
  const appHeadTxs: unknown[] = appHead?.transactions ?? [];
  const appHashes = appHeadTxs.map((tx) => (typeof tx === 'string' ? tx : (tx as { hash?: string; transactionHash?: string }).hash ?? (tx as { transactionHash?: string }).transactionHash));
  const headReceipts = await rpcBatchAll(ep.scs, appHashes.map((h) => ({ method: 'scs_getReceiptByHash', params: [driver.appChain, h] })));
  headReceipts.forEach((r, i) => !r.result && problems.push(`app-chain head block ${appHead.number} tx ${appHashes[i]}: no receipt`));

  return {
    head: { number: headNumber, hash: head.hash },
    problems,
    mined: mined.length,
    pending,
    appMined,
    appPending: appAcked.length - appMined,
  };
}

export interface ReplayReport {
  ok: boolean;
  detail: string;
  /** the mirror's head after the import */
  head?: { number: number; hash: string };
  seconds: number;
}

/**
 * Re-executes the chain of a stopped node's datadir: `export` to a file, then `import` into
 * `mirror` (blocks it verified before are skipped; a block that changed would be refused).
 */
export async function replayChain(datadir: string, mirror: string, file: string, chainFlags: string[]): Promise<ReplayReport> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  try {
    await run(process.execPath, [CLI, 'export', file, '--datadir', datadir, ...chainFlags, '--verbosity', '1'], { timeout: 300_000 });
    const { stdout } = await run(process.execPath, [CLI, 'import', file, '--datadir', mirror, ...chainFlags, '--verbosity', '1'], { timeout: 600_000 });
    const m = /head #(\d+) (0x[0-9a-f]{64})/.exec(stdout);
    if (!m) return { ok: false, detail: `import said: ${stdout.slice(-300)}`, seconds: seconds() };
    return { ok: true, detail: stdout.trim().split('\n').pop() ?? '', head: { number: Number(m[1]), hash: m[2] }, seconds: seconds() };
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    return { ok: false, detail: (e.stderr || e.message).trim().slice(0, 500), seconds: seconds() };
  }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}
