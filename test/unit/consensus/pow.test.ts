import t from 'tap';
import { randomBytes } from 'node:crypto';
import { keccak256 as libraryKeccak } from 'ethereum-cryptography/keccak.js';
import {
  nonceBytes, powKernel, powMix, powTarget, searchNonce, seedHash, targetBytes, verifyPow,
} from '../../../src/consensus/pow.js';
import { jsKernel, keccak40, meetsTarget } from '../../../src/consensus/keccak40.js';
import { createWasmKernel } from '../../../src/consensus/keccak40Wasm.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { bigintToFixed, bytesToBigint, concatBytes } from '../../../src/encoding/bytes.js';

const TWO_256 = 1n << 256n;
const seal = hexToBytes('0x' + 'a5'.repeat(16) + '3c'.repeat(16));

/** The definition, spelled out with the library hash: the smallest valid nonce in [from, to). */
function linearSearch(sealHash: Uint8Array, difficulty: bigint, from: bigint, to: bigint): bigint | undefined {
  const target = powTarget(difficulty);
  for (let n = from; n < to; n++) {
    if (bytesToBigint(libraryKeccak(concatBytes(sealHash, bigintToFixed(n, 8)))) <= target) return n;
  }
  return undefined;
}

t.test('target = min(2^256 - 1, floor(2^256 / difficulty))', async (t) => {
  t.equal(powTarget(1n), TWO_256 - 1n, 'difficulty 1 is capped at 2^256 - 1');
  t.equal(powTarget(2n), 1n << 255n);
  t.equal(powTarget(3n), TWO_256 / 3n);
  t.equal(powTarget(0x200n), 1n << 247n);
  t.equal(bytesToHex(targetBytes(1n)), '0x' + 'ff'.repeat(32));
  t.equal(bytesToHex(targetBytes(0x200n)), '0x0080' + '00'.repeat(30));
  t.equal(bytesToHex(targetBytes(131072n)), '0x00008000' + '00'.repeat(28));
  t.equal(bytesToHex(targetBytes(TWO_256)), '0x' + '00'.repeat(31) + '01');
  t.throws(() => powTarget(0n), RangeError);
  t.throws(() => powTarget(-5n), RangeError);
});

t.test('seedHash iterates keccak256 once per 30000-block epoch', async (t) => {
  const zero = '0x' + '00'.repeat(32);
  const epoch1 = '0x290decd9548b62a8d60345a988386fc84ba6bc95484008f6362f93160ef3e563'; // keccak256(32 zero bytes)
  t.equal(bytesToHex(seedHash(0n)), zero);
  t.equal(bytesToHex(seedHash(29999n)), zero);
  t.equal(bytesToHex(seedHash(30000n)), epoch1);
  t.equal(bytesToHex(seedHash(59999n)), epoch1);
  t.equal(bytesToHex(seedHash(60000n)), bytesToHex(libraryKeccak(hexToBytes(epoch1))));
  let s: Uint8Array = new Uint8Array(32);
  for (let i = 0; i < 7; i++) s = libraryKeccak(s);
  t.equal(bytesToHex(seedHash(7n * 30000n + 123n)), bytesToHex(s), 'epoch 7');
  seedHash(30000n).fill(1);
  t.equal(bytesToHex(seedHash(30000n)), epoch1, 'callers get a copy of the cached seed');
  t.throws(() => seedHash(-1n), RangeError);
});

t.test('the 40-byte keccak kernels equal the library', async (t) => {
  const wasm = createWasmKernel();
  t.ok(wasm, 'WebAssembly kernel builds on Node');
  t.equal(powKernel().name, 'wasm', 'the search uses the WebAssembly kernel');
  const inputs = [new Uint8Array(40), new Uint8Array(40).fill(0xff)];
  for (let i = 0; i < 3000; i++) inputs.push(new Uint8Array(randomBytes(40)));
  const out = new Uint8Array(32);
  let jsBad = 0;
  let wasmBad = 0;
  let fnBad = 0;
  for (const input of inputs) {
    const expected = bytesToHex(libraryKeccak(input));
    jsKernel.hash40(input, out);
    if (bytesToHex(out) !== expected) jsBad++;
    wasm!.hash40(input, out);
    if (bytesToHex(out) !== expected) wasmBad++;
    keccak40(input, out);
    if (bytesToHex(out) !== expected) fnBad++;
  }
  t.equal(jsBad, 0, 'JavaScript kernel: no mismatch in 3002 inputs');
  t.equal(wasmBad, 0, 'WebAssembly kernel: no mismatch in 3002 inputs');
  t.equal(fnBad, 0, 'keccak40(): no mismatch');
  const zeroDigest = new Uint8Array(32);
  keccak40(new Uint8Array(40), zeroDigest);
  t.equal(bytesToHex(zeroDigest), bytesToHex(libraryKeccak(new Uint8Array(40))));
});

