// The kill -9 harness: a real node on a datadir of its own, killed again and again at the
// moments of kinds.ts; after every restart it must answer within 10 s and pass the checks of
// checks.ts; every `verifyEvery` kills (and at the end) the whole chain is re-executed.
//
// Two chains: `sealing` kills run on a high-difficulty chain (a seal takes about a second);
// the other kinds share a default-difficulty chain where blocks follow transactions at once.

import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startNodeProcess, troubleIn, type NodeProcess } from '../lib/nodeProcess.js';
import { rpc } from '../lib/rpcClient.js';
import { Random } from '../lib/random.js';
import { ChainDriver, type Endpoints } from './chainDriver.js';
import { checkAfterRestart, replayChain, type ReplayReport } from './checks.js';
import { KILLERS, KILL_KINDS, type KillKind } from './kinds.js';
import { checkReorg, type ReorgPlan } from './reorgKill.js';

export const CRASH_APP_CHAIN = '0x57b7b8225bcb5d4c6c5abbe2e44fa67998cfa791';
/** A restarted node must answer within this long. */
export const ANSWER_LIMIT_MS = 10_000;
export const SEALING_DIFFICULTY = '0x400000';

export interface CrashOptions {
  /** kills per kind */
  kills: Partial<Record<KillKind, number>>;
  workdir: string;
  seed: number;
  /** full re-execution every this many kills of a chain (and always at the end); default 1 */
  verifyEvery?: number;
  log?: (line: string) => void;
}

export interface KindStats {
  kills: number;
  confirmed: number;
  maxAnswerMs: number;
  totalAnswerMs: number;
}

export interface CrashResult {
  kinds: Record<KillKind, KindStats>;
  acked: number;
  appAcked: number;
  unacknowledged: number;
  mined: number;
  appMined: number;
  problems: string[];
  replays: ReplayReport[];
  seconds: number;
}

interface ChainPlan {
  name: string;
  flags: string[];
  kinds: KillKind[];
}

export async function runCrash(o: CrashOptions): Promise<CrashResult> {
  const log = o.log ?? (() => undefined);
  const started = performance.now();
  const random = new Random(o.seed);
  const result: CrashResult = {
    kinds: Object.fromEntries(KILL_KINDS.map((k) => [k, { kills: 0, confirmed: 0, maxAnswerMs: 0, totalAnswerMs: 0 }])) as Record<KillKind, KindStats>,
    acked: 0, appAcked: 0, unacknowledged: 0, mined: 0, appMined: 0, problems: [], replays: [], seconds: 0,
  };
  const appChains = ['--appChains', JSON.stringify([{ address: CRASH_APP_CHAIN, flushRound: 100_000 }])];
  const plans: ChainPlan[] = [
    { name: 'slow', flags: ['--genesis.difficulty', SEALING_DIFFICULTY], kinds: ['sealing'] },
    { name: 'fast', flags: [], kinds: ['afterAck', 'writeBurst', 'filterStorm', 'reorg'] },
  ];
  for (const plan of plans) {
    // Interleave the kinds of a chain: a, b, c, a, b, c, ...
    const schedule: KillKind[] = [];
    const kills = (k: KillKind) => o.kills[k] ?? 0;
    for (let round = 0; schedule.length < plan.kinds.reduce((n, k) => n + kills(k), 0); round++) {
      for (const k of plan.kinds) if (round < kills(k)) schedule.push(k);
    }
    if (schedule.length === 0) continue;
    await runChain(plan, schedule, appChains, o, random, result, log);
  }
  result.seconds = (performance.now() - started) / 1000;
  return result;
}

