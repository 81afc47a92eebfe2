// The CI slice of the fuzzer (tools/fuzz.ts): 2,000 mutated bodies per endpoint against a real
// node. The seed is printed; a failure names the command that replays it. The full run is
// `npm run fuzz` (20,000 per endpoint).

import t from 'tap';
import { fuzzBody, FUZZ_ENDPOINTS } from '../../tools/fuzz/mutate.js';
import { seedOf } from '../../tools/lib/random.js';
import { expectsReply, ipcValues } from '../../tools/fuzz/oracle.js';
import { describeSession, fuzzSession } from '../../tools/fuzz/session.js';

const env = { chain: '0x' + '57'.repeat(20), account: '0x' + '11'.repeat(20), blockHash: '0x' + '22'.repeat(32) };

t.test('bodies are a pure function of seed, endpoint and index', async (t) => {
  for (const endpoint of FUZZ_ENDPOINTS) {
    const a = Array.from({ length: 50 }, (_, i) => fuzzBody(7, endpoint, i, env).toString('base64'));
    const b = Array.from({ length: 50 }, (_, i) => fuzzBody(7, endpoint, i, env).toString('base64'));
    const c = Array.from({ length: 50 }, (_, i) => fuzzBody(8, endpoint, i, env).toString('base64'));
    t.same(a, b, `${endpoint}: same seed, same bodies`);
    t.not(a.join(), c.join(), `${endpoint}: another seed, other bodies`);
    t.ok(new Set(a).size > 40, `${endpoint}: varied bodies`);
  }
  t.equal(seedOf('42'), 42);
  t.equal(seedOf('abc'), seedOf('abc'), 'text seeds are hashed');
});

t.test('the oracle follows the design', async (t) => {
  const b = (s: string) => Buffer.from(s);
  t.equal(expectsReply(b('{"jsonrpc":"2.0","method":"x","params":[]}')), false, 'a notification');
  t.equal(expectsReply(b('{"jsonrpc":"2.0","method":"x","params":null}')), true, 'invalid: answered');
  t.equal(expectsReply(b('{"jsonrpc":"1.0","method":"x"}')), true, 'invalid without id: answered');
  t.equal(expectsReply(b('[{"jsonrpc":"2.0","method":"x"}]')), false, 'a batch of notifications');
  t.equal(expectsReply(b('[]')), true, 'empty batch');
  t.equal(expectsReply(b('{"jsonrpc":"2.0","method":"x","params":' + '['.repeat(128) + ']'.repeat(128) + '}')), true, 'too deep');
  t.equal(expectsReply(b('{oops')), true, 'parse error');
  t.same(ipcValues(b('{"a":1}{"b":2}')).values.length, 2);
  t.equal(ipcValues(b('{"a":[')).clean, false, 'an open value swallows what follows');
});

t.test('2,000 fuzz bodies per endpoint', async (t) => {
  const seed = seedOf(process.env.FUZZ_SEED);
  const count = Number(process.env.FUZZ_COUNT ?? 2000);
  // The deadline here only tells a hang from an answer: how fast answers come is the machine's
  // business (npm run fuzz keeps a 2 s deadline for a quiet machine), never a test's.
  const result = await fuzzSession({ seed, count, deadlineMs: 30_000 });
  t.comment(describeSession(result));
  for (const endpoint of FUZZ_ENDPOINTS) t.equal(result.sent[endpoint], count, `${endpoint}: ${count} bodies sent`);
  t.same(
    result.failures.map((f) => `${f.endpoint} #${f.index}: ${f.reason}`),
    [],
    `no failure (replay with FUZZ_SEED=${seed} FUZZ_COUNT=${count} npm run fuzz)`,
  );
  t.ok(result.alive, 'the node is alive and answers');
  t.same(result.trouble, [], 'nothing escaped into the node log');
  t.comment(`slowest answer ${Math.round(result.slowestMs)} ms`);
});
