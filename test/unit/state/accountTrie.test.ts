// AccountTrie against the library's trie: random puts, deletes, checkpoints and reverts give the
// same roots and reads; every node a root references is stored (the library reads our tries,
// we read the library's); a MerkleStateManager over either trie reaches the same state roots.

import path from 'node:path';
import t, { type Test } from 'tap';
import { createMPT, type MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Account, Address, ValueEncoding } from '@ethereumjs/util';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Common, Mainnet } from '@ethereumjs/common';
import { AccountTrie } from '../../../src/state/accountTrie.js';
import { TrieNodeStore } from '../../../src/state/trieNodeStore.js';
import { Database } from '../../../src/store/database.js';
import { keccak256 } from '../../../src/encoding/bytes.js';
import { bytesToHex } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

/** A deterministic generator (xorshift32), so a failure can be replayed from its seed. */
function random(seed: number) {
  let x = seed || 1;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  return {
    int: (n: number) => Math.floor(next() * n),
    bytes: (n: number) => Uint8Array.from({ length: n }, () => Math.floor(next() * 256)),
  };
}

const libraryTrie = (nodes: TrieNodeStore, root?: Uint8Array, useKeyHashing = true) =>
  createMPT({ db: nodes, root, useKeyHashing, useKeyHashingFunction: keccak256, valueEncoding: ValueEncoding.Bytes });

async function store(t: Test, name: string): Promise<TrieNodeStore> {
  const db = await Database.open(path.join(testDir(t), name));
  t.teardown(() => db.close());
  return new TrieNodeStore(db);
}

const hex = (b: Uint8Array | null | undefined) => (b ? bytesToHex(b) : String(b));

t.test('random puts, deletes, checkpoints and reverts: the roots and reads of the same content built by the library', async (t) => {
  // Hashed keys as in the state trie; raw short keys (some prefixes of others) for short paths,
  // branch values and embedded nodes. The reference is the library's trie built afresh from the
  // content (its incremental deletes go wrong with such keys: an absent or empty key changes it).
  const fresh = async (content: Map<string, [Uint8Array, Uint8Array]>, hashKeys: boolean) => {
    const trie = await libraryTrie(await store(t, `fresh-${Math.random()}`), undefined, hashKeys);
    for (const [k, v] of content.values()) await trie.put(k, v);
    return hex(trie.root());
  };
  for (const [seed, hashKeys] of [[1, true], [7, true], [42, true], [3, false], [11, false], [1234, false]] as const) {
    const rnd = random(seed);
    const nodes = await store(t, `ours-${seed}`);
    const ours = new AccountTrie(nodes, undefined, hashKeys);
    // Few keys, so that updates and deletes hit present keys; short values make embedded nodes.
    const keys = Array.from({ length: 40 }, () => (hashKeys ? rnd.bytes(20) : rnd.bytes(1 + rnd.int(3)).map((b) => b & 0x13)));
    let content = new Map<string, [Uint8Array, Uint8Array]>();
    const saved: (typeof content)[] = [];
    let mismatches = 0;
    for (let step = 0; step < 400; step++) {
      const key = keys[rnd.int(keys.length)];
      const op = rnd.int(10);
      if (op < 6) {
        const value = rnd.bytes(1 + rnd.int(rnd.int(2) ? 8 : 90));
        await ours.put(key, value);
        content.set(hex(key), [key, value]);
      } else if (op < 8) {
        await ours.del(key);
        content.delete(hex(key));
      } else if (op === 8 && saved.length < 3) {
        ours.checkpoint();
        saved.push(new Map(content));
      } else if (saved.length > 0) {
        const before = saved.pop()!;
        if (rnd.int(2)) {
          await ours.commit();
        } else {
          await ours.revert();
          content = before;
        }
      }
      if (step % 9 === 0 && hex(ours.root()) !== (await fresh(content, hashKeys))) mismatches++;
      const probe = keys[rnd.int(keys.length)];
      if (hex(await ours.get(probe)) !== hex(content.get(hex(probe))?.[1] ?? null)) mismatches++;
    }
    t.equal(mismatches, 0, `seed ${seed}: no root or read differs`);
    t.equal(hex(ours.root()), await fresh(content, hashKeys), `seed ${seed}: final root`);
    // What the root references is stored: both implementations read it back from the store alone.
    const reopened = new AccountTrie(nodes, ours.root(), hashKeys);
    const library = await libraryTrie(nodes, ours.root(), hashKeys);
    let unread = 0;
    for (const key of keys) {
      const want = hex(content.get(hex(key))?.[1] ?? null);
      if (hex(await reopened.get(key)) !== want || hex(await library.get(key)) !== want) unread++;
    }
    t.equal(unread, 0, `seed ${seed}: read back from the store`);
  }
});

