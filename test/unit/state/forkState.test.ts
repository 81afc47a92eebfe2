// A fork's state (src/state/forkTrie.ts, forkStateManager.ts): reads fall through the local trie to
// the base state; local writes, zeroed slots, deleted accounts and wiped storage shadow the base at
// every later root; checkpoints move the marks; the same operations on the same base give the same
// roots, and another base another root.

import path from 'node:path';
import t, { type Test } from 'tap';
import { Account, Address, KECCAK256_NULL } from '@ethereumjs/util';
import { Common, Mainnet } from '@ethereumjs/common';
import { TrieNodeStore } from '../../../src/state/trieNodeStore.js';
import { Database } from '../../../src/store/database.js';
import { bytesToBigint, equalBytes, keccak256 } from '../../../src/encoding/bytes.js';
import { bytesToHex } from '../../../src/encoding/hex.js';
import type { BaseAccountFields, BaseState } from '../../../src/state/baseState.js';
import { forkBaseRoot } from '../../../src/state/forkTrie.js';
import { forkStateManager } from '../../../src/state/forkStateManager.js';
import { testDir } from '../../helpers/testDir.js';

const A = new Address(new Uint8Array(20).fill(0xaa));
const B = new Address(new Uint8Array(20).fill(0xbb));
const C = new Address(new Uint8Array(20).fill(0xcc));
const CODE = Uint8Array.from([0x60, 0x2a, 0x60, 0x00, 0x55, 0x00]);
const slot = (n: number) => {
  const k = new Uint8Array(32);
  k[31] = n;
  return k;
};
const word = (v: Uint8Array) => bytesToBigint(v);

/** An upstream in memory that counts what it is asked. */
class MemoryBase implements BaseState {
  reads = { account: 0, storage: 0, code: 0 };
  accounts = new Map<string, BaseAccountFields>();
  slots = new Map<string, bigint>();
  codes = new Map<string, Uint8Array>();
  constructor() {
    this.accounts.set(bytesToHex(A.bytes), { nonce: 3n, balance: 1000n, codeHash: keccak256(CODE) });
    this.codes.set(bytesToHex(keccak256(CODE)), CODE);
    for (const [n, v] of [[1, 7n], [2, 5n], [3, 11n]] as const) this.slots.set(bytesToHex(A.bytes) + bytesToHex(slot(n)), v);
    this.accounts.set(bytesToHex(B.bytes), { nonce: 0n, balance: 50n, codeHash: KECCAK256_NULL });
  }
  async account(address: Uint8Array) {
    this.reads.account++;
    return this.accounts.get(bytesToHex(address));
  }
  async storage(address: Uint8Array, key: Uint8Array) {
    this.reads.storage++;
    return this.slots.get(bytesToHex(address) + bytesToHex(key)) ?? 0n;
  }
  async code(hash: Uint8Array) {
    this.reads.code++;
    return this.codes.get(bytesToHex(hash));
  }
}

const common = new Common({ chain: Mainnet, hardfork: 'petersburg' });

let dbs = 0;
async function setup(t: Test) {
  const db = await Database.open(path.join(testDir(t), `db${dbs++}`));
  t.teardown(() => db.close());
  const nodes = new TrieNodeStore(db);
  const base = new MemoryBase();
  const start = await forkBaseRoot(nodes, new Uint8Array(32).fill(1));
  const at = (root: Uint8Array) => forkStateManager({ local: root, base }, nodes, common);
  return { nodes, base, start, at };
}

t.test('reads fall through to the base; writes shadow it at later roots', async (t) => {
  const { base, start, at } = await setup(t);
  const sm = at(start);
  const a = await sm.getAccount(A);
  t.equal(a?.balance, 1000n, 'base balance');
  t.equal(a?.nonce, 3n, 'base nonce');
  t.same(await sm.getCode(A), CODE, 'base code, by its hash');
  t.equal(word(await sm.getStorage(A, slot(1))), 7n, 'base slot');
  t.equal(await sm.getAccount(C), undefined, 'an account the base lacks');

  a!.balance = 900n;
  await sm.putAccount(A, a!);
  await sm.putStorage(A, slot(1), Uint8Array.of(9));
  await sm.putStorage(A, slot(2), new Uint8Array(0)); // zero: the base's 5 must not come back
  const r1 = await sm.getStateRoot();

  const again = at(r1);
  t.equal((await again.getAccount(A))?.balance, 900n, 'local balance');
  t.equal(word(await again.getStorage(A, slot(1))), 9n, 'local slot');
  t.equal(word(await again.getStorage(A, slot(2))), 0n, 'a zeroed slot stays zero');
  t.equal(word(await again.getStorage(A, slot(3))), 11n, 'an untouched slot still reads the base');
  t.same(await again.getCode(A), CODE, 'code of a base account after a local write');
  t.equal((await again.getAccount(B))?.balance, 50n, 'an untouched account reads the base');
  t.ok(base.reads.account > 0 && base.reads.storage > 0, 'the base was read');
});