async function runChain(
  plan: ChainPlan, schedule: KillKind[], appChains: string[], o: CrashOptions, random: Random, result: CrashResult, log: (l: string) => void,
): Promise<void> {
  const dir = path.join(o.workdir, plan.name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const datadir = path.join(dir, 'node');
  const mirror = path.join(dir, 'mirror');
  const chainFlags = [...plan.flags];
  const args = ['--mining.mode', 'instant', '--verbosity', '2', ...chainFlags, ...appChains];
  const driver = new ChainDriver(CRASH_APP_CHAIN);
  const problem = (p: string) => {
    result.problems.push(`${plan.name}: ${p}`);
    log(`  PROBLEM ${p}`);
  };

  let node: NodeProcess = await startNodeProcess(datadir, { args });
  let ep: Endpoints = { http: node.http!, scs: node.scs! };
  await driver.resync(ep);
  const verifyEvery = o.verifyEvery ?? 1;

  for (let i = 0; i < schedule.length; i++) {
    const kind = schedule[i];
    const reorgs: ReorgPlan[] = [];
    const outcome = await KILLERS[kind]({ node, ep, driver, random, workdir: dir, chainFlags, reorgs });
    await node.exited;
    checkLog(node, problem);
    const stats = result.kinds[kind];
    stats.kills++;
    if (outcome.confirmed) stats.confirmed++;

    const t0 = performance.now();
    node = await startNodeProcess(datadir, { args });
    ep = { http: node.http!, scs: node.scs! };
    await rpc(ep.http, 'mc_blockNumber', [], ANSWER_LIMIT_MS).catch((err: Error) => problem(`no answer after restart: ${err.message}`));
    const answerMs = performance.now() - t0;
    stats.maxAnswerMs = Math.max(stats.maxAnswerMs, answerMs);
    stats.totalAnswerMs += answerMs;
    if (answerMs > ANSWER_LIMIT_MS) problem(`kill ${i + 1}: answered ${Math.round(answerMs)} ms after restart`);

    const report = await checkAfterRestart(ep, driver);
    for (const plan of reorgs) report.problems.push(...(await checkReorg(ep, plan)));
    for (const p of report.problems) problem(`after kill ${i + 1} (${kind}): ${p}`);
    log(
      `${plan.name} kill ${i + 1}/${schedule.length} ${kind}: ${outcome.confirmed ? 'confirmed' : 'unconfirmed'} (${outcome.note}); ` +
        `restart answered in ${Math.round(answerMs)} ms; head #${report.head.number}; acknowledged ${driver.acked.size} main (${report.pending} pending) and ${driver.appAcked.size} app-chain (${report.appPending} pending); ${report.problems.length} problems`,
    );
    await driver.resync(ep);

    const last = i === schedule.length - 1;
    if ((i + 1) % verifyEvery === 0 || last) {
      // The node may still seal restored transactions between this read and its stop: the
      // re-executed chain must reach this head, and hold the same block if it ends there.
      const seen = await rpc(ep.http, 'mc_getBlockByNumber', ['latest', false]);
      await node.stop();
      checkLog(node, problem);
      const replay = await replayChain(datadir, mirror, path.join(dir, 'chain.rlp'), chainFlags);
      result.replays.push(replay);
      const seenNumber = Number(seen.number);
      if (!replay.ok) problem(`re-execution failed: ${replay.detail}`);
      else if (!replay.head || replay.head.number < seenNumber) problem(`re-executed head #${replay.head?.number} is below the node's head #${seenNumber}`);
      else if (replay.head.number === seenNumber && replay.head.hash !== seen.hash) problem(`re-executed head ${replay.head.hash} is not the node's head ${seen.hash}`);
      log(`${plan.name}: re-executed the chain to #${replay.head?.number} in ${replay.seconds.toFixed(1)} s: ${replay.ok ? 'roots match' : replay.detail}`);
      if (last) {
        result.mined += report.mined;
        result.appMined += report.appMined;
        break;
      }
      node = await startNodeProcess(datadir, { args });
      ep = { http: node.http!, scs: node.scs! };
      await driver.resync(ep);
    }
  }
  if (node.alive()) await node.stop();
  result.acked += driver.acked.size;
  result.appAcked += driver.appAcked.size;
  result.unacknowledged += driver.unacknowledged;
}

/** A killed node leaves no trace in its log; only a crash of its own would. */
function checkLog(node: NodeProcess, problem: (p: string) => void): void {
  for (const line of troubleIn(node.stderr())) problem(`node log: ${line}`);
}

/** A summary table for people and for bench/RESULTS.md. */
export function describeCrash(r: CrashResult): string {
  const lines = ['kind         kills  confirmed  max answer  mean answer'];
  for (const k of KILL_KINDS) {
    const s = r.kinds[k];
    if (s.kills === 0) continue;
    lines.push(`${k.padEnd(12)} ${String(s.kills).padStart(5)}  ${String(s.confirmed).padStart(9)}  ${(s.maxAnswerMs / 1000).toFixed(2).padStart(8)} s  ${(s.totalAnswerMs / s.kills / 1000).toFixed(2).padStart(9)} s`);
  }
  lines.push(
    `acknowledged: ${r.acked} main-chain (${r.mined} mined), ${r.appAcked} app-chain (${r.appMined} in blocks); ${r.unacknowledged} sends cut off unacknowledged`,
    `re-executions: ${r.replays.length}, ${r.replays.filter((x) => x.ok).length} matched; ${r.problems.length} problems; ${r.seconds.toFixed(0)} s`,
  );
  return lines.join('\n');
}
