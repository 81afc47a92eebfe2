// Ethash behind the PoW interface: caches stored and reused, seals checked with reasons, the
// sealer's workers finding the same smallest nonce as the kernel on this thread.

import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { EthashCaches, cacheFileName } from '../../../src/consensus/ethash/ethashCaches.js';
import { EthashEngine } from '../../../src/consensus/ethash/ethashEngine.js';
import { EthashKernel } from '../../../src/consensus/ethash/ethashKernel.js';
import { cacheSize } from '../../../src/consensus/ethash/params.js';
import { powMix } from '../../../src/consensus/pow.js';
import { keccakPow } from '../../../src/consensus/powEngine.js';
import { Sealer } from '../../../src/miner/sealer.js';
import { bigintToFixed, equalBytes } from '../../../src/encoding/bytes.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

const seal = hexToBytes('0x' + '5a'.repeat(32));

t.test('a cache is stored under the directory and read back by the next process', async (t) => {
  const dir = testDir(t);
  const first = new EthashCaches({ dir, inline: true });
  const generated = await first.get(0);
  t.same(first.stats, { loaded: 0, generated: 1 });
  t.ok(generated.buffer instanceof SharedArrayBuffer, 'shared with the search workers without copying');
  const file = path.join(dir, cacheFileName(0));
  t.equal(fs.statSync(file).size, cacheSize(0) + 32, 'the cache and its keccak256');

  const second = new EthashCaches({ dir, inline: true });
  const loaded = await second.get(0);
  t.same(second.stats, { loaded: 1, generated: 0 }, 'reused, not regenerated');
  t.ok(equalBytes(loaded, generated));
  t.equal(await second.get(0), loaded, 'kept in memory');

  const bytes = fs.readFileSync(file);
  bytes[12345] ^= 1;
  fs.writeFileSync(file, bytes);
  const third = new EthashCaches({ dir, inline: true });
  t.ok(equalBytes(await third.get(0), generated), 'a damaged file is regenerated');
  t.same(third.stats, { loaded: 0, generated: 1 });
  t.equal(fs.readFileSync(file).length, cacheSize(0) + 32, 'and rewritten');
});

t.test('the engine accepts a real seal and names what is wrong with a bad one', async (t) => {
  const engine = new EthashEngine(new EthashCaches({ inline: true }));
  const kernel = new EthashKernel();
  kernel.loadCache(0, await engine.caches.get(0));
  const difficulty = 5n;
  const mix = new Uint8Array(32);
  const i = kernel.search(seal, engine.target(difficulty), 0n, 1000, mix);
  t.ok(i >= 0);
  const nonce = bigintToFixed(BigInt(i), 8);
  const header = { number: 7n, sealHash: seal, nonce, mixHash: mix, difficulty };
  t.equal(await engine.check(header), undefined, 'valid');
  t.match(await engine.check({ ...header, mixHash: new Uint8Array(32) }), /^wrong mix digest 0x0{64} \(Ethash gives 0x[0-9a-f]{64}\)$/);
  t.equal(await engine.check({ ...header, mixHash: powMix(seal, nonce) }), 'sealed with keccak-pow, but this chain seals with Ethash');
  t.equal(await engine.check({ ...header, difficulty: 1n << 200n }), 'Ethash result above the difficulty target');
  t.equal(await engine.check({ ...header, nonce: nonce.subarray(1) }), 'malformed seal fields');
  t.match(await keccakPow.check(header), /^wrong mix digest/, 'keccak-pow refuses an Ethash seal');
  t.equal(engine.name, 'ethash');
  t.equal(engine.describe(), 'ethash (light cache)');
});

t.test('the sealer searches Ethash in workers: the smallest nonce, as on this thread', async (t) => {
  const engine = new EthashEngine(new EthashCaches({ inline: true }));
  const sealer = new Sealer({ threads: 2, pow: engine, batchSize: 16 });
  t.teardown(() => sealer.close());
  const difficulty = 40n;
  const found = await sealer.seal(seal, difficulty, { deterministic: true, number: 3n });
  t.ok(found);
  const kernel = new EthashKernel();
  kernel.loadCache(0, await engine.caches.get(0));
  const mix = new Uint8Array(32);
  t.equal(BigInt(kernel.search(seal, engine.target(difficulty), 0n, 100_000, mix)), found!.nonce, 'the smallest valid nonce');
  t.ok(equalBytes(mix, found!.mix));
  t.equal(await engine.check({ number: 3n, sealHash: seal, nonce: bigintToFixed(found!.nonce, 8), mixHash: found!.mix, difficulty }), undefined);
  t.ok(sealer.totalHashes >= Number(found!.nonce) + 1, 'hashes counted');
});

t.test('three caches stay in memory: the head\'s epoch and the next are never dropped', async (t) => {
  const caches = new EthashCaches({ inline: true });
  caches.prepare(0);
  const zero = caches.get(0);
  await zero;
  await caches.get(1);
  await caches.get(2);
  await caches.get(3); // a fourth: the least recently used unprotected one (2) goes
  t.equal(caches.stats.generated, 4);
  t.equal(caches.get(0), zero, 'the head\'s epoch is kept');
  await caches.get(1);
  await caches.get(3);
  t.equal(caches.stats.generated, 4, 'epochs 1 and 3 are kept');
  await caches.get(2);
  t.equal(caches.stats.generated, 5, 'epoch 2 was dropped and is made again');
});
