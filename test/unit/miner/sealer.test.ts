import t, { type Test } from 'tap';
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Sealer } from '../../../src/miner/sealer.js';
import { nonceBytes, searchNonce, targetBytes, verifyPow } from '../../../src/consensus/pow.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { keccak256 } from '../../../src/encoding/bytes.js';

// piscina runs compiled workers: `npm test` builds dist/ before tap runs.
const workerFile = fileURLToPath(new URL('../../../dist/workers/powSearch.js', import.meta.url));
if (!existsSync(workerFile)) throw new Error(`${workerFile} is missing: run \`npx tsc -p .\` first`);

const sealA = hexToBytes('0x' + '11'.repeat(32));
const sealB = keccak256(new TextEncoder().encode('sealer test'));
const UNREACHABLE = 1n << 60n;

const newSealer = (t: Test, threads: number, batchSize?: number): Sealer => {
  const sealer = new Sealer({ threads, workerFile, batchSize });
  t.teardown(() => sealer.close());
  return sealer;
};

t.test('seals verify at the devnet difficulty and at 2^20 with 2 threads', async (t) => {
  const sealer = newSealer(t, 2);
  for (const difficulty of [0x200n, 0x100000n]) {
    const result = await sealer.seal(sealA, difficulty);
    t.ok(result, `found a seal at difficulty ${difficulty}`);
    t.ok(verifyPow(sealA, nonceBytes(result!.nonce), result!.mix, difficulty), 'the seal verifies');
  }
  t.ok(sealer.totalHashes > 0);
  t.equal(sealer.threadCount, 2);
});

t.test('aborting resolves undefined and stops every task early', async (t) => {
  const batchSize = 1 << 26; // a batch alone would take tens of seconds
  const sealer = newSealer(t, 2, batchSize);
  t.ok(await sealer.seal(sealB, 0x10000n), 'warm-up seal: the workers are running');
  const before = sealer.totalHashes;
  const controller = new AbortController();
  const pending = sealer.seal(sealA, UNREACHABLE, { signal: controller.signal });
  await sleep(300);
  t.ok(sealer.pendingTasks > 0, 'workers were searching');
  controller.abort();
  t.equal(await pending, undefined);
  await sealer.settled();
  t.equal(sealer.pendingTasks, 0, 'no task left running or queued');
  const hashed = sealer.totalHashes - before;
  t.ok(hashed > 0, 'the tasks did hash');
  t.ok(hashed < batchSize, `tasks stopped at the abort flag (${hashed} hashes < one batch)`);

  t.equal(await sealer.seal(sealA, 0x100000n, { signal: AbortSignal.abort() }), undefined, 'an aborted signal returns at once');
  const after = await sealer.seal(sealA, 0x10000n);
  t.ok(after && verifyPow(sealA, nonceBytes(after.nonce), after.mix, 0x10000n), 'the pool still seals after an abort');
});

t.test('deterministic mode returns the smallest nonce whatever the thread count', async (t) => {
  const difficulty = 0x40000n;
  const expected = searchNonce(sealB, targetBytes(difficulty), 0n, 1 << 30)!;
  for (const threads of [1, 2]) {
    const sealer = newSealer(t, threads, 1 << 14);
    const result = await sealer.seal(sealB, difficulty, { deterministic: true });
    t.equal(result?.nonce, expected.nonce, `${threads} thread(s): the linear search's nonce`);
    t.same(result?.mix, expected.mix);
  }
});

t.test('deterministic mode waits for lower batches when a later batch hits first', async (t) => {
  // Find two consecutive hits close together, then start the search so that the first hit is the
  // last nonce of batch 0 and the second is early in batch 1: batch 1 finds its hit long before
  // batch 0 reaches its end, yet the answer must be batch 0's.
  const difficulty = 1n << 17n;
  const batchSize = 1 << 16;
  const target = targetBytes(difficulty);
  let first = searchNonce(sealA, target, 0n, 1 << 30)!.nonce;
  let second = searchNonce(sealA, target, first + 1n, 1 << 30)!.nonce;
  while (second - first > BigInt(batchSize / 8)) {
    first = second;
    second = searchNonce(sealA, target, first + 1n, 1 << 30)!.nonce;
  }
  const startNonce = first - BigInt(batchSize - 1);
  const sealer = newSealer(t, 2, batchSize);
  const result = await sealer.seal(sealA, difficulty, { deterministic: true, startNonce });
  t.equal(result?.nonce, first, `nonce ${first} (batch 0) rather than ${second} (batch 1)`);
  const free = await sealer.seal(sealA, difficulty, { startNonce });
  t.ok(free && (free.nonce === first || free.nonce === second), 'non-deterministic mode takes either');
});

