// `npm run fuzz`: mutated JSON-RPC bodies against a real node, on every endpoint (VNODE HTTP,
// SCS `/` and `/rpc`, IPC). Exits non-zero on any failure, printing the seed that reproduces it.
//
// FUZZ_SEED  run seed (number or text; default: fresh, printed)
// FUZZ_COUNT bodies per endpoint (default 20000; CI runs a 2000 slice in test/reliability)
// FUZZ_ONLY  <endpoint>:<index> — replay one body (endpoint vnode, scs, scsdebug or ipc)

import { seedOf } from './lib/random.js';
import { FUZZ_ENDPOINTS, type FuzzEndpoint } from './fuzz/mutate.js';
import { describeSession, fuzzSession } from './fuzz/session.js';

function parseOnly(raw: string | undefined): { endpoint: FuzzEndpoint; index: number } | undefined {
  if (!raw) return undefined;
  const [endpoint, index] = raw.split(':');
  if (!(FUZZ_ENDPOINTS as readonly string[]).includes(endpoint) || !/^\d+$/.test(index ?? '')) {
    throw new Error(`FUZZ_ONLY must be <endpoint>:<index> with endpoint one of ${FUZZ_ENDPOINTS.join(', ')}`);
  }
  return { endpoint: endpoint as FuzzEndpoint, index: Number(index) };
}

async function main(): Promise<void> {
  const seed = seedOf(process.env.FUZZ_SEED);
  const count = Number(process.env.FUZZ_COUNT ?? 20_000);
  if (!Number.isInteger(count) || count <= 0) throw new Error('FUZZ_COUNT must be a positive integer');
  const result = await fuzzSession({ seed, count, only: parseOnly(process.env.FUZZ_ONLY), log: (l) => console.log(l) });
  console.log(describeSession(result));
  const ok = result.failures.length === 0 && result.trouble.length === 0 && result.alive;
  console.log(ok ? 'fuzz: PASS' : 'fuzz: FAIL');
  process.exitCode = ok ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(`fuzz: ${(err as Error)?.stack ?? String(err)}`);
  process.exitCode = 2;
});
