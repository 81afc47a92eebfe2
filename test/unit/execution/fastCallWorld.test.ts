import t from 'tap';
import { Account, type Address } from '@ethereumjs/util';
import { CallWorld, NEED_ACCOUNT, NEED_CODE, NEED_STORAGE, type BaseSource } from '../../../src/execution/fastCall/world.js';

// The fast call's state (src/execution/fastCall/world.ts): misses name what to load, writes are
// journaled below depth 0 and reverted exactly, and a cache that starts over in the middle of a
// call keeps the call's own accounts readable.

const A = 0xa0n;
const B = 0xb0n;

function source(): BaseSource & { loads: string[] } {
  const loads: string[] = [];
  const key = (a: Address) => BigInt(a.toString());
  return {
    loads,
    async readBaseAccount(a: Address) {
      loads.push(`account ${key(a)}`);
      return key(a) === A ? new Account(1n, 100n, undefined, new Uint8Array(32).fill(7)) : undefined;
    },
    async readBaseCode(a: Address) {
      loads.push(`code ${key(a)}`);
      return Uint8Array.from([0x00]);
    },
    async readBaseStorage(a: Address, slot: Uint8Array) {
      loads.push(`storage ${key(a)} ${slot[31]}`);
      return slot[31] === 1 ? Uint8Array.from([9]) : new Uint8Array(0);
    },
  };
}

/** Reads until cached, loading what each miss names. */
async function read<T>(w: CallWorld, get: () => T | undefined): Promise<T> {
  for (let i = 0; i < 5; i++) {
    const v = get();
    if (v !== undefined) return v;
    await w.load();
  }
  throw new Error('never cached');
}

t.test('misses name what to load; loaded values are read synchronously', async (t) => {
  const src = source();
  const w = new CallWorld(src);
  t.equal(w.account(A), undefined);
  t.equal(w.needKind, NEED_ACCOUNT);
  t.equal((await read(w, () => w.account(A))).balance, 100n);
  t.equal(w.storage(A, 1n), undefined);
  t.equal(w.needKind, NEED_STORAGE);
  t.equal(await read(w, () => w.storage(A, 1n)), 9n);
  t.equal(w.code(A), undefined);
  t.equal(w.needKind, NEED_CODE);
  t.same(await read(w, () => w.code(A)), Uint8Array.from([0]));
  t.equal(await read(w, () => w.storage(B, 1n)), 0n, 'an absent account has empty storage without a storage read');
  t.same(src.loads, ['account 160', 'storage 160 1', 'code 160', 'account 176']);
});

t.test('writes below depth 0 revert exactly; depth 0 writes are not journaled', async (t) => {
  const w = new CallWorld(source());
  await read(w, () => w.account(A));
  await read(w, () => w.storage(A, 1n));
  await read(w, () => w.account(B));
  w.setBalance(A, 50n);
  w.journaling = true;
  const mark = w.checkpoint();
  w.setStorage(A, 1n, 3n);
  w.setBalance(A, 7n);
  w.setNonce(B, 4n);
  w.clearStorage(A);
  w.warmAddress(B);
  t.equal(w.storage(A, 1n), 0n, 'cleared');
  t.equal(w.account(B)!.exists, true, 'a write makes the account present');
  w.revert(mark);
  t.equal(w.storage(A, 1n), 9n, 'storage back');
  t.equal(w.account(A)!.balance, 50n, 'balance back to the depth-0 write');
  t.equal(w.account(B)!.nonce, 0n);
  t.equal(w.account(B)!.exists, false, 'absent again');
  t.equal(w.isWarm(B), false, 'accessed set back');
  w.reset();
  t.equal(w.account(A)!.balance, 100n, 'reset forgets the call');
});

t.test('a cache that starts over in the middle of a call keeps the call\'s accounts', async (t) => {
  const src = source();
  const w = new CallWorld(src, 3);
  await read(w, () => w.account(A));
  w.setStorage(A, 2n, 5n);
  await read(w, () => w.account(B));
  await read(w, () => w.storage(A, 1n));
  // the next load starts over: A's written slot and its base (held by the overlay) stay readable
  await read(w, () => w.account(0xc0n));
  t.equal(w.storage(A, 2n), 5n);
  t.equal(await read(w, () => w.storage(A, 1n)), 9n);
  t.equal(await read(w, () => w.originalStorage(A, 1n)), 9n);
  t.equal((await read(w, () => w.account(B))).exists, false, 'an evicted account loads again');
});
