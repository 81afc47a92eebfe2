import t from 'tap';
import {
  decodeQuantity, decodeData, decodeAddress, decodeBlockTag, decodeStorageSlot, encodeQuantity, bytesToHex, hexToBytes, encodeWord,
} from '../../../src/encoding/hex.js';
import { DecodeError } from '../../../src/errors.js';

// Decoders give the reason only; rpc/params.ts names the argument (test/unit/rpc/params.test.ts).
const invalid = (fn: () => unknown, pattern: RegExp) => {
  try {
    fn();
  } catch (err) {
    return err instanceof DecodeError && pattern.test(err.reason) && !/invalid argument/.test(err.message);
  }
  return false;
};

t.test('QUANTITY decoding follows the interface rules', async (t) => {
  t.equal(decodeQuantity('0x0'), 0n);
  t.equal(decodeQuantity('0x41'), 65n);
  t.equal(decodeQuantity('0x400'), 1024n);
  t.equal(decodeQuantity('0xFF'), 255n, 'upper-case digits are accepted');
  t.ok(invalid(() => decodeQuantity('0x'), /no digits/));
  t.ok(invalid(() => decodeQuantity('0x0400'), /leading zero/));
  t.ok(invalid(() => decodeQuantity('400'), /without 0x prefix/));
  t.ok(invalid(() => decodeQuantity('0xzz'), /invalid hex/));
  t.ok(invalid(() => decodeQuantity(12), /expected a hex string, got number/));
  t.ok(invalid(() => decodeQuantity('-0x1'), /without 0x prefix/));
  t.ok(invalid(() => decodeQuantity('0x1' + '0'.repeat(64)), /> 256 bits/));
  t.ok(invalid(() => decodeQuantity('0x10000000000000000', 64), /> 64 bits/));
});

t.test('a storage position is any hex of up to 32 bytes, left-padded', async (t) => {
  const word = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? n : 0));
  t.same(decodeStorageSlot('0x0'), word(0));
  t.same(decodeStorageSlot('0x01'), word(1), 'a leading zero digit is accepted');
  t.same(decodeStorageSlot('0x001'), word(1), 'odd length too');
  t.same(decodeStorageSlot('0x' + '00'.repeat(31) + '2a'), word(42), 'a full 32-byte word');
  t.same(decodeStorageSlot('0x0F'), word(15), 'upper-case digits');
  t.ok(invalid(() => decodeStorageSlot('0x'), /no digits/));
  t.ok(invalid(() => decodeStorageSlot('0x1' + '0'.repeat(64)), /hex string too long, want at most 32 bytes/));
  t.ok(invalid(() => decodeStorageSlot('0x0g'), /invalid hex string/));
  t.ok(invalid(() => decodeStorageSlot('12'), /without 0x prefix/));
  t.ok(invalid(() => decodeStorageSlot(1), /expected a hex string, got number/));
  t.ok(invalid(() => decodeQuantity('0x01'), /leading zero/), 'QUANTITY stays strict');
});

t.test('DATA decoding follows the interface rules', async (t) => {
  t.same(decodeData('0x'), new Uint8Array());
  t.same(decodeData('0x0aFF'), Uint8Array.of(10, 255));
  t.ok(invalid(() => decodeData('0x123'), /odd length/));
  t.ok(invalid(() => decodeData('1234'), /without 0x prefix/));
  t.ok(invalid(() => decodeData('0xgg'), /invalid hex/));
  t.ok(invalid(() => decodeAddress('0x' + '11'.repeat(19)), /want 40 for 20-byte/));
  t.equal(decodeAddress('0x' + 'ab'.repeat(20)).length, 20);
});

t.test('TAG decoding', async (t) => {
  t.equal(decodeBlockTag('latest'), 'latest');
  t.equal(decodeBlockTag('earliest'), 'earliest');
  t.equal(decodeBlockTag('pending'), 'pending');
  t.equal(decodeBlockTag('0x10'), 16n);
  t.ok(invalid(() => decodeBlockTag('newest'), /unknown block tag/));
  t.ok(invalid(() => decodeBlockTag(null), /got null/));
});

t.test('encoders give canonical forms', async (t) => {
  t.equal(encodeQuantity(0n), '0x0');
  t.equal(encodeQuantity(1024), '0x400');
  t.equal(bytesToHex(Uint8Array.of(0, 1, 254)), '0x0001fe');
  t.same(hexToBytes('0x0001fe'), Uint8Array.of(0, 1, 254));
  t.equal(encodeWord(1n), '0x' + '0'.repeat(63) + '1');
});
