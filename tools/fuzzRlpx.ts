// `node dist/tools/fuzzRlpx.js`: mutated mc/63 messages from a connected devp2p peer against a
// real node (tools/fuzz/rlpx.ts). Exits non-zero when the node dies, writes, or logs a failure.
//
// FUZZ_SEED  run seed (default: fresh, printed); FUZZ_COUNT messages (default 5000)

import { seedOf } from './lib/random.js';
import { fuzzRlpx } from './fuzz/rlpx.js';

const seed = seedOf(process.env.FUZZ_SEED);
const count = Number(process.env.FUZZ_COUNT ?? 5000);
const result = await fuzzRlpx({ seed, count, log: (l) => console.log(l) });
console.log(`sent ${result.sent} messages over ${result.connections} connections; alive ${result.alive}, head unchanged ${result.headUnchanged}`);
for (const line of result.trouble) console.log(`  node log: ${line}`);
const ok = result.alive && result.headUnchanged && result.trouble.length === 0;
console.log(ok ? 'fuzz rlpx: PASS' : `fuzz rlpx: FAIL (FUZZ_SEED=${seed})`);
process.exitCode = ok ? 0 : 1;