t.test('with state-trie keys the library\'s own incremental trie agrees step by step', async (t) => {
  const rnd = random(77);
  const ours = new AccountTrie(await store(t, 'ours'));
  const theirs = await libraryTrie(await store(t, 'theirs'));
  const keys = Array.from({ length: 30 }, () => rnd.bytes(20));
  let mismatches = 0;
  for (let step = 0; step < 300; step++) {
    const key = keys[rnd.int(keys.length)];
    if (rnd.int(4)) {
      const value = rnd.bytes(1 + rnd.int(90));
      await ours.put(key, value);
      await theirs.put(key, value);
    } else {
      await ours.del(key);
      await theirs.del(key);
    }
    if (hex(ours.root()) !== hex(theirs.root())) mismatches++;
  }
  t.equal(mismatches, 0);
});

t.test('every node a root references is stored: each trie reads the other\'s', async (t) => {
  const rnd = random(99);
  const oursStore = await store(t, 'ours');
  const theirsStore = await store(t, 'theirs');
  const ours = new AccountTrie(oursStore);
  const theirs = await libraryTrie(theirsStore);
  const entries = Array.from({ length: 300 }, () => [rnd.bytes(20), rnd.bytes(1 + rnd.int(80))] as const);
  for (const [k, v] of entries) {
    await ours.put(k, v);
    await theirs.put(k, v);
    if (rnd.int(20) === 0) ours.root(); // roots along the way, as blocks take them
  }
  for (const [k] of entries.slice(0, 100)) {
    await ours.del(k);
    await theirs.del(k);
  }
  const root = ours.root();
  t.equal(hex(root), hex(theirs.root()));
  const libraryOnOurs: MerklePatriciaTrie = await libraryTrie(oursStore, root);
  const oursOnLibrary = new AccountTrie(theirsStore, root);
  let wrong = 0;
  for (const [k, v] of entries) {
    const want = entries.slice(0, 100).some(([d]) => d === k) ? 'null' : hex(v);
    if (hex(await libraryOnOurs.get(k)) !== want) wrong++;
    if (hex(await oursOnLibrary.get(k)) !== want) wrong++;
  }
  t.equal(wrong, 0, 'all 300 keys read back through the other implementation');
  t.ok(await ours.checkRoot(root));
  t.notOk(await ours.checkRoot(keccak256(Uint8Array.of(1))));
});

