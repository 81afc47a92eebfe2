// `npm run conformance`: the Ethereum state tests (../shared/conformance/GeneralStateTests, see
// docs/design/conformance.md) on mcnode's block executor, and their call-shaped cases on both
// call engines. Prints pass/fail counts per hardfork and per engine and every failure; exits
// non-zero on a failure the known-failure list does not explain, on a disagreement between the
// call engines, and (on a whole-corpus run) on a known-failure entry that no longer fails.
//
//   npm run conformance -- [filter ...] [--fork=ConstantinopleFix,...] [--no-call] [--slice] [--times]
//
// filter   run only files whose `dir/name.json` contains one of these strings
// --fork   run only these corpus hardforks (Frontier Homestead EIP150 EIP158 Byzantium Constantinople ConstantinopleFix)
// --no-call  skip the call engines
// --slice  run the slice `npm test` runs (test/conformance/stateTests.test.ts)
// --times  print the slowest files
// MCNODE_CONFORMANCE_DIR  the corpus folder, when it is not at ../shared/conformance (or above)

import { CORPUS_FORK_NAMES, corpusDir, listCorpus, type CorpusFork } from './conformance/corpus.js';
import { formatReport } from './conformance/report.js';
import { runConformance, unexplained } from './conformance/run.js';
import { conformanceSlice } from './conformance/slice.js';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flags = new Map<string, string | undefined>();
  for (const a of args) {
    if (!a.startsWith('--')) continue;
    const [name, value] = a.slice(2).split('=');
    flags.set(name, value);
  }
  const filters = args.filter((a) => !a.startsWith('--'));
  const root = corpusDir();
  if (root === undefined) {
    console.error('conformance: no corpus (set MCNODE_CONFORMANCE_DIR, or put it at ../shared/conformance/GeneralStateTests)');
    process.exitCode = 2;
    return;
  }
  let forks: CorpusFork[] | undefined;
  if (flags.has('fork')) {
    forks = (flags.get('fork') ?? '').split(',') as CorpusFork[];
    const bad = forks.filter((f) => !CORPUS_FORK_NAMES.includes(f));
    if (bad.length > 0) throw new Error(`--fork: unknown ${bad.join(', ')} (one of ${CORPUS_FORK_NAMES.join(', ')})`);
  }
  const all = listCorpus(root);
  let files = flags.has('slice') ? conformanceSlice(all) : all;
  if (filters.length > 0) files = files.filter((f) => filters.some((s) => f.id.includes(s)));
  const whole = files.length === all.length && forks === undefined;
  console.log(`conformance: ${root}, ${files.length} of ${all.length} files${forks ? `, ${forks.join(' ')}` : ''}`);
  const times: [string, number][] = [];
  let done = 0;
  const result = await runConformance(files, {
    forks,
    callEngines: !flags.has('no-call'),
    onFile: (file, ms) => {
      times.push([file.id, ms]);
      if (++done % 100 === 0) console.log(`  ${done} files`);
    },
  });
  console.log(formatReport(result));
  if (flags.has('times')) {
    console.log('slowest files:');
    for (const [id, ms] of times.sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${(ms / 1000).toFixed(1).padStart(7)} s  ${id}`);
  }
  const bad = unexplained(result).length + result.call.disagreements.length + result.call.faults.length + (whole ? result.unusedKnown.length : 0);
  console.log(bad === 0 ? 'conformance: PASS' : `conformance: FAIL (${bad} unexplained)`);
  process.exitCode = bad === 0 ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(`conformance: ${(err as Error)?.stack ?? String(err)}`);
  process.exitCode = 2;
});
