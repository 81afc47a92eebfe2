// Ethash against the published test vectors (ethereum/tests PoWTests/ethash_tests.json, in
// test/fixtures/ethash/) and the size and seed rules of an independent implementation.

import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { keccak256 as libraryKeccak } from 'ethereum-cryptography/keccak.js';
import { EthashKernel } from '../../../src/consensus/ethash/ethashKernel.js';
import { cacheSize, datasetSize, epochOf, epochSeed } from '../../../src/consensus/ethash/params.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { bigintToFixed, bytesToBigint } from '../../../src/encoding/bytes.js';
import { getCacheSize, getFullSize, getSeed } from '../../helpers/ethashReference.js';
import { ROOT } from '../../helpers/node.js';

interface Vector {
  nonce: string; mixHash: string; header: string; seed: string; result: string;
  cache_size: number; full_size: number; header_hash: string; cache_hash: string;
}
const vectors = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/ethash/ethash_tests.json'), 'utf8')) as Record<string, Vector>;
const h = (hex: string) => hexToBytes('0x' + hex);

const kernel = new EthashKernel();
kernel.generateCache(0);

t.test('published vectors: sizes, seed, cache, header hash, mix digest and result', async (t) => {
  t.equal(Object.keys(vectors).length, 2);
  for (const [name, v] of Object.entries(vectors)) {
    const fields = RLP.decode(h(v.header)) as Uint8Array[];
    const number = bytesToBigint(fields[8]);
    const epoch = epochOf(number);
    t.equal(cacheSize(epoch), v.cache_size, `${name}: cache size`);
    t.equal(datasetSize(epoch), v.full_size, `${name}: dataset size`);
    t.equal(bytesToHex(epochSeed(epoch)).slice(2), v.seed, `${name}: seed hash`);
    t.equal(bytesToHex(libraryKeccak(kernel.cache())).slice(2), v.cache_hash, `${name}: keccak256 of the cache`);
    // header_hash is the seal hash: the header without its last two fields (mixHash, nonce).
    t.equal(bytesToHex(libraryKeccak(RLP.encode(fields.slice(0, -2)))).slice(2), v.header_hash, `${name}: seal hash`);
    t.equal(bytesToHex(fields[14]).slice(2), v.nonce, `${name}: the header's nonce is big-endian`);
    const { mix, result } = kernel.hash(h(v.header_hash), BigInt('0x' + v.nonce));
    t.equal(bytesToHex(mix).slice(2), v.mixHash, `${name}: mix digest`);
    t.equal(bytesToHex(result).slice(2), v.result, `${name}: result`);
  }
});

t.test('sizes and seeds agree with @ethereumjs/ethash across epochs', async (t) => {
  for (const epoch of [0, 1, 2, 17, 100, 376, 1023]) {
    t.equal(cacheSize(epoch), await getCacheSize(epoch), `cache size, epoch ${epoch}`);
    t.equal(datasetSize(epoch), await getFullSize(epoch), `dataset size, epoch ${epoch}`);
    t.equal(bytesToHex(epochSeed(epoch)), bytesToHex(getSeed(new Uint8Array(32), 0, epoch)), `seed, epoch ${epoch}`);
  }
  t.equal(epochOf(29999n), 0);
  t.equal(epochOf(30000n), 1);
  t.throws(() => epochOf(-1n), RangeError);
});

t.test('the many-lane search finds the smallest nonce that the one-lane hash confirms', async (t) => {
  const seal = h(vectors.second.header_hash);
  const target = bigintToFixed((1n << 256n) / 9n, 32);
  const mix = new Uint8Array(32);
  const start = 1000n;
  const hit = kernel.search(seal, target, start, 200, mix);
  t.ok(hit >= 0, 'difficulty 9: a hit within 200 nonces');
  for (let i = 0; i <= hit; i++) {
    const one = kernel.hash(seal, start + BigInt(i));
    const meets = bytesToBigint(one.result) <= bytesToBigint(target);
    t.equal(meets, i === hit, `nonce ${start + BigInt(i)} ${i === hit ? 'meets' : 'misses'} the target`);
    if (i === hit) t.equal(bytesToHex(mix), bytesToHex(one.mix), 'the mix of the hit');
  }
  t.equal(kernel.search(seal, target, start, hit, mix), -1, 'the range end is exclusive');
  t.equal(kernel.search(seal, bigintToFixed(1n, 32), 0n, 7, mix), -1, 'a count that is not a multiple of the lanes');
});

t.test('dataset items from the cache', async (t) => {
  // Full and light hashimoto agree over a dataset whose first pages are computed items.
  const items = kernel.datasetItems(0, 16);
  t.equal(items.length, 16 * 64);
  t.same(kernel.datasetItems(5, 3), items.slice(5 * 64, 8 * 64), 'an item does not depend on its batch');
  t.not(bytesToHex(items.slice(0, 64)), bytesToHex(items.slice(64, 128)));
});
