// The LRU behind the block, receipt and trie-node caches: by entries, or by bytes with a weigh
// function (trie nodes), evicting the least recently used first and keeping its total exact.

import t from 'tap';
import { Lru } from '../../../src/store/lru.js';
import { TRIE_NODE_OVERHEAD, TrieNodeStore } from '../../../src/state/trieNodeStore.js';
import type { Database } from '../../../src/store/database.js';
import type { Block, Receipt } from '../../../src/chain/types.js';

t.test('by entries: the oldest unused go first', async (t) => {
  const lru = new Lru<number, string>(64);
  for (let i = 0; i < 64; i++) lru.set(i, String(i));
  t.equal(lru.get(0), '0', 'a read makes 0 the newest');
  lru.set(64, '64');
  t.ok(lru.size <= 64, `size ${lru.size} within capacity`);
  t.equal(lru.get(0), '0', 'the read entry stayed');
  t.equal(lru.get(1), undefined, 'the least recently used went');
  t.equal(lru.weight, lru.size, 'weight counts entries');
});

t.test('by bytes: the total stays under capacity whatever the value sizes', async (t) => {
  const weigh = (_k: string, v: Uint8Array) => v.length;
  const lru = new Lru<string, Uint8Array>(10_000, weigh);
  for (let i = 0; i < 1000; i++) lru.set(`k${i}`, new Uint8Array(i % 3 === 0 ? 900 : 50));
  t.ok(lru.weight <= 10_000, `weight ${lru.weight} within 10,000 bytes`);
  const held = [...Array(1000).keys()].filter((i) => lru.get(`k${i}`) !== undefined);
  t.equal(held.length, lru.size);
  t.same(held.slice(-3), [997, 998, 999], 'the newest are kept');
  t.equal(lru.weight, held.reduce((sum, i) => sum + (i % 3 === 0 ? 900 : 50), 0), 'weight is the sum of what is held');

  lru.set('k999', new Uint8Array(10));
  t.equal(lru.weight, held.reduce((sum, i) => sum + (i === 999 ? 10 : i % 3 === 0 ? 900 : 50), 0), 'replacing a key replaces its weight');
  lru.delete('k999');
  lru.delete('missing');
  t.equal(lru.get('k999'), undefined);
  lru.clear();
  t.equal(lru.weight, 0);
  t.equal(lru.size, 0);

  lru.set('huge', new Uint8Array(50_000));
  t.equal(lru.size, 1, 'an entry over capacity alone is still kept until the next one');
  lru.set('small', new Uint8Array(5));
  t.equal(lru.get('huge'), undefined, 'then it goes');
  t.equal(lru.weight, 5);
});

t.test('a trie node store holds its byte budget, not a node count', async (t) => {
  let reads = 0;
  const stored = new Map<string, Uint8Array>();
  const db = { get: async (k: Uint8Array) => (reads++, stored.get(Buffer.from(k).toString('hex'))) } as unknown as Database;
  const budget = 64 * 1024;
  const store = new TrieNodeStore(db, budget);
  // 1000 full branch nodes (532 bytes): about 900 KB with their objects, far over the budget
  for (let i = 0; i < 1000; i++) await store.put(i.toString(16).padStart(64, '0'), new Uint8Array(532).fill(i & 255));
  store.drainWrites();
  const perNode = TRIE_NODE_OVERHEAD + 64 + 532;
  const newest = (999).toString(16).padStart(64, '0');
  t.same(await store.get(newest), new Uint8Array(532).fill(999 & 255), 'the newest node is served from the cache');
  t.equal(reads, 0, 'without a database read');
  t.equal(await store.get('0'.repeat(64)), undefined, 'the oldest was evicted (and the stub database lacks it)');
  t.equal(reads, 1, 'so it was looked up');
  let cached = 0;
  for (let i = 999; i >= 0; i--) if (await store.get(i.toString(16).padStart(64, '0'))) cached++;
  t.ok(cached <= Math.floor(budget / perNode) + 1 && cached >= Math.floor((budget * 0.9) / perNode), `${cached} nodes cached for a ${budget}-byte budget`);
});

t.test('the block and receipt caches are bounded by bytes, so full blocks cannot pile up', async (t) => {
  const { BLOCK_CACHE_BYTES, RECEIPT_CACHE_BYTES, blockWeight, receiptsWeight } = await import('../../../src/blockchain/cacheWeights.js');
  const tx = { raw: new Uint8Array(150) };
  const block = (txs: number) => ({ header: { extraData: new Uint8Array(32) }, transactions: Array(txs).fill(tx) }) as unknown as Block;
  t.ok(blockWeight('', block(200)) > 100 * blockWeight('', block(0)), 'a full block weighs as its transactions do');

  const blocks = new Lru<string, Block>(BLOCK_CACHE_BYTES, blockWeight);
  for (let i = 0; i < 2048; i++) blocks.set(String(i), block(200));
  t.ok(blocks.weight <= BLOCK_CACHE_BYTES, `${blocks.size} blocks of 200 transactions: ${blocks.weight} bytes`);
  t.ok(blocks.size < 100, 'far fewer than 2048 full blocks');
  for (let i = 0; i < 2048; i++) blocks.set(`e${i}`, block(1));
  // as many small blocks as the budget holds (it evicts no more than it must), well over a deep reorganisation's 100
  const fits = Math.floor((0.9 * BLOCK_CACHE_BYTES) / blockWeight('', block(1)));
  t.ok(blocks.size >= fits && blocks.size >= 256, `${blocks.size} one-transaction blocks still fit (budget: ${fits})`);

  const log = { address: new Uint8Array(20), topics: [new Uint8Array(32), new Uint8Array(32)], data: new Uint8Array(64) };
  const receipts = (n: number) => Array.from({ length: n }, () => ({ logs: [log, log] })) as unknown as Receipt[];
  const lists = new Lru<string, Receipt[]>(RECEIPT_CACHE_BYTES, receiptsWeight);
  for (let i = 0; i < 2048; i++) lists.set(String(i), receipts(200));
  t.ok(lists.weight <= RECEIPT_CACHE_BYTES && lists.size < 50, `${lists.size} lists of 200 receipts: ${lists.weight} bytes`);
});
