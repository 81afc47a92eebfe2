import t from 'tap';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address } from '@ethereumjs/util';
import { CallStateView } from '../../../src/state/callStateView.js';
import { keccak256 } from '../../../src/encoding/bytes.js';
import { bytesToHex } from '../../../src/encoding/hex.js';

const A = new Address(new Uint8Array(20).fill(0xaa));
const B = new Address(new Uint8Array(20).fill(0xbb));
const slot = (n: number) => {
  const k = new Uint8Array(32);
  k[31] = n;
  return k;
};
const CODE = Uint8Array.from([0x60, 0x2a, 0x60, 0x00, 0x55, 0x00]);

async function base(): Promise<MerkleStateManager> {
  const sm = new MerkleStateManager();
  await sm.putAccount(A, new Account(1n, 100n));
  await sm.putCode(A, CODE);
  await sm.putStorage(A, slot(1), Uint8Array.from([7]));
  await sm.flush();
  return sm;
}

t.test('reads come from the base; writes never reach it and reset forgets them', async (t) => {
  const sm = await base();
  const rootBefore = await sm.getStateRoot();
  const view = new CallStateView(sm);
  t.equal((await view.getAccount(A))?.balance, 100n);
  t.same(await view.getCode(A), CODE);
  t.same(await view.getStorage(A, slot(1)), Uint8Array.from([7]));
  t.equal(await view.getAccount(B), undefined, 'absent account');
  t.same(await view.getStorage(B, slot(1)), new Uint8Array(0), 'storage of an absent account');

  await view.putAccount(A, new Account(2n, 50n));
  await view.putStorage(A, slot(1), Uint8Array.from([9]));
  await view.putAccount(B, new Account(0n, 5n));
  t.equal((await view.getAccount(A))?.balance, 50n, 'write visible in the view');
  t.same(await view.getStorage(A, slot(1)), Uint8Array.from([9]));
  t.same(await view.originalStorageCache.get(A, slot(1)), Uint8Array.from([7]), 'original value is the base value');

  view.reset();
  t.equal((await view.getAccount(A))?.balance, 100n, 'reset forgets account writes');
  t.same(await view.getStorage(A, slot(1)), Uint8Array.from([7]), 'reset forgets storage writes');
  t.equal(await view.getAccount(B), undefined, 'reset forgets created accounts');
  t.equal((await sm.getAccount(A))?.balance, 100n, 'base untouched');
  t.equal(bytesToHex(await sm.getStateRoot()), bytesToHex(rootBefore), 'base root unchanged');
});

t.test('checkpoint / revert / commit nest like the EVM journal', async (t) => {
  const view = new CallStateView(await base());
  await view.checkpoint();
  await view.putStorage(A, slot(1), Uint8Array.from([1]));
  await view.checkpoint();
  await view.putStorage(A, slot(1), Uint8Array.from([2]));
  await view.putStorage(A, slot(2), Uint8Array.from([3]));
  await view.revert();
  t.same(await view.getStorage(A, slot(1)), Uint8Array.from([1]), 'inner revert drops the inner write');
  t.same(await view.getStorage(A, slot(2)), new Uint8Array(0));
  await view.checkpoint();
  await view.putStorage(A, slot(2), Uint8Array.from([4]));
  await view.commit();
  t.same(await view.getStorage(A, slot(2)), Uint8Array.from([4]), 'inner commit keeps the write');
  await view.revert();
  t.same(await view.getStorage(A, slot(1)), Uint8Array.from([7]), 'outer revert drops everything');
  t.same(await view.getStorage(A, slot(2)), new Uint8Array(0));
});

t.test('clearStorage and deleteAccount hide the base until reverted', async (t) => {
  const view = new CallStateView(await base());
  await view.checkpoint();
  await view.clearStorage(A);
  t.same(await view.getStorage(A, slot(1)), new Uint8Array(0), 'cleared');
  await view.checkpoint();
  await view.putStorage(A, slot(2), Uint8Array.from([5]));
  await view.commit();
  t.same(await view.getStorage(A, slot(1)), new Uint8Array(0), 'still cleared after a commit above it');
  t.same(await view.getStorage(A, slot(2)), Uint8Array.from([5]));
  await view.revert();
  t.same(await view.getStorage(A, slot(1)), Uint8Array.from([7]), 'revert restores the base slot');

  await view.checkpoint();
  await view.deleteAccount(A);
  t.equal(await view.getAccount(A), undefined);
  t.equal((await view.getCode(A)).length, 0, 'code gone with the account');
  t.same(await view.getStorage(A, slot(1)), new Uint8Array(0));
  await view.revert();
  t.equal((await view.getAccount(A))?.nonce, 1n, 'revert restores the account');
  t.same(await view.getCode(A), CODE);
});

t.test('accounts are copies; putCode sets the code hash', async (t) => {
  const view = new CallStateView(await base());
  const a = await view.getAccount(A);
  a!.balance = 1n;
  t.equal((await view.getAccount(A))?.balance, 100n, 'mutating a returned account changes nothing');
  const code = Uint8Array.from([0x00]);
  await view.putCode(B, code);
  t.same(await view.getCode(B), code);
  t.equal(await view.getCodeSize(B), 1);
  t.equal(bytesToHex((await view.getAccount(B))!.codeHash), bytesToHex(keccak256(code)));
  await view.modifyAccountFields(B, { balance: 9n });
  t.equal((await view.getAccount(B))?.balance, 9n);
  t.equal(bytesToHex((await view.getAccount(B))!.codeHash), bytesToHex(keccak256(code)), 'other fields kept');
});
