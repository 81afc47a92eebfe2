// Integer ↔ big-endian bytes across the Number / hex-string paths of bigintToBytes and bytesToBigint.
import t from 'tap';
import { bigintToBytes, bigintToFixed, bytesToBigint } from '../../../src/encoding/bytes.js';

/** The reference: one BigInt step per byte. */
const slowToBigint = (bytes: Uint8Array) => bytes.reduce((n, b) => (n << 8n) | BigInt(b), 0n);
const slowToBytes = (value: bigint) => {
  const out: number[] = [];
  for (let v = value; v > 0n; v >>= 8n) out.unshift(Number(v & 0xffn));
  return Uint8Array.from(out);
};

t.test('bigintToBytes is minimal big-endian on both sides of 2^48', async (t) => {
  const values = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, 0xffffn, 0x10000n, 2n ** 47n, 2n ** 48n - 1n, 2n ** 48n, 2n ** 48n + 1n,
    2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 64n - 1n, 21_000n * 20_000_000_000n, 2n ** 255n, 2n ** 256n - 1n];
  for (const v of values) {
    t.same([...bigintToBytes(v)], [...slowToBytes(v)], `0x${v.toString(16)}`);
    t.equal(bytesToBigint(bigintToBytes(v)), v);
  }
  t.equal(bigintToBytes(0n).length, 0);
  t.equal(bigintToBytes(256n)[0], 1, 'no leading zero byte');
  t.throws(() => bigintToBytes(-1n), RangeError);
  t.same([...bigintToFixed(258n, 4)], [0, 0, 1, 2]);
});

t.test('bytesToBigint reads any length, leading zeros included', async (t) => {
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff;
  for (let length = 0; length <= 70; length++) {
    for (let k = 0; k < 5; k++) {
      let bytes = Uint8Array.from({ length }, () => next());
      if (k === 1 && length) bytes[0] = 0;
      if (k === 2) bytes.fill(0xff);
      // a view into a larger buffer, at an odd offset
      if (k === 4) bytes = Uint8Array.from({ length: length + 9 }, () => next()).subarray(3, 3 + length);
      t.equal(bytesToBigint(bytes), slowToBigint(bytes), `${length} bytes, case ${k}`);
    }
  }
  t.equal(bytesToBigint(new Uint8Array(0)), 0n);
});
