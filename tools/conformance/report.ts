// The text `npm run conformance` prints: counts per hardfork (block executor) and per engine
// (call-shaped cases), then every failure with expected and actual values.

import { CORPUS_FORKS, CORPUS_FORK_NAMES } from './corpus.js';
import type { ConformanceResult } from './run.js';

export function formatReport(r: ConformanceResult): string {
  const lines: string[] = [];
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  lines.push(`${r.files} files, ${r.tests} tests, ${r.seconds.toFixed(1)} s`);
  lines.push('');
  lines.push('block executor (applyTransaction on ChainEvm over the account trie): post-state root and logs hash');
  lines.push(`  ${'corpus fork'.padEnd(18)}${'hardfork'.padEnd(18)}${pad('pass', 7)}${pad('fail', 7)}${pad('known', 7)}`);
  const total = { pass: 0, fail: 0, known: 0 };
  for (const fork of CORPUS_FORK_NAMES) {
    const t = r.forks[fork];
    if (t.pass + t.fail === 0) continue;
    total.pass += t.pass;
    total.fail += t.fail;
    total.known += t.known;
    lines.push(`  ${fork.padEnd(18)}${CORPUS_FORKS[fork].padEnd(18)}${pad(t.pass, 7)}${pad(t.fail, 7)}${pad(t.known, 7)}`);
  }
  lines.push(`  ${'all'.padEnd(36)}${pad(total.pass, 7)}${pad(total.fail, 7)}${pad(total.known, 7)}`);
  lines.push('');
  const c = r.call;
  lines.push('call engines (call-shaped cases, as mc_call runs them): our interpreter against the library EVM');
  lines.push(
    `  ${c.cases} cases: ${c.ours} ran on our interpreter, ${c.cases - c.ours} handed to the library; ` +
      `${c.agree} agree, ${c.disagreements.length} disagree; ${c.faults.length} faults`,
  );
  for (const d of c.disagreements) {
    lines.push(`  DISAGREE ${d.id} (ran on ${d.comparison.ran})`);
    lines.push(`    ours    ${JSON.stringify(d.comparison.ours)}`);
    lines.push(`    library ${JSON.stringify(d.comparison.library)}`);
  }
  for (const id of c.faults) lines.push(`  FAULT ${id}`);
  if (r.failures.length > 0) {
    lines.push('');
    lines.push('failures (file test fork data,gas,value):');
    for (const f of r.failures) {
      lines.push(`  ${f.known ? 'KNOWN' : 'FAIL '} ${f.id}${f.note ? ` (${f.note.split('\n')[0]})` : ''}`);
      lines.push(`    expected root ${f.expected.root} logs ${f.expected.logs}`);
      if (f.got) lines.push(`    got      root ${f.got.root} logs ${f.got.logs}`);
    }
    const reasons = new Set(r.failures.flatMap((f) => (f.known ? [f.known.reason] : [])));
    for (const reason of reasons) lines.push(`  KNOWN: ${reason}`);
  }
  for (const k of r.unusedKnown) lines.push(`STALE known failure (no case failed): ${k}`);
  return lines.join('\n');
}
