// The CI slice of the RLPx fuzzer (tools/fuzz/rlpx.ts): 300 mutated mc/63 messages from a
// connected devp2p peer. The node must stay alive, write nothing and log no escaped failure.
// Replay a failure with `FUZZ_SEED=<seed> FUZZ_COUNT=300 node dist/tools/fuzzRlpx.js`.

import t from 'tap';
import { RLP } from '@ethereumjs/rlp';
import { seedOf } from '../../tools/lib/random.js';
import { fuzzRlpx, rlpxMessage } from '../../tools/fuzz/rlpx.js';

t.test('messages are a pure function of seed and index', async (t) => {
  const known = { genesis: new Uint8Array(32).fill(1), head: new Uint8Array(32).fill(2) };
  const enc = (seed: number) => Array.from({ length: 40 }, (_, i) => {
    const m = rlpxMessage(seed, i, known);
    return `${m.code}:${Buffer.from(RLP.encode(m.payload as never)).toString('hex')}`;
  });
  t.same(enc(5), enc(5));
  t.not(enc(5).join(), enc(6).join());
  t.ok(new Set(enc(5)).size > 30, 'varied messages');
});

t.test('300 mutated messages from a connected peer', async (t) => {
  const seed = seedOf(process.env.FUZZ_SEED);
  t.comment(`FUZZ_SEED=${seed}`);
  const result = await fuzzRlpx({ seed, count: 300 });
  t.ok(result.sent > 0, `sent ${result.sent} over ${result.connections} connections`);
  t.ok(result.alive, 'the node is alive and answering');
  t.ok(result.headUnchanged, 'nothing written from the peer');
  t.same(result.trouble, [], 'no escaped failure in the node log');
});
