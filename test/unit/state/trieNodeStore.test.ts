// Scratch node stores (the pending block, traces, work packages) keep their writes apart and read
// through the chain's store, so a node they read is cached once, in the chain's cache.

import t from 'tap';
import { Database } from '../../../src/store/database.js';
import { keys } from '../../../src/store/schema.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { TrieNodeStore } from '../../../src/state/trieNodeStore.js';
import { testDir } from '../../helpers/testDir.js';

const key = (i: number) => i.toString(16).padStart(64, '0');
const node = (i: number) => new Uint8Array(40).fill(i);
/** hex of a read (the database hands back Buffers) */
const hex = (v: string | Uint8Array | undefined) => (v === undefined ? undefined : Buffer.from(v as Uint8Array).toString('hex'));

t.test('a scratch store over the chain store', async (t) => {
  const db = await Database.open(testDir(t));
  t.teardown(() => db.close());
  const chain = new TrieNodeStore(db);
  // node 1 is stored, node 2 is only in the chain store's collected writes
  await db.put(keys.trieNode(hexToBytes(key(1))), node(1));
  await chain.put(key(2), node(2));

  const scratch = TrieNodeStore.scratchOver(chain);
  t.equal(hex(await scratch.get(key(1))), hex(node(1)), 'reads a stored node');
  t.equal(hex(await scratch.get(key(2))), hex(node(2)), 'reads a node the chain store collected (content-addressed: the same bytes)');
  await db.del(keys.trieNode(hexToBytes(key(1))));
  t.equal(hex(await chain.get(key(1))), hex(node(1)), 'the node it read is now in the chain store\'s cache');

  await scratch.put(key(3), node(3));
  t.equal(hex(await scratch.get(key(3))), hex(node(3)), 'its own writes are visible to it');
  t.equal(await chain.get(key(3)), undefined, 'and to nobody else');
  scratch.discardWrites();
  t.equal(await scratch.get(key(3)), undefined, 'discarded with its writes');

  await scratch.put(key(4), node(4));
  const ops = scratch.drainWrites();
  t.same(ops, [{ type: 'put', key: keys.trieNode(hexToBytes(key(4))), value: node(4) }], 'a committed scratch block hands its writes to the batch');
  t.equal(hex(await chain.get(key(4))), hex(node(4)), 'and they stay hot in the chain store\'s cache');
  t.same(chain.drainWrites().map((op) => op.type === 'put' && op.value), [node(2)], 'the chain store\'s own writes are untouched');
});