t.test('scratch stores share their base store\'s decoded nodes; their writes stay their own', async (t) => {
  const rnd = random(5);
  const base = await store(t, 'base');
  const library = await libraryTrie(base); // content written without our decoded cache
  const entries = Array.from({ length: 200 }, () => [rnd.bytes(20), rnd.bytes(1 + rnd.int(40))] as const);
  for (const [k, v] of entries) await library.put(k, v);
  const root = library.root();
  let reads = 0;
  const read = base.get.bind(base);
  base.get = (key) => (reads++, read(key));
  const readAll = async (trie: AccountTrie) => {
    let wrong = 0;
    for (const [k, v] of entries) if (hex(await trie.get(k)) !== hex(v)) wrong++;
    return wrong;
  };

  t.equal(await readAll(new AccountTrie(TrieNodeStore.scratchOver(base), root)), 0, 'a first scratch store reads every key');
  const first = reads;
  t.ok(first > 200, `it read the nodes from the base store (${first} reads)`);
  t.equal(await readAll(new AccountTrie(TrieNodeStore.scratchOver(base), root)), 0, 'a second scratch store reads every key');
  t.equal(reads, first, 'without reading a node again: the decoded nodes are shared');
  t.equal(await readAll(new AccountTrie(base, root)), 0);
  t.equal(reads, first, 'the base store\'s own tries share them too');

  const scratch = TrieNodeStore.scratchOver(base);
  const writer = new AccountTrie(scratch, root);
  await writer.put(rnd.bytes(20), Uint8Array.of(7));
  const written = writer.root();
  t.ok(await scratch.get(bytesToHex(written).slice(2)), 'the new root node is in the scratch store');
  t.equal(await read(bytesToHex(written).slice(2)), undefined, 'and not in its base');
});

t.test('empty trie, one key, and deleting down to empty', async (t) => {
  const ours = new AccountTrie(await store(t, 'ours'));
  const theirs = await libraryTrie(await store(t, 'theirs'));
  t.equal(hex(ours.root()), hex(theirs.root()), 'empty root');
  t.ok(await ours.checkRoot(ours.EMPTY_TRIE_ROOT));
  const key = Uint8Array.of(1, 2, 3);
  await ours.put(key, Uint8Array.of(5)); // a root shorter than 32 bytes is stored too
  await theirs.put(key, Uint8Array.of(5));
  t.equal(hex(ours.root()), hex(theirs.root()));
  t.ok(await ours.checkRoot(ours.root()));
  await ours.put(key, new Uint8Array(0)); // an empty value deletes
  t.equal(hex(ours.root()), hex(ours.EMPTY_TRIE_ROOT));
  t.equal(await ours.get(key), null);
  await ours.del(key); // absent: nothing changes
  t.equal(hex(ours.root()), hex(ours.EMPTY_TRIE_ROOT));
  t.throws(() => ours.root(new Uint8Array(31)), /32 bytes/);
  await t.rejects(ours.commit(), /not checkpointed/);
});

t.test('a state manager over AccountTrie reaches the library\'s state roots (accounts, code, storage, deletes)', async (t) => {
  const common = new Common({ chain: Mainnet, hardfork: 'petersburg' });
  const make = async (trie: unknown) => new MerkleStateManager({ trie: trie as MerklePatriciaTrie, common });
  const ours = await make(new AccountTrie(await store(t, 'ours')));
  const theirs = await make(await libraryTrie(await store(t, 'theirs')));
  const rnd = random(5);
  const addresses = Array.from({ length: 12 }, () => new Address(rnd.bytes(20)));
  for (const sm of [ours, theirs]) {
    const r = random(5);
    for (let block = 0; block < 20; block++) {
      await sm.checkpoint();
      for (let i = 0; i < 6; i++) {
        const address = addresses[r.int(addresses.length)];
        const account = (await sm.getAccount(address)) ?? new Account();
        account.nonce += 1n;
        account.balance += BigInt(r.int(1e9));
        await sm.putAccount(address, account);
        if (r.int(4) === 0) await sm.putStorage(address, r.bytes(32), r.bytes(1 + r.int(32)));
        if (r.int(8) === 0) await sm.putCode(address, r.bytes(10 + r.int(50)));
      }
      if (r.int(3) === 0) await sm.deleteAccount(addresses[r.int(addresses.length)]);
      await sm.commit();
    }
  }
  t.equal(hex(await ours.getStateRoot()), hex(await theirs.getStateRoot()));
  for (const address of addresses) {
    const [a, b] = [await ours.getAccount(address), await theirs.getAccount(address)];
    t.equal(a && hex(a.serialize()), b && hex(b.serialize()), `account ${address}`);
  }
});
