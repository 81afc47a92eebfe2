// The reorganisation moment: a heavier branch forking a few blocks below the head is built on a
// rival node (from the node's own prefix, with transfers of dev account 0, which the driver's
// senders never use), then admin_importChain hands it to the node and SIGKILL lands while the
// import runs: side blocks being stored, the switch batch, or the blocks after it. Afterwards
// the head must be one consistent chain: every canonical block from the fork point on belongs
// wholly to the old branch or wholly to the rival's, and links to its parent.

import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { deriveDevKeys, privateKeyToAddress } from '../../src/accounts/keys.js';
import { signTransaction } from '../../src/chain/transaction.js';
import { bytesToHex } from '../../src/encoding/hex.js';
import { CLI, startNodeProcess } from '../lib/nodeProcess.js';
import { IpcConnection, rpc, rpcBatchAll, sleep, waitUntil } from '../lib/rpcClient.js';
import { CHAIN_ID, DEV_MNEMONIC, type Endpoints } from './chainDriver.js';
import type { KillContext, KillOutcome } from './kinds.js';

const run = promisify(execFile);
const [RIVAL_KEY] = deriveDevKeys(DEV_MNEMONIC, 1);
const RIVAL_ADDRESS = bytesToHex(privateKeyToAddress(RIVAL_KEY));

/** What the check after the restart needs to know about one reorganisation kill. */
export interface ReorgPlan {
  fork: number;
  /** canonical hashes of the old branch above the fork, by number */
  old: Map<number, string>;
  /** the rival branch above the fork, by number */
  rival: Map<number, string>;
}

async function ipcCall(ipcPath: string, method: string, params: unknown[], timeoutMs = 60_000): Promise<any> {
  const conn = await IpcConnection.open(ipcPath);
  try {
    const line = await conn.call(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), timeoutMs);
    if (line === undefined) throw new Error(`${method}: connection closed`);
    const reply = JSON.parse(line);
    if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
    return reply.result;
  } finally {
    conn.close();
  }
}

async function hashesOf(http: string, from: number, to: number): Promise<Map<number, string>> {
  const numbers = Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
  const blocks = await rpcBatchAll(http, numbers.map((n) => ({ method: 'mc_getBlockByNumber', params: ['0x' + n.toString(16), false] })));
  return new Map(numbers.map((n, i) => [n, blocks[i].result?.hash as string]));
}

/** Grows the rival chain by `count` blocks, one transfer of account 0 each (instant mining). */
async function mineRival(http: string, count: number): Promise<void> {
  let nonce = BigInt(await rpc(http, 'mc_getTransactionCount', [RIVAL_ADDRESS, 'pending']));
  for (let i = 0; i < count; i++) {
    const tx = signTransaction(
      { nonce: nonce++, syscnt: 0n, gasPrice: 20n * 10n ** 9n, gas: 21_000n, to: new Uint8Array(20).fill(0x77), value: 1n, data: new Uint8Array(), shardingFlag: 0n, via: null },
      RIVAL_KEY, CHAIN_ID,
    );
    const hash = await rpc(http, 'mc_sendRawTransaction', [bytesToHex(tx.raw)]);
    await waitUntil(() => rpc(http, 'mc_getTransactionReceipt', [hash]), `rival block ${i + 1}`, 20_000);
  }
}

/** Builds the rival branch file; returns the plan and the file. */
async function buildRival(ctx: KillContext, dir: string): Promise<{ plan: ReorgPlan; file: string } | undefined> {
  const { node, random } = ctx;
  const head = Number(await rpc(ctx.ep.http, 'mc_blockNumber'));
  const depth = Math.min(head, random.range(2, 8));
  const fork = head - depth;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const rivalDir = path.join(dir, 'rival');
  if (fork > 0) {
    const prefix = path.join(dir, 'prefix.rlp');
    await ipcCall(node.ipc!, 'admin_exportChain', [prefix, '0x1', '0x' + fork.toString(16)]);
    await run(process.execPath, [CLI, 'import', prefix, '--datadir', rivalDir, ...ctx.chainFlags, '--verbosity', '1'], { timeout: 120_000 });
  }
  // Longer than the old branch (fixed difficulty: more blocks, more total difficulty), with room for its growth.
  const length = depth + random.range(3, 12);
  const rival = await startNodeProcess(rivalDir, { args: ['--mining.mode', 'instant', '--verbosity', '2', ...ctx.chainFlags] });
  try {
    await mineRival(rival.http!, length);
    const file = path.join(dir, 'rival.rlp');
    await ipcCall(rival.ipc!, 'admin_exportChain', [file, '0x' + (fork + 1).toString(16), '0x' + (fork + length).toString(16)]);
    const plan: ReorgPlan = {
      fork,
      old: await hashesOf(ctx.ep.http, fork + 1, Number(await rpc(ctx.ep.http, 'mc_blockNumber'))),
      rival: await hashesOf(rival.http!, fork + 1, fork + length),
    };
    return { plan, file };
  } finally {
    await rival.stop();
  }
}

