import t from 'tap';
import {
  decodeQuantity, decodeData, decodeAddress, decodeBlockTag, decodeStorageSlot, encodeQuantity, bytesToHex, hexToBytes, encodeWord,
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

t.test('a storage position is any hex of up to 32 bytes, left-padded', async (t) => {
  const word = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? n : 0));
  t.same(decodeStorageSlot('0x0', 1), word(0));
  t.same(decodeStorageSlot('0x01', 1), word(1), 'a leading zero digit is accepted');
  t.same(decodeStorageSlot('0x001', 1), word(1), 'odd length too');
  t.same(decodeStorageSlot('0x' + '00'.repeat(31) + '2a', 1), word(42), 'a full 32-byte word');
  t.same(decodeStorageSlot('0x0F', 1), word(15), 'upper-case digits');
  t.ok(invalid(() => decodeStorageSlot('0x', 1), /argument 1.*no digits/));
  t.ok(invalid(() => decodeStorageSlot('0x1' + '0'.repeat(64), 1), /argument 1: hex string too long, want at most 32 bytes/));
  t.ok(invalid(() => decodeStorageSlot('0x0g', 1), /argument 1: invalid hex string/));
  t.ok(invalid(() => decodeStorageSlot('12', 1), /without 0x prefix/));
  t.ok(invalid(() => decodeStorageSlot(1, 1), /expected a hex string, got number/));
  t.ok(invalid(() => decodeQuantity('0x01', 1), /leading zero/), 'QUANTITY stays strict');
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
