// `npm run crash`: SIGKILLs a real node at four kinds of moments (mid-sealing, right after a
// sendRawTransaction reply, during a block write burst, during a filter poll storm), KILLS
// times each, and checks after every restart that no acknowledged transaction was lost, the
// chain and state are consistent, and the node answers within 10 s (tools/crash/*).
//
// KILLS              kills per kind (default 50)
// CRASH_SEED         seed of the kill schedule and timings (default: fresh, printed)
// CRASH_VERIFY_EVERY full re-execution of the chain every N kills per chain (default 1: after every restart)
// CRASH_DIR          working directory (default: a fresh temp directory, removed on success)

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seedOf } from './lib/random.js';
import { KILL_KINDS, type KillKind } from './crash/kinds.js';
import { describeCrash, runCrash } from './crash/harness.js';

async function main(): Promise<void> {
  const kills = Number(process.env.KILLS ?? 50);
  if (!Number.isInteger(kills) || kills <= 0) throw new Error('KILLS must be a positive integer');
  const seed = seedOf(process.env.CRASH_SEED);
  const workdir = process.env.CRASH_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'mcnode-crash-'));
  console.log(`crash: KILLS=${kills} per kind, CRASH_SEED=${seed}, working in ${workdir}`);
  const result = await runCrash({
    kills: Object.fromEntries(KILL_KINDS.map((k) => [k, kills])) as Record<KillKind, number>,
    workdir,
    seed,
    verifyEvery: Number(process.env.CRASH_VERIFY_EVERY ?? 1),
    log: (l) => console.log(l),
  });
  console.log(describeCrash(result));
  for (const p of result.problems.slice(0, 50)) console.log(`PROBLEM ${p}`);
  const ok = result.problems.length === 0;
  console.log(ok ? 'crash: PASS' : `crash: FAIL (datadirs kept in ${workdir})`);
  if (ok && !process.env.CRASH_DIR) rmSync(workdir, { recursive: true, force: true });
  process.exitCode = ok ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(`crash: ${(err as Error)?.stack ?? String(err)}`);
  process.exitCode = 2;
});