export async function midReorg(ctx: KillContext): Promise<KillOutcome> {
  const built = await buildRival(ctx, path.join(ctx.workdir, 'reorg'));
  if (!built) return { confirmed: false, note: 'no rival branch' };
  const { plan, file } = built;
  ctx.reorgs.push(plan);
  let done = false;
  const importing = ipcCall(ctx.node.ipc!, 'admin_importChain', [file], 60_000).then(
    () => (done = true),
    () => undefined,
  );
  // Half the kills aim at a random moment early in the import (side blocks, the switch): within
  // 1 ms per rival block, as an import now takes about that (5 ms per block let whole imports
  // finish first). Half wait until the head is on the rival branch and kill while the blocks
  // after it are imported.
  const afterSwitch = ctx.random.chance(0.5);
  if (afterSwitch) {
    const rivalHashes = new Set(plan.rival.values());
    const deadline = Date.now() + 20_000;
    while (!done && Date.now() < deadline) {
      const head = await rpc(ctx.ep.http, 'mc_getBlockByNumber', ['latest', false], 2000).catch(() => undefined);
      if (head && rivalHashes.has(head.hash)) break;
    }
  } else {
    await sleep(ctx.random.range(0, plan.rival.size));
  }
  ctx.node.proc.kill('SIGKILL');
  await importing;
  const aim = afterSwitch ? 'after the switch' : 'early';
  return { confirmed: !done, note: `fork at #${plan.fork}, old branch ${plan.old.size} blocks, rival ${plan.rival.size}; killed ${aim}, import ${done ? 'had finished' : 'cut off'}` };
}

/** After the restart: the canonical blocks above the fork are all old-branch or all rival, and linked. */
export async function checkReorg(ep: Endpoints, plan: ReorgPlan): Promise<string[]> {
  const problems: string[] = [];
  const head = Number(await rpc(ep.http, 'mc_blockNumber'));
  const blocks = await rpcBatchAll(ep.http, Array.from({ length: head - plan.fork + 1 }, (_, i) => ({
    method: 'mc_getBlockByNumber', params: ['0x' + (plan.fork + i).toString(16), false],
  })));
  let side: 'old' | 'rival' | 'new' | undefined;
  for (let i = 1; i < blocks.length; i++) {
    const b = blocks[i].result;
    const n = plan.fork + i;
    if (!b) {
      problems.push(`reorg: canonical block ${n} missing below the head #${head}`);
      continue;
    }
    if (b.parentHash !== blocks[i - 1].result?.hash) problems.push(`reorg: block ${n} does not link to block ${n - 1}`);
    const here = plan.old.get(n) === b.hash ? 'old' : plan.rival.get(n) === b.hash ? 'rival' : 'new';
    // Blocks mined after the restart ('new') may only follow a branch, never sit inside one.
    if (side !== undefined && side !== here && here !== 'new') problems.push(`reorg: block ${n} is on the ${here} branch above a block of the ${side} branch`);
    if (side === 'new' && here !== 'new') problems.push(`reorg: block ${n} (${here}) above a block mined after the restart`);
    side = here;
  }
  if (blocks.length > 1 && blocks[1].result && plan.old.has(plan.fork + 1) && plan.old.get(plan.fork + 1) !== blocks[1].result.hash && plan.rival.get(plan.fork + 1) !== blocks[1].result.hash) {
    problems.push(`reorg: block ${plan.fork + 1} is on neither branch`);
  }
  return problems;
}
