// The search thread for small seals: it finds the linear search's nonce while this thread is
// busy (nothing here yields until it is done), reports misses and aborts, and closes. Through
// the Sealer (`searchThread: true`), small seals verify and deterministic mode gives the same
// nonce as the inline search.

import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../helpers/node.js';
import { SealThread } from '../../../src/miner/sealThread.js';
import { Sealer } from '../../../src/miner/sealer.js';
import { nonceBytes, searchNonce, targetBytes, verifyPow } from '../../../src/consensus/pow.js';
import { keccak256 } from '../../../src/encoding/bytes.js';

const sealHash = keccak256(new TextEncoder().encode('seal thread test'));

async function until(ready: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms`);
    await sleep(5);
  }
}

t.test('a search runs on the thread while this one is busy, and finds the linear search\'s nonce', async (t) => {
  const thread = new SealThread();
  t.teardown(() => thread.close());
  await until(() => thread.available, 'the thread online');
  const target = targetBytes(0x4000n);
  const expected = searchNonce(sealHash, target, 1000n, 1 << 24)!;
  const pending = thread.search({ sealHash, target, start: 1000n, count: 1 << 24 });
  t.notOk(thread.available, 'one search at a time');
  // Block this thread (no await) until the search thread reports its result.
  const deadline = Date.now() + 10_000;
  while (!thread.finished && Date.now() < deadline);
  t.ok(thread.finished, 'finished while this thread never yielded');
  const result = await pending;
  t.equal(result?.hit?.nonce, expected.nonce);
  t.same(result?.hit?.mix, expected.mix);
  t.equal(result?.hashes, Number(expected.nonce - 1000n) + 1);
  t.ok(thread.available, 'available again');

  const miss = await thread.search({ sealHash, target: new Uint8Array(32), start: 0n, count: 3000 });
  t.same(miss, { hashes: 3000 }, 'a range without a hit');
});

t.test('searches leave nothing behind: 5,000 of them keep no memory', async (t) => {
  // In a process of its own (the compiled module): tap's own promise tracking keeps memory here.
  const script = `
    import { SealThread } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/src/miner/sealThread.js')).href)};
    const thread = new SealThread();
    while (!thread.available) await new Promise((r) => setTimeout(r, 5));
    const task = { sealHash: new Uint8Array(32).fill(7), target: new Uint8Array(32), start: 0n, count: 1 };
    const heapAfter = async (n) => {
      for (let i = 0; i < n; i++) await thread.search(task);
      gc();
      return process.memoryUsage().heapUsed;
    };
    const before = await heapAfter(500); // warm: the code compiled, the pools sized
    const after = await heapAfter(5000);
    await thread.close();
    console.log(after - before);`;
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  const grown = Number(out.trim());
  // A reaction kept per search (the leak this guards against) was ~160 bytes: 800 KB here.
  t.ok(grown < 200_000, `heap used grew ${grown} bytes over 5,000 searches`);
});

t.test('abort ends a long search early; close ends the thread', async (t) => {
  const thread = new SealThread();
  await until(() => thread.available, 'the thread online');
  const count = 2 ** 31 - 1;
  const pending = thread.search({ sealHash, target: new Uint8Array(32), start: 0n, count });
  await sleep(30);
  thread.abort();
  const result = await pending;
  t.notOk(result?.hit);
  t.ok(result && result.hashes < count, `stopped after ${result?.hashes} hashes`);
  const again = thread.search({ sealHash, target: new Uint8Array(32), start: 0n, count });
  await thread.close(); // stops the running search first
  t.same((await again)?.hit, undefined);
  t.notOk(thread.available, 'closed');
  await thread.close();
});

t.test('the Sealer with a search thread: seals verify, deterministic mode gives the inline nonce', async (t) => {
  const sealer = new Sealer({ threads: 1, searchThread: true });
  t.teardown(() => sealer.close());
  // The first seal starts the thread and runs inline meanwhile.
  const first = await sealer.seal(sealHash, 0x200n);
  t.ok(first && verifyPow(sealHash, nonceBytes(first.nonce), first.mix, 0x200n));
  await until(() => sealer.searchThreadOnline, 'the search thread online');
  const before = sealer.totalHashes;
  for (const difficulty of [0x200n, 0x8000n]) {
    const result = await sealer.seal(sealHash, difficulty);
    t.ok(result && verifyPow(sealHash, nonceBytes(result.nonce), result.mix, difficulty), `difficulty ${difficulty}`);
  }
  t.ok(sealer.totalHashes > before, 'the thread\'s hashes are counted');
  const expected = searchNonce(sealHash, targetBytes(0x8000n), 0n, 1 << 24)!;
  t.equal((await sealer.seal(sealHash, 0x8000n, { deterministic: true }))?.nonce, expected.nonce);
  t.equal(await sealer.seal(sealHash, 0x8000n, { signal: AbortSignal.abort() }), undefined, 'an aborted signal');
  const controller = new AbortController();
  // Difficulty at the inline limit with an unreachable start: ~50,000 hashes, aborted first.
  const running = sealer.seal(sealHash, 50_000n, { signal: controller.signal });
  controller.abort();
  t.equal(await running, undefined, 'aborted while on the thread');
});