t.test('a deleted account and wiped storage never come back from the base', async (t) => {
  const { start, at } = await setup(t);
  const sm = at(start);
  await sm.getAccount(A);
  await sm.deleteAccount(A); // SELFDESTRUCT, or EIP-161's removal of a touched empty account
  await sm.deleteAccount(B);
  const deleted = await sm.getStateRoot();

  const later = at(deleted);
  t.equal(await later.getAccount(A), undefined, 'deleted account reads as absent');
  t.equal(await later.getAccount(B), undefined, 'deleted empty account reads as absent');
  t.equal(word(await later.getStorage(A, slot(3))), 0n, 'no storage for a deleted account');
  t.same(await later.getCode(A), new Uint8Array(0), 'no code for a deleted account');

  // Created again at the address (CREATE2 after a self-destruct): fresh, empty storage.
  await later.putAccount(A, new Account(1n, 1n));
  await later.clearStorage(A);
  await later.putStorage(A, slot(1), Uint8Array.of(4));
  const recreated = await later.getStateRoot();
  const last = at(recreated);
  t.equal((await last.getAccount(A))?.balance, 1n, 'recreated account');
  t.equal(word(await last.getStorage(A, slot(1))), 4n, 'its own slot');
  t.equal(word(await last.getStorage(A, slot(3))), 0n, 'the base slot does not show through a recreated account');

  // A later plain write to the recreated account keeps it detached.
  const acc = await last.getAccount(A);
  acc!.balance = 2n;
  await last.putAccount(A, acc!);
  const after = at(await last.getStateRoot());
  t.equal(word(await after.getStorage(A, slot(2))), 0n, 'still detached after an ordinary write');
});

t.test('storage wiped inside a checkpoint comes back with the revert', async (t) => {
  const { start, at } = await setup(t);
  const sm = at(start);
  await sm.getAccount(A);
  await sm.checkpoint();
  await sm.checkpoint();
  await sm.clearStorage(A);
  t.equal(word(await sm.getStorage(A, slot(3))), 0n, 'wiped inside the checkpoint');
  await sm.revert();
  t.equal(word(await sm.getStorage(A, slot(3))), 11n, 'the base slot again after the revert');
  await sm.checkpoint();
  await sm.clearStorage(A);
  await sm.commit();
  t.equal(word(await sm.getStorage(A, slot(3))), 0n, 'a committed wipe holds at the outer level');
  await sm.commit();
  const root = await sm.getStateRoot();
  t.equal(word(await at(root).getStorage(A, slot(3))), 0n, 'and is in the root once written');
});

t.test('roots: the same writes on the same base agree; another base starts elsewhere', async (t) => {
  const run = async (t: Test) => {
    const { start, at } = await setup(t);
    const sm = at(start);
    const a = (await sm.getAccount(A))!;
    a.nonce += 1n;
    await sm.putAccount(A, a);
    await sm.putStorage(A, slot(2), new Uint8Array(0));
    await sm.deleteAccount(B);
    await sm.putAccount(C, new Account(0n, 5n));
    return { start, root: await sm.getStateRoot() };
  };
  const one = await run(t);
  const two = await run(t);
  t.ok(equalBytes(one.root, two.root), 'same root');
  t.notOk(equalBytes(one.root, one.start), 'the writes moved the root');
  const db = await Database.open(path.join(testDir(t), 'other'));
  t.teardown(() => db.close());
  const other = await forkBaseRoot(new TrieNodeStore(db), new Uint8Array(32).fill(2));
  t.notOk(equalBytes(other, one.start), 'a fork of another block starts from another root');
});