/** Cores this process got while two threads spin for `ms`: how much parallelism the machine offers now. */
async function freeCores(ms: number): Promise<number> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const spin = `const end = Date.now() + ${ms}; let x = 0; while (Date.now() < end) x++;`;
  await Promise.all([0, 1].map(() => new Promise((resolve) => new Worker(spin, { eval: true }).on('exit', resolve))));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000 / (performance.now() - start);
}

// A speed ratio: tap runs two test files at once on this 2-core machine, so the comparison is
// only meaningful when asked for (MCNODE_TIMING_TESTS=1 npx tap test/unit/miner/sealer.test.ts);
// `npm run bench` prints the same ratio on every run.
t.test('two threads hash clearly faster than one', { skip: process.env.MCNODE_TIMING_TESTS === '1' ? false : 'timing test: set MCNODE_TIMING_TESTS=1' }, async (t) => {
  const measure = async (threads: number): Promise<number> => {
    const sealer = new Sealer({ threads, workerFile });
    try {
      await sealer.seal(sealA, 0x10000n); // start the workers and warm the kernel
      const controller = new AbortController();
      const pending = sealer.seal(sealA, UNREACHABLE, { signal: controller.signal });
      await sleep(1200);
      const rate = sealer.hashrate();
      controller.abort();
      await pending;
      return rate;
    } finally {
      await sealer.close();
    }
  };
  // The 2 cores are shared with other processes. A ratio ≤ 1.3 only counts as a failure when two
  // spinning threads do get ~2 cores right afterwards; otherwise the attempt is inconclusive.
  const notes: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const one = await measure(1);
    const two = await measure(2);
    t.ok(one > 0 && two > 0, 'hashrate() measures work');
    const note = `${Math.round(one)}/s → ${Math.round(two)}/s (×${(two / one).toFixed(2)})`;
    if (two / one > 1.3) return void t.pass(`2 threads > 1.3 × 1 thread: ${note}`);
    const cores = await freeCores(400);
    notes.push(`${note}, free cores ${cores.toFixed(2)}`);
    if (cores >= 1.7) return void t.fail(`2 threads ≤ 1.3 × 1 thread on an idle machine: ${notes.join('; ')}`);
  }
  t.ok(true, '2 threads > 1.3 × 1 thread', { skip: `machine too busy to compare: ${notes.join('; ')}` });
});

t.test('setThreads resizes under a running seal; close ends running seals', async (t) => {
  const sealer = newSealer(t, 1, 1 << 14);
  const pending = sealer.seal(sealA, 0x100000n);
  await sleep(50);
  sealer.setThreads(2);
  t.equal(sealer.threadCount, 2);
  const result = await pending;
  t.ok(result && verifyPow(sealA, nonceBytes(result.nonce), result.mix, 0x100000n), 'the seal completes and verifies');
  t.throws(() => sealer.setThreads(0), RangeError);

  const running = sealer.seal(sealA, UNREACHABLE);
  await sleep(100);
  await sealer.close();
  t.equal(await running, undefined, 'close resolves a running seal with undefined');
  t.equal(sealer.pendingTasks, 0);
  await t.rejects(sealer.seal(sealA, 0x200n), /closed/);
});

t.test('without workerFile the compiled worker is found from the sources too', async (t) => {
  const sealer = new Sealer({ threads: 1 });
  t.teardown(() => sealer.close());
  const result = await sealer.seal(sealB, 0x10000n);
  t.ok(result && verifyPow(sealB, nonceBytes(result.nonce), result.mix, 0x10000n));
});

t.test('constructor validates threads', async (t) => {
  t.throws(() => new Sealer({ threads: 0, workerFile }), RangeError);
  t.throws(() => new Sealer({ threads: 1.5, workerFile }), RangeError);
});
