// Runs a set of corpus files on the block executor (every case) and on the two call engines
// (the call-shaped cases), and tallies the outcome per hardfork and per engine. Used by
// `npm run conformance` (tools/conformance.ts: the whole corpus) and by the slice in `npm test`
// (test/conformance/stateTests.test.ts).

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { equalBytes } from '../../src/encoding/bytes.js';
import { bytesToHex } from '../../src/encoding/hex.js';
import { Database } from '../../src/store/database.js';
import { BlockExecutorRunner, type PreState } from './blockExecutor.js';
import { CallEnginePair, isCallShaped, type CallComparison } from './callEngines.js';
import { CORPUS_FORK_NAMES, caseId, readStateTests, type CorpusFile, type CorpusFork, type StateCase, type StateTest } from './corpus.js';
import { KNOWN_FAILURES, type KnownFailure } from './knownFailures.js';

export interface CaseFailure {
  id: string;
  expected: { root: string; logs: string };
  /** undefined when the run threw */
  got?: { root: string; logs: string };
  /** the executor's rejection or EVM error, or what was thrown */
  note?: string;
  /** the known-failure entry that explains it */
  known?: KnownFailure;
}

export interface ForkTally {
  pass: number;
  fail: number;
  /** of `fail`, the ones a known-failure entry explains */
  known: number;
}

export interface CallTally {
  /** call-shaped cases run on both engines */
  cases: number;
  /** of those, the ones our interpreter ran to the end (the rest it handed to the library) */
  ours: number;
  agree: number;
  /** cases where our interpreter threw (CallExecutor fell back to the library) */
  faults: string[];
  disagreements: { id: string; comparison: CallComparison }[];
}

export interface ConformanceResult {
  files: number;
  tests: number;
  forks: Record<CorpusFork, ForkTally>;
  failures: CaseFailure[];
  call: CallTally;
  /** known-failure tests that had no failing case in this run */
  unusedKnown: string[];
  seconds: number;
}

export interface RunOptions {
  /** run only these corpus hardforks (default: all) */
  forks?: readonly CorpusFork[];
  /** also run the call-shaped cases on the two call engines (default true) */
  callEngines?: boolean;
  /** called after each file with its time in ms */
  onFile?: (file: CorpusFile, ms: number) => void;
  known?: readonly KnownFailure[];
}

export async function runConformance(files: readonly CorpusFile[], o: RunOptions = {}): Promise<ConformanceResult> {
  const started = performance.now();
  const forks = new Set(o.forks ?? CORPUS_FORK_NAMES);
  const known = o.known ?? KNOWN_FAILURES;
  const knownByTest = new Map<string, KnownFailure>();
  for (const k of known) for (const test of k.tests) knownByTest.set(test, k);
  const usedKnown = new Set<string>();
  const result: ConformanceResult = {
    files: 0, tests: 0, failures: [], unusedKnown: [], seconds: 0,
    forks: Object.fromEntries(CORPUS_FORK_NAMES.map((f) => [f, { pass: 0, fail: 0, known: 0 }])) as Record<CorpusFork, ForkTally>,
    call: { cases: 0, ours: 0, agree: 0, faults: [], disagreements: [] },
  };
  // Trie writes stay in each test's node store; the database is only there to read through.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcnode-conformance-'));
  const db = await Database.open(dir);
  try {
    const runner = new BlockExecutorRunner(db);
    for (const file of files) {
      const fileStarted = performance.now();
      result.files++;
      for (const test of readStateTests(file)) {
        const cases = test.cases.filter((c) => forks.has(c.fork));
        if (cases.length === 0) continue;
        result.tests++;
        const pre = await runner.preState(test);
        const testKey = `${file.id} ${test.name}`;
        for (const c of cases) {
          const failure = await runCase(runner, test, pre, c);
          const tally = result.forks[c.fork];
          if (failure === undefined) {
            tally.pass++;
            continue;
          }
          tally.fail++;
          failure.known = knownByTest.get(testKey);
          if (failure.known) {
            tally.known++;
            usedKnown.add(testKey);
          }
          result.failures.push(failure);
        }
        if (o.callEngines !== false && isCallShaped(test)) await compareEngines(runner, test, pre, cases, result.call);
      }
      o.onFile?.(file, performance.now() - fileStarted);
    }
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const ran = new Set(files.map((f) => f.id));
  result.unusedKnown = [...knownByTest.keys()].filter((k) => ran.has(k.split(' ')[0]) && !usedKnown.has(k));
  result.seconds = (performance.now() - started) / 1000;
  return result;
}

async function runCase(runner: BlockExecutorRunner, test: StateTest, pre: PreState, c: StateCase): Promise<CaseFailure | undefined> {
  const expected = { root: bytesToHex(c.hash), logs: bytesToHex(c.logs) };
  try {
    const out = await runner.run(test, pre, c);
    if (equalBytes(out.root, c.hash) && equalBytes(out.logs, c.logs)) return undefined;
    return { id: caseId(test, c), expected, got: { root: bytesToHex(out.root), logs: bytesToHex(out.logs) }, note: out.note };
  } catch (e) {
    return { id: caseId(test, c), expected, note: `threw: ${(e as Error).stack ?? String(e)}` };
  }
}

async function compareEngines(
  runner: BlockExecutorRunner, test: StateTest, pre: PreState, cases: StateCase[], tally: CallTally,
): Promise<void> {
  const pairs = new Map<string, CallEnginePair>();
  for (const c of cases) {
    let pair = pairs.get(c.hardfork);
    if (pair === undefined) pairs.set(c.hardfork, (pair = new CallEnginePair(test, pre, runner.common(c.hardfork))));
    const comparison = await pair.compare(test, c);
    tally.cases++;
    if (comparison.ran === 'ours') tally.ours++;
    if (comparison.fault) tally.faults.push(caseId(test, c));
    if (comparison.agree) tally.agree++;
    else tally.disagreements.push({ id: caseId(test, c), comparison });
  }
}

/** Failures no known-failure entry explains. */
export function unexplained(result: ConformanceResult): CaseFailure[] {
  return result.failures.filter((f) => f.known === undefined);
}