t.test('meetsTarget compares 32-byte big-endian numbers', async (t) => {
  const target = targetBytes(0x200n); // 0x0080 00…
  t.ok(meetsTarget(target, target), 'equal meets');
  t.ok(meetsTarget(hexToBytes('0x007f' + 'ff'.repeat(30)), target));
  t.notOk(meetsTarget(hexToBytes('0x0080' + '00'.repeat(29) + '01'), target));
  t.notOk(meetsTarget(new Uint8Array(32).fill(0xff), target));
  t.ok(meetsTarget(new Uint8Array(32).fill(0xff), targetBytes(1n)));
});

t.test('both kernels find the same smallest nonce, across slice borders', async (t) => {
  const wasm = createWasmKernel()!;
  const target = targetBytes(300n);
  for (const start of [0n, 1000n, (1n << 32n) - 5n]) {
    const js = new Uint8Array(32);
    const wa = new Uint8Array(32);
    const i = jsKernel.search(seal, target, start, 20_000, js);
    const j = wasm.search(seal, target, start, 20_000, wa);
    t.equal(j, i, `same hit index from ${start}`);
    t.equal(bytesToHex(wa), bytesToHex(js));
    t.equal(start + BigInt(i), linearSearch(seal, 300n, start, start + 20_000n), 'equals the definition');
  }
  t.equal(wasm.search(seal, new Uint8Array(32), 0n, 5000, new Uint8Array(32)), -1, 'target 0: no hit');
});

t.test('searchNonce returns the smallest valid nonce in its range', async (t) => {
  const first = searchNonce(seal, targetBytes(700n), 0n, 100_000);
  const expected = linearSearch(seal, 700n, 0n, 100_000n);
  t.ok(first && expected !== undefined);
  t.equal(first!.nonce, expected);
  t.equal(bytesToHex(first!.mix), bytesToHex(powMix(seal, nonceBytes(expected!))));
  t.equal(searchNonce(seal, targetBytes(700n), 0n, Number(expected!)), undefined, 'the range end is exclusive');
  const next = searchNonce(seal, targetBytes(700n), expected! + 1n, 100_000);
  t.equal(next?.nonce, linearSearch(seal, 700n, expected! + 1n, expected! + 100_001n), 'from a start nonce');
  t.equal(searchNonce(seal, targetBytes(5n), 7n, 0), undefined, 'empty range');
  const top = (1n << 64n) - 3n;
  t.equal(searchNonce(seal, targetBytes(1n), top, 10)?.nonce, top, 'difficulty 1: every nonce is valid');
  t.equal(searchNonce(seal, new Uint8Array(32), top, 10), undefined, 'the range stops at 2^64');
  t.throws(() => searchNonce(seal, targetBytes(1n), 1n << 64n, 1), RangeError);
  t.throws(() => searchNonce(seal.subarray(1), targetBytes(1n), 0n, 1), RangeError);
});

t.test('verifyPow accepts a found seal and rejects anything else', async (t) => {
  const difficulty = 0x1000n;
  const hit = searchNonce(seal, targetBytes(difficulty), 0n, 1_000_000)!;
  const nonce = nonceBytes(hit.nonce);
  t.ok(verifyPow(seal, nonce, hit.mix, difficulty));
  t.equal(bytesToHex(powMix(seal, nonce)), bytesToHex(libraryKeccak(concatBytes(seal, nonce))), 'mix = keccak256(sealHash ‖ nonce)');
  const wrongMix = hit.mix.slice();
  wrongMix[31] ^= 1;
  t.notOk(verifyPow(seal, nonce, wrongMix, difficulty), 'mix must equal the computed mix');
  // The nonce just below the smallest hit misses the target, even with its own correct mix.
  if (hit.nonce > 0n) {
    const miss = nonceBytes(hit.nonce - 1n);
    t.notOk(verifyPow(seal, miss, powMix(seal, miss), difficulty), 'a miss is rejected');
  }
  // The exact boundary: the largest difficulty this mix satisfies, and one more.
  const value = bytesToBigint(hit.mix);
  const hardest = TWO_256 / value;
  t.ok(verifyPow(seal, nonce, hit.mix, hardest));
  t.notOk(verifyPow(seal, nonce, hit.mix, hardest + 1n));
  t.notOk(verifyPow(seal, nonce, hit.mix, 0n), 'difficulty 0 is invalid, not an exception');
  t.notOk(verifyPow(seal, nonce.subarray(1), hit.mix, difficulty), 'short nonce');
  t.notOk(verifyPow(seal, nonceBytes(hit.nonce ^ (1n << 63n)), hit.mix, difficulty), 'the nonce is big-endian and all 8 bytes count');
  t.equal(bytesToHex(nonceBytes(1n)), '0x0000000000000001');
});
