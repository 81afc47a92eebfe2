// How the running node's V8 heap grows. By default V8 lets the old generation reach up to four
// times the data that survived the last full collection before collecting again; under steady
// traffic with ~50 MB live that kept 200+ MB of heap resident (bench/RESULTS.md#memory,
// docs/design/memory.md). A 1.5x step keeps the heap near the live data for a few more collections.

import { perfHooks, v8 } from './lazyBuiltins.js';

/**
 * Environment that only works when set before Node starts: `npm start` and the Docker image set
 * it, and the tools and benchmarks that start node processes themselves add it
 * (docs/design/memory.md#glibc-malloc); a value the caller set wins. glibc's malloc otherwise gives each thread that allocates
 * its own arena (LevelDB's, libuv's and V8's threads: ~15-20 MB more resident under traffic), and
 * after a large block is freed it raises its mmap threshold to that block's size (up to 32 MiB), so
 * later large blocks come from the heap, whose freed middle it never returns: a fixed threshold
 * (glibc's initial 128 KiB) keeps large blocks in mappings of their own, returned when freed.
 */
export const LAUNCH_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' };

/** The old generation may grow to this much above the live data before the next full collection. */
export const HEAP_GROWING_PERCENT = 50;

/** Each of the young generation's two semi-spaces is held at or below this (V8's default: 16 MiB). */
export const SEMI_SPACE_CAP_BYTES = 8 * 2 ** 20;

const chose = (pattern: RegExp, execArgv: readonly string[], nodeOptions: string): boolean =>
  [...execArgv, ...nodeOptions.split(/\s+/)].some((a) => pattern.test(a));

/**
 * Sets V8's heap growing step for this process unless the user chose one (node flag or
 * NODE_OPTIONS). V8 reads this flag at each collection, so setting it after start-up works.
 */
export function tuneHeapGrowth(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  if (chose(/^--heap[-_]growing[-_]percent/, execArgv, nodeOptions)) return false;
  v8().setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}

const newSpace = () => v8().getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');

/** Bytes of V8's young generation in use now: both semi-spaces, when committed. */
export function youngGenerationBytes(): number {
  return newSpace()?.space_size ?? 0;
}

/**
 * Capacity of one semi-space. Half the committed young generation, except before the first
 * scavenge (or after V8 released the idle one), when only one semi-space is committed; its usable
 * bytes (used + available, ~98% of its capacity) say it then.
 */
function semiSpaceBytes(): number {
  const space = newSpace();
  if (space === undefined) return SEMI_SPACE_CAP_BYTES;
  return Math.max(space.space_size / 2, space.space_used_size + space.space_available_size);
}

/**
 * Holds V8's young generation at 2 x SEMI_SPACE_CAP_BYTES, unless the user sized it (node flag or
 * NODE_OPTIONS). V8 fixes the young generation's maximum when it creates the heap, and a node flag
 * that lowers it costs every start ~30-40 ms (V8 then refuses Node's built-in code cache). What V8
 * reads at each growth is the growth factor: after every collection the factor is set so that the
 * next growth lands at or below the cap (1 once there). It is set every time, not only when it
 * changes: V8 raises a factor below 2 back to 2 whenever it creates a heap (each worker thread),
 * so it is also set when a worker comes online. The semi-spaces still shrink when V8 sees little
 * allocation and grow again up to the cap. A growth past the cap would need one in a collection
 * between a worker's heap being made and the worker coming online; it leaves the young generation
 * at V8's own maximum until V8 next shrinks it. Setting the flag costs ~5 us a collection.
 */
export function capYoungGeneration(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  if (chose(/^--(max|min)[-_]semi[-_]space[-_]size|^--semi[-_]space[-_]growth[-_]factor/, execArgv, nodeOptions)) return false;
  const steer = (): void => {
    const semiSpace = Math.max(semiSpaceBytes(), 2 ** 19);
    const factor = Math.max(1, Math.floor(SEMI_SPACE_CAP_BYTES / semiSpace));
    v8().setFlagsFromString(`--semi-space-growth-factor=${factor}`);
  };
  steer();
  new (perfHooks().PerformanceObserver)(steer).observe({ entryTypes: ['gc'] });
  // A worker's heap exists once it runs: set the factor again before the next collection can grow.
  process.on('worker', (worker) => worker.once('online', steer));
  return true;
}
