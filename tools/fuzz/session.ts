// One fuzz session: a fresh node (temp datadir, a declared app chain), the bodies of every
// endpoint, then the verdict: no failure, the node alive and still answering, and nothing in
// its log that shows an escaped failure (unhandled rejection, uncaught exception, crash).

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNodeProcess, troubleIn } from '../lib/nodeProcess.js';
import { rpc } from '../lib/rpcClient.js';
import { runFuzz, type FuzzResult } from './fuzzRun.js';
import type { FuzzEndpoint } from './mutate.js';

export const FUZZ_APP_CHAIN = '0x57b7b8225bcb5d4c6c5abbe2e44fa67998cfa791';
const ACCOUNT = '0xf2e8267e788c835e2f91354d3c1fbc4c7836ccf0';

export interface SessionOptions {
  seed: number;
  count: number;
  only?: { endpoint: FuzzEndpoint; index: number };
  log?: (line: string) => void;
  /** an answer slower than this is a failure (default 2 s: `npm run fuzz` on a quiet machine) */
  deadlineMs?: number;
}

export interface SessionResult extends FuzzResult {
  seed: number;
  count: number;
  /** lines of the node's stderr that show trouble */
  trouble: string[];
  /** false when the node died or stopped answering */
  alive: boolean;
  seconds: number;
}

export async function fuzzSession(o: SessionOptions): Promise<SessionResult> {
  const log = o.log ?? (() => undefined);
  const datadir = mkdtempSync(path.join(os.tmpdir(), 'mcnode-fuzz-'));
  const node = await startNodeProcess(datadir, {
    args: ['--mining.mode', 'instant', '--appChains', JSON.stringify([{ address: FUZZ_APP_CHAIN, flushRound: 100_000 }])],
  });
  const started = performance.now();
  try {
    const genesis = await rpc(node.http!, 'mc_getBlockByNumber', ['0x0', false]);
    log(`fuzzing ${o.only ? `${o.only.endpoint} body ${o.only.index}` : `${o.count} bodies per endpoint`} with FUZZ_SEED=${o.seed} (node pid ${node.pid})`);
    const result = await runFuzz({
      seed: o.seed,
      count: o.count,
      env: { chain: FUZZ_APP_CHAIN, account: ACCOUNT, blockHash: genesis.hash },
      targets: { http: node.http!, scs: node.scs!, ipc: node.ipc! },
      endpoints: o.only ? [o.only.endpoint] : undefined,
      only: o.only ? [o.only.index] : undefined,
      deadlineMs: o.deadlineMs,
      onProgress: (endpoint, done) => log(`  ${endpoint}: ${done}`),
    });
    let alive = node.alive();
    if (alive) {
      try {
        await rpc(node.http!, 'mc_blockNumber', [], 10_000);
        await rpc(node.scs!, 'scs_getMicroChainList', [], 10_000);
      } catch {
        alive = false;
      }
    }
    return { ...result, seed: o.seed, count: o.count, trouble: troubleIn(node.stderr()), alive, seconds: (performance.now() - started) / 1000 };
  } finally {
    await node.stop();
    rmSync(datadir, { recursive: true, force: true });
  }
}

/** A report for people: counts, then each failure with the command that reproduces it. */
export function describeSession(r: SessionResult): string {
  const total = Object.values(r.sent).reduce((a, b) => a + b, 0);
  const lines = [
    `fuzz: FUZZ_SEED=${r.seed} FUZZ_COUNT=${r.count}: ${total} bodies (${Object.entries(r.sent).map(([e, n]) => `${e} ${n}`).join(', ')}) in ${r.seconds.toFixed(1)} s`,
    `  JSON-RPC outcomes ${JSON.stringify(r.outcomes)}`,
    `  HTTP statuses ${JSON.stringify(r.statuses)}, slowest answer ${Math.round(r.slowestMs)} ms, node ${r.alive ? 'alive' : 'DEAD'}, ${r.failures.length} failures, ${r.trouble.length} trouble lines in the node log`,
  ];
  for (const f of r.failures.slice(0, 20)) {
    lines.push(`  FAIL ${f.endpoint} #${f.index}: ${f.reason}`, `    body: ${f.body}`, `    reproduce: FUZZ_SEED=${r.seed} FUZZ_ONLY=${f.endpoint}:${f.index} npm run fuzz`);
  }
  if (r.failures.length > 20) lines.push(`  … ${r.failures.length - 20} more failures`);
  for (const l of r.trouble.slice(0, 20)) lines.push(`  LOG ${l}`);
  return lines.join('\n');
}
