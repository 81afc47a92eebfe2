// How the running node's V8 heap grows. By default V8 lets the old generation reach up to four
// times the data that survived the last full collection before collecting again; under steady
// traffic with ~50 MB live that kept 200+ MB of heap resident (README "Tests and benchmarks",
// memory rows). A 1.5x step keeps the heap near the live data for a few more collections.

import { v8 } from './lazyBuiltins.js';

/**
 * Environment that only works when set before Node starts: `npm start` and the Docker image set
 * it, and the tools and benchmarks that start node processes themselves add it (README "Resident
 * memory"); a value the caller set wins. glibc's malloc otherwise gives each thread that allocates
 * its own arena (LevelDB's, libuv's and V8's threads: ~15-20 MB more resident under traffic).
 * V8's young generation is left at its default (up to 2 x 16 MiB): capping it takes a node flag,
 * and any such flag makes V8 reject Node's built-in code cache (+30-40 ms of CPU at every start).
 */
export const LAUNCH_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

/**
 * The Docker image's NODE_OPTIONS: V8's young generation 2 x 8 MiB instead of up to 2 x 16 MiB,
 * ~16 MiB less resident under load, for a long-running node that can pay the start-up cost.
 * (2 x 4 MiB saved 8 MiB more but made reads of large replies ~20% dearer in CPU.)
 */
export const LONG_RUNNING_NODE_OPTIONS = '--max-semi-space-size=8';

/** The old generation may grow to this much above the live data before the next full collection. */
export const HEAP_GROWING_PERCENT = 50;

/**
 * Sets V8's heap growing step for this process unless the user chose one (node flag or
 * NODE_OPTIONS). V8 reads this flag at each collection, so setting it after start-up works.
 */
export function tuneHeapGrowth(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  const chosen = [...execArgv, ...nodeOptions.split(/\s+/)].some((a) => /^--heap[-_]growing[-_]percent/.test(a));
  if (chosen) return false;
  v8().setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
