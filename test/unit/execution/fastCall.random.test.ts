import t from 'tap';
import type { CallRequest } from '../../../src/execution/call.js';
import { asm } from '../../helpers/evmAsm.js';
import { CALLER, EOA, FORKS, MISSING, POOR, addr, buildState, compare, headerFor, pairFor } from './fastCall/harness.js';
import { HELPERS } from './fastCall/programs.js';
import { randomProgram, seeded } from './fastCall/random.js';

// Random programs on both engines under every hardfork (seeded: FAST_CALL_SEED picks another
// corpus, FAST_CALL_PROGRAMS its size). They call each other, the helpers and the precompiles.

const RANDOM_BASE = 0xdd000000n;
const SEED = Number(process.env.FAST_CALL_SEED ?? 20261126);
const PROGRAMS = Number(process.env.FAST_CALL_PROGRAMS ?? 120);

t.test('random programs on our interpreter and the library', async (t) => {
  const rng = seeded(SEED);
  const addresses = Array.from({ length: PROGRAMS }, (_, i) => RANDOM_BASE + BigInt(i));
  const targets = [...addresses, ...HELPERS.keys(), 1n, 2n, 4n, EOA, MISSING, CALLER];
  const code = new Map(HELPERS);
  const sources = addresses.map((a) => {
    const source = randomProgram(rng, targets);
    code.set(a, asm(source));
    return source;
  });
  const storage = new Map(addresses.map((a) => [a, new Map([[1n, 5n], [3n, 9n]])]));
  const { sm, root } = await buildState(code, storage);
  const header = headerFor(root);
  const data = () => Uint8Array.from({ length: rng(70) }, () => rng(256));

  for (const fork of FORKS) {
    const pair = pairFor(fork, sm);
    let fallbacks = 0;
    for (let i = 0; i < addresses.length; i++) {
      const gas = BigInt([30_000, 100_000, 300_000, 1_000_000][rng(4)]);
      const from = rng(4) === 0 ? POOR : CALLER;
      const value = rng(3) === 0 ? BigInt(rng(2000)) : 0n;
      const reqs: [string, CallRequest][] = [
        ['call', { from: addr(from), to: addr(addresses[i]), data: data(), value, gas }],
        ['init code', { from: addr(CALLER), data: Uint8Array.from(Buffer.from(code.get(addresses[i])!, 'hex')), gas, value }],
      ];
      for (const [kind, req] of reqs) {
        if (!(await compare(t, pair, req, header, `program ${i} ${kind} (seed ${SEED}): ${sources[i].slice(0, 120)}`, rng(8) === 0))) fallbacks++;
      }
    }
    t.equal(fallbacks, 0, `${fork}: no random program went to the library`);
  }
});
