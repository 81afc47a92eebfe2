// Full-dataset hashimoto (the kernel reading a shared dataset) against the light computation,
// over a small synthetic dataset: the first pages of epoch 0, with the page count capped.

import t from 'tap';
import { EthashKernel } from '../../../src/consensus/ethash/ethashKernel.js';
import { bigintToFixed } from '../../../src/encoding/bytes.js';
import { bytesToHex } from '../../../src/encoding/hex.js';

const PAGES = 97; // a prime, as real page counts are
const kernel = new EthashKernel();
kernel.generateCache(0);
kernel.limitPages(PAGES);
const items = kernel.datasetItems(0, 2 * PAGES);
const dataset = new Uint8Array(new SharedArrayBuffer(items.length));
dataset.set(items);
const seal = new Uint8Array(32).map((_, i) => i * 7 + 3);

t.test('hashimoto-full over the dataset equals hashimoto-light over the cache', async (t) => {
  const nonces = [0n, 1n, 255n, 0x0123456789abcdefn, (1n << 64n) - 1n];
  const light = nonces.map((n) => kernel.hash(seal, n));
  kernel.useDataset(dataset);
  t.ok(kernel.fullMode);
  nonces.forEach((n, i) => {
    const full = kernel.hash(seal, n);
    t.equal(bytesToHex(full.mix), bytesToHex(light[i].mix), `mix of nonce ${n}`);
    t.equal(bytesToHex(full.result), bytesToHex(light[i].result), `result of nonce ${n}`);
  });
  kernel.useDataset(undefined);
  t.notOk(kernel.fullMode, 'back to light');
});

t.test('the full search finds the same smallest nonce as the light search', async (t) => {
  const target = bigintToFixed((1n << 256n) / 50n, 32);
  const lightMix = new Uint8Array(32);
  const lightHit = kernel.search(seal, target, 500n, 400, lightMix);
  t.ok(lightHit >= 0, 'difficulty 50: a hit within 400 nonces');
  kernel.useDataset(dataset);
  const fullMix = new Uint8Array(32);
  t.equal(kernel.search(seal, target, 500n, 400, fullMix), lightHit);
  t.equal(bytesToHex(fullMix), bytesToHex(lightMix));
  t.equal(kernel.search(seal, target, 500n, lightHit, fullMix), -1, 'the range end is exclusive');
  kernel.useDataset(undefined);
});

t.test('a dataset of the wrong size is refused', async (t) => {
  t.throws(() => kernel.useDataset(dataset.subarray(0, dataset.length - 128)), RangeError);
  t.throws(() => kernel.limitPages(0), RangeError);
  t.notOk(kernel.fullMode);
});
