// rpc/params.ts is the one place that names the argument of a decode failure.

import t from 'tap';
import { NodeError } from '../../../src/errors.js';
import { ParamError, address, blockTag, count, decodeArg, integer, member, quantity, storageSlot } from '../../../src/rpc/params.js';
import { decodeHash } from '../../../src/encoding/hex.js';

const messageOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof NodeError && err.kind === 'invalidParams') return err.message;
    throw err;
  }
  throw new Error('accepted');
};

t.test('codecs prefix the decoder reason with the argument', async (t) => {
  t.equal(messageOf(() => quantity('0x0400', 1)), 'invalid argument 1: hex number with leading zero digits');
  t.equal(messageOf(() => address('0x12', 0)), 'invalid argument 0: hex string has length 2, want 40 for 20-byte value');
  t.equal(messageOf(() => blockTag('newest', 2)), 'invalid argument 2: unknown block tag "newest" (want a hex number, earliest, latest or pending)');
  t.equal(messageOf(() => storageSlot('0x', 1)), 'invalid argument 1: hex string "0x" has no digits');
  t.equal(messageOf(() => count(-1, 3)), 'invalid argument 3: expected a non-negative integer');
  t.equal(messageOf(() => count('0x01', 3)), 'invalid argument 3: hex number with leading zero digits');
  t.equal(messageOf(() => decodeArg('Hash', () => decodeHash('0x'))), 'invalid argument Hash: hex string has length 0, want 64 for 32-byte value');
});

t.test('one integer-or-quantity codec: safe JSON numbers or 64-bit QUANTITY strings', async (t) => {
  t.equal(integer(7, 0), 7n);
  t.equal(integer('0x7', 0), 7n);
  t.equal(count('0x10', 0), 16);
  t.equal(messageOf(() => integer(1.5, 'Nonce')), 'invalid argument Nonce: expected a non-negative integer');
  t.equal(messageOf(() => integer(true, 2)), 'invalid argument 2: expected a non-negative integer');
  t.equal(messageOf(() => integer('0x10000000000000000', 2)), 'invalid argument 2: hex number > 64 bits');
});

t.test('an object member names the field once', async (t) => {
  const err = (() => {
    try {
      member({ gas: '0x01' }, 'gas', quantity, 0);
    } catch (e) {
      return e;
    }
  })();
  t.ok(err instanceof ParamError);
  t.equal((err as ParamError).message, 'invalid argument 0: field "gas": hex number with leading zero digits');
  t.equal((err as ParamError).reason, 'field "gas": hex number with leading zero digits');
  t.equal(member({}, 'gas', quantity, 0), undefined);
});

t.test('other failures pass through decodeArg untouched', async (t) => {
  const bug = new RangeError('a bug');
  t.throws(() => decodeArg(0, () => {
    throw bug;
  }), bug);
});
