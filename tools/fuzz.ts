// `npm run fuzz`: mutated JSON-RPC bodies against a real node, on every endpoint (VNODE HTTP,
// SCS `/` and `/rpc`, IPC), and mutated HTTP heads against the HTTP fast path and node:http side
// by side (tools/fuzz/headDiff.ts). Exits non-zero on any failure or disagreement, printing the
// seed that reproduces it.
//
// FUZZ_SEED  run seed (number or text; default: fresh, printed)
// FUZZ_PART  bodies, heads, or both (default both)
// FUZZ_COUNT bodies per endpoint (default 20000; CI runs a 2000 slice in test/reliability)
// FUZZ_HEADS head cases (default 20000; CI runs a 2000 slice in test/reliability)
// FUZZ_ONLY  <endpoint>:<index> — replay one body (endpoint vnode, scs, scsdebug or ipc), or
//            heads:<index> — replay one head case and print both answers

import { seedOf } from './lib/random.js';
import { FUZZ_ENDPOINTS, type FuzzEndpoint } from './fuzz/mutate.js';
import { describeSession, fuzzSession } from './fuzz/session.js';
import { describeHeadCase, describeHeadDiff, replayHeadCase, runHeadDiff } from './fuzz/headDiff.js';

type Only = { endpoint: FuzzEndpoint | 'heads'; index: number };

function parseOnly(raw: string | undefined): Only | undefined {
  if (!raw) return undefined;
  const [endpoint, index] = raw.split(':');
  if (!([...FUZZ_ENDPOINTS, 'heads'] as string[]).includes(endpoint) || !/^\d+$/.test(index ?? '')) {
    throw new Error(`FUZZ_ONLY must be <endpoint>:<index> with endpoint one of ${FUZZ_ENDPOINTS.join(', ')}, or heads:<index>`);
  }
  return { endpoint: endpoint as Only['endpoint'], index: Number(index) };
}

function count(name: string, fallback: number): number {
  const n = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer`);
  return n;
}

async function bodies(seed: number, only: Only | undefined): Promise<boolean> {
  const result = await fuzzSession({
    seed,
    count: count('FUZZ_COUNT', 20_000),
    only: only && only.endpoint !== 'heads' ? { endpoint: only.endpoint, index: only.index } : undefined,
    log: (l) => console.log(l),
  });
  console.log(describeSession(result));
  return result.failures.length === 0 && result.trouble.length === 0 && result.alive;
}

async function heads(seed: number, only: Only | undefined): Promise<boolean> {
  if (only) {
    const replay = await replayHeadCase(seed, only.index);
    console.log(describeHeadCase(seed, only.index, replay));
    return replay.agree;
  }
  const n = count('FUZZ_HEADS', 20_000);
  console.log(`fuzzing ${n} HTTP heads with FUZZ_SEED=${seed}`);
  const result = await runHeadDiff({ seed, count: n, onProgress: (done) => console.log(`  heads: ${done}`) });
  console.log(describeHeadDiff(seed, result));
  return result.disagreements.length === 0;
}

async function main(): Promise<void> {
  const seed = seedOf(process.env.FUZZ_SEED);
  const only = parseOnly(process.env.FUZZ_ONLY);
  const part = process.env.FUZZ_PART ?? 'both';
  if (!['bodies', 'heads', 'both'].includes(part)) throw new Error('FUZZ_PART must be bodies, heads or both');
  let ok = true;
  if ((part !== 'heads' && !only) || (only && only.endpoint !== 'heads')) ok = (await bodies(seed, only)) && ok;
  if ((part !== 'bodies' && !only) || only?.endpoint === 'heads') ok = (await heads(seed, only)) && ok;
  console.log(ok ? 'fuzz: PASS' : 'fuzz: FAIL');
  process.exitCode = ok ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(`fuzz: ${(err as Error)?.stack ?? String(err)}`);
  process.exitCode = 2;
});
