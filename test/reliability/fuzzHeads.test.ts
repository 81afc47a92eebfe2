// The CI slice of the HTTP head fuzzer (tools/fuzz/heads.ts, headDiff.ts): 2,000 cases of mutated
// request lines and headers, pipelined, cut into writes and half-closed at random points, sent to
// the same endpoint with the fast path on and off; the answers must be the same. The seed is
// printed; a failure names the command that replays it. The long run is `npm run fuzz`.
//
// The one class counted apart, not failed (headDiff.ts says why): the fast path answered as
// node:http itself answers the same bytes when they reach it from JavaScript, which is how every
// hand-over reaches it. A case still differing after two slow replays is a disagreement.

import t from 'tap';
import { seedOf } from '../../tools/lib/random.js';
import { describeHeadDiff, runHeadDiff } from '../../tools/fuzz/headDiff.js';
import { headCase } from '../../tools/fuzz/heads.js';

t.test('cases are a pure function of seed and index', async (t) => {
  const bytes = (seed: number) => Array.from({ length: 60 }, (_, i) => {
    const c = headCase(seed, i);
    return `${Buffer.concat(c.writes).toString('base64')}|${c.writes.length}|${c.fin}`;
  });
  t.same(bytes(7), bytes(7));
  t.not(bytes(7).join(), bytes(8).join());
  t.ok(new Set(bytes(7)).size > 50, 'varied cases');
  const split = Array.from({ length: 200 }, (_, i) => headCase(7, i));
  t.ok(split.some((c) => c.writes.length > 3), 'some cases cut into many writes');
  t.ok(split.some((c) => c.fin) && split.some((c) => !c.fin), 'with and without a FIN');
});

t.test('2,000 head cases: the fast path answers as node:http', async (t) => {
  const seed = seedOf(process.env.FUZZ_SEED);
  const count = Number(process.env.FUZZ_HEADS ?? 2000);
  const result = await runHeadDiff({ seed, count });
  t.comment(describeHeadDiff(seed, result));
  t.equal(result.cases, count, `${count} cases played`);
  t.ok(result.servedFast > count / 10, `the fast path served part of them (${result.servedFast} requests)`);
  t.ok(Object.keys(result.statuses).length >= 8, 'the cases reach many of node:http\'s answers');
  // Both servers silent agree about nothing: most cases must get an answer (a few in a hundred are
  // requests left unfinished on an open connection, which node:http answers only at its timeout).
  t.ok(result.silent < count / 10, `most cases answered (${result.silent} unanswered by both)`);
  t.same(
    result.disagreements.map((d) => `case ${d.index}: ${d.sent.summary.join(' | ')}`),
    [],
    `no disagreement (replay one with FUZZ_SEED=${seed} FUZZ_ONLY=heads:<case> npm run fuzz)`,
  );
});
