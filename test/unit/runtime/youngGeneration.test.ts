// V8's young generation held at 2 x 8 MiB by steering its growth factor after each collection
// (src/heapTuning.ts). The churn runs in fresh node processes: the test runner's own heap has
// grown its young generation before any test starts, and steering never shrinks it.

import t from 'tap';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../helpers/node.js';
import { SEMI_SPACE_CAP_BYTES, capYoungGeneration } from '../../../src/runtime/heapTuning.js';

const MiB = 2 ** 20;
const HEAP_TUNING = pathToFileURL(path.join(ROOT, 'dist/src/runtime/heapTuning.js')).href;

// Objects that survive a while and die (a rolling cache of 200,000 entries): V8 grows the young
// generation under this. Prints the largest young generation seen. A worker thread starts
// mid-way: V8 resets a growth factor below 2 whenever it creates a heap (the steering sets it
// again when the worker comes online and after every collection).
function churn(steered: boolean): number {
  const script = `
    import { Worker } from 'node:worker_threads';
    import { capYoungGeneration, youngGenerationBytes } from '${HEAP_TUNING}';
    if (${steered} && !capYoungGeneration([], '')) throw new Error('steering refused');
    const keep = new Map();
    let largest = 0;
    for (let i = 0; i < 2_000_000; i++) {
      keep.set(i, { a: [i, i + 1], s: 'x' + i });
      if (keep.size > 200_000) keep.delete(i - 200_000);
      if (i % 2000 === 0) {
        largest = Math.max(largest, youngGenerationBytes());
        if (i === 1_000_000) {
          // Quiet first (the cache dropped, short-lived garbage only), so that no collection is due
          // while the worker's heap is made, then a worker thread, then the churn again.
          keep.clear();
          for (let round = 0; round < 64; round++) {
            const garbage = [];
            for (let k = 0; k < 20_000; k++) garbage.push({ k });
            await new Promise((next) => setImmediate(next));
          }
          await new Promise((done) => new Worker('0', { eval: true }).on('exit', done));
        }
        await new Promise((next) => setImmediate(next));
      }
    }
    process.stdout.write(String(largest));`;
  // Through env(1) without NODE_OPTIONS: the test runner puts its own module hooks there, and in
  // Node 20 hooks run on a thread of their own, a heap V8 makes without a 'worker' event.
  const run = spawnSync('env', ['-u', 'NODE_OPTIONS', process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(`churn failed: ${run.stderr}`);
  return Number(run.stdout);
}

t.test('a user choice of the young generation is left alone', async (t) => {
  t.equal(capYoungGeneration(['--max-semi-space-size=4'], ''), false, 'node flag');
  t.equal(capYoungGeneration([], '--max-old-space-size=512 --semi_space_growth_factor=4'), false, 'NODE_OPTIONS');
  t.equal(capYoungGeneration([], '--min-semi-space-size=2'), false, 'a minimum counts too');
});

t.test('unsteered, the churn grows the young generation past the cap', async (t) => {
  const largest = churn(false);
  t.ok(largest > 2 * SEMI_SPACE_CAP_BYTES, `young generation ${largest / MiB} MiB`);
});

t.test('steered, it stays at the cap, across a worker thread start', async (t) => {
  const largest = churn(true);
  t.ok(largest <= 2 * SEMI_SPACE_CAP_BYTES, `young generation ${largest / MiB} MiB`);
  t.ok(largest >= SEMI_SPACE_CAP_BYTES, 'and it still grew from its start');
});
