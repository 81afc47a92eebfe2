import t from 'tap';
import {
  decodeQuantity, decodeData, decodeAddress, decodeBlockTag, encodeQuantity, bytesToHex, hexToBytes, encodeWord,
} from '../../../src/encoding/hex.js';
import { NodeError } from '../../../src/errors.js';

const invalid = (fn: () => unknown, pattern: RegExp) => {
  try {
    fn();
  } catch (err) {
    return err instanceof NodeError && err.kind === 'invalidParams' && pattern.test(err.message);
  }
  return false;
};

t.test('QUANTITY decoding follows the interface rules', async (t) => {
  t.equal(decodeQuantity('0x0', 0), 0n);
  t.equal(decodeQuantity('0x41', 0), 65n);
  t.equal(decodeQuantity('0x400', 0), 1024n);
  t.equal(decodeQuantity('0xFF', 0), 255n, 'upper-case digits are accepted');
  t.ok(invalid(() => decodeQuantity('0x', 1), /argument 1.*no digits/));
  t.ok(invalid(() => decodeQuantity('0x0400', 1), /leading zero/));
  t.ok(invalid(() => decodeQuantity('400', 2), /without 0x prefix/));
  t.ok(invalid(() => decodeQuantity('0xzz', 0), /invalid hex/));
  t.ok(invalid(() => decodeQuantity(12, 0), /expected a hex string, got number/));
  t.ok(invalid(() => decodeQuantity('-0x1', 0), /without 0x prefix/));
  t.ok(invalid(() => decodeQuantity('0x1' + '0'.repeat(64), 0), /> 256 bits/));
  t.ok(invalid(() => decodeQuantity('0x10000000000000000', 0, 64), /> 64 bits/));
});

t.test('DATA decoding follows the interface rules', async (t) => {
  t.same(decodeData('0x', 0), new Uint8Array());
  t.same(decodeData('0x0aFF', 0), Uint8Array.of(10, 255));
  t.ok(invalid(() => decodeData('0x123', 0), /odd length/));
  t.ok(invalid(() => decodeData('1234', 0), /without 0x prefix/));
  t.ok(invalid(() => decodeData('0xgg', 0), /invalid hex/));
  t.ok(invalid(() => decodeAddress('0x' + '11'.repeat(19), 0), /want 40 for 20-byte/));
  t.equal(decodeAddress('0x' + 'ab'.repeat(20), 0).length, 20);
});

t.test('TAG decoding', async (t) => {
  t.equal(decodeBlockTag('latest', 0), 'latest');
  t.equal(decodeBlockTag('earliest', 0), 'earliest');
  t.equal(decodeBlockTag('pending', 0), 'pending');
  t.equal(decodeBlockTag('0x10', 0), 16n);
  t.ok(invalid(() => decodeBlockTag('newest', 1), /unknown block tag/));
  t.ok(invalid(() => decodeBlockTag(null, 1), /got null/));
});

t.test('encoders give canonical forms', async (t) => {
  t.equal(encodeQuantity(0n), '0x0');
  t.equal(encodeQuantity(1024), '0x400');
  t.equal(bytesToHex(Uint8Array.of(0, 1, 254)), '0x0001fe');
  t.same(hexToBytes('0x0001fe'), Uint8Array.of(0, 1, 254));
  t.equal(encodeWord(1n), '0x' + '0'.repeat(63) + '1');
});
