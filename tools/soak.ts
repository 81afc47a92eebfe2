// `npm run soak`: mixed traffic against a real node for SOAK_SECONDS (default 1800), sampling
// resident memory, event-loop delay p99 and open handles every 10 s from its metrics endpoint;
// passes when memory stays within +10% after warm-up and the event-loop p99 stays under 100 ms.
//
// SOAK_SECONDS  length of the run (default 1800)
// SOAK_WARMUP   seconds not judged at the start, while bounded caches fill (default a third of the run)
// SOAK_SEED     seed of the traffic mix (default: fresh, printed)
// SOAK_NODE_FLAGS flags for the node binary, for diagnosis (e.g. "--heapsnapshot-signal=SIGUSR2")

import { seedOf } from './lib/random.js';
import { describeSoak, runSoak } from './soak/run.js';

async function main(): Promise<void> {
  const seconds = Number(process.env.SOAK_SECONDS ?? 1800);
  if (!(seconds >= 30)) throw new Error('SOAK_SECONDS must be at least 30');
  const seed = seedOf(process.env.SOAK_SEED);
  console.log(`soak: SOAK_SECONDS=${seconds} SOAK_SEED=${seed}`);
  const result = await runSoak({
    seconds,
    seed,
    warmupSeconds: process.env.SOAK_WARMUP ? Number(process.env.SOAK_WARMUP) : undefined,
    nodeFlags: process.env.SOAK_NODE_FLAGS ? process.env.SOAK_NODE_FLAGS.split(' ') : undefined,
    log: (l) => console.log(l),
  });
  console.log(describeSoak(result));
  process.exitCode = result.problems.length === 0 ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(`soak: ${(err as Error)?.stack ?? String(err)}`);
  process.exitCode = 2;
});
