// A slice of the Ethereum state tests (every folder of ../shared/conformance/GeneralStateTests,
// see tools/conformance/slice.ts) on mcnode's block executor and both call engines; the whole
// corpus is `npm run conformance`. A checkout without the corpus skips this with a message.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { CORPUS_FORK_NAMES, corpusDir, listCorpus } from '../../tools/conformance/corpus.js';
import { formatReport } from '../../tools/conformance/report.js';
import { runConformance, unexplained } from '../../tools/conformance/run.js';
import { SLICE_SKIP, conformanceSlice } from '../../tools/conformance/slice.js';
import { testDir } from '../helpers/testDir.js';

t.test('the corpus is found from $MCNODE_CONFORMANCE_DIR or by walking up from the checkout', async (t) => {
  const dir = testDir(t);
  const corpus = path.join(dir, 'shared', 'conformance', 'GeneralStateTests');
  mkdirSync(corpus, { recursive: true });
  const worktree = path.join(dir, 'wt', 'branch');
  mkdirSync(worktree, { recursive: true });
  t.equal(corpusDir({}, worktree), corpus, 'found two levels up, beside a worktree folder');
  t.equal(corpusDir({ MCNODE_CONFORMANCE_DIR: path.join(dir, 'shared', 'conformance') }, '/'), corpus, 'the env var may name the folder holding it');
  t.equal(corpusDir({ MCNODE_CONFORMANCE_DIR: corpus }, '/'), corpus, 'or the folder itself');
  t.equal(corpusDir({ MCNODE_CONFORMANCE_DIR: path.join(dir, 'nowhere') }, worktree), undefined, 'a wrong env var is not second-guessed');
  const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'mcnode-no-corpus-'));
  t.teardown(() => rmSync(elsewhere, { recursive: true, force: true }));
  t.equal(corpusDir({}, elsewhere), undefined, 'none above: undefined (the tests skip)');
});

// About a minute of CPU; a machine shared by several test runs may stretch that several times.
t.setTimeout(900_000);

const root = corpusDir();
if (root === undefined) {
  t.comment('conformance: no ../shared/conformance/GeneralStateTests (or $MCNODE_CONFORMANCE_DIR) here; skipping the state tests');
} else {
  t.test('a slice of the state tests: roots and logs as the vectors say, the call engines in agreement', { timeout: 900_000 }, async (t) => {
    const all = listCorpus(root);
    const files = conformanceSlice(all);
    // stQuadraticComplexityTest and stTimeConsuming hold only stress files (npm run conformance runs them).
    const folders = new Set(all.filter((f) => !SLICE_SKIP.test(path.basename(f.path))).map((f) => f.dir));
    t.same(new Set(files.map((f) => f.dir)), folders, `every folder with a file outside SLICE_SKIP is in the slice (${folders.size})`);
    const result = await runConformance(files);
    t.comment(formatReport(result));
    t.same(unexplained(result).map((f) => f.id), [], 'no failure the known-failure list does not explain');
    for (const fork of CORPUS_FORK_NAMES) t.ok(result.forks[fork].pass > 0, `${fork}: cases ran and passed`);
    t.same(result.call.disagreements.map((d) => d.id), [], 'our interpreter and the library EVM answer every call-shaped case alike');
    t.same(result.call.faults, [], 'our interpreter never threw');
    t.ok(result.call.ours > result.call.cases / 2, `most call-shaped cases ran on our interpreter (${result.call.ours} of ${result.call.cases})`);
  });
}
