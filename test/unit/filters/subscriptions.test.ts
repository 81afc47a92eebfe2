// SubscriptionHub at the event level: which events reach which subscription, `removed: true`
// logs on the chain's 'rewound' event (newest block first), a failing subscriber; and the
// polled log filters' removed entries on the same event.

import t from 'tap';
import { SubscriptionHub, type SubscriptionEvent } from '../../../src/filters/subscriptions.js';
import { bigintToFixed } from '../../../src/encoding/bytes.js';
import type { SignedTx } from '../../../src/chain/types.js';
import { FakeEvents, makeBlock } from '../../rpc/transport/wsFixture.js';
import { FilterSystem } from '../../../src/filters/filterSystem.js';
import { FakeChain, FakePool } from '../../rpc/filters/fakeChain.js';

const A = bigintToFixed(0xaan, 20);
const B = bigintToFixed(0xbbn, 20);
const T1 = bigintToFixed(1n, 32);

t.test('kinds, log criteria, rewound, unsubscribe', async (t) => {
  const events = new FakeEvents();
  const hub = new SubscriptionHub({ chain: events, rewinds: events, pool: events });
  const got: Record<string, SubscriptionEvent[]> = { heads: [], logsA: [], all: [], pending: [] };
  const heads = hub.subscribe({ kind: 'newHeads' }, (e) => got.heads.push(e));
  hub.subscribe({ kind: 'logs', criteria: { addresses: [A], topics: [[T1]] } }, (e) => got.logsA.push(e));
  hub.subscribe({ kind: 'logs', criteria: { addresses: [], topics: [] } }, (e) => got.all.push(e));
  hub.subscribe({ kind: 'newPendingTransactions', full: true }, (e) => got.pending.push(e));

  const b1 = makeBlock(1n, [[{ address: A, topics: [T1], data: Uint8Array.of(1) }], [{ address: B, topics: [T1], data: Uint8Array.of(2) }]]);
  const b2 = makeBlock(2n, [[{ address: A, topics: [T1], data: Uint8Array.of(3) }]]);
  events.emit('newHead', b1);
  events.emit('newHead', b2);
  t.same(got.heads.map((e) => (e.kind === 'newHeads' ? e.block.header.number : -1n)), [1n, 2n]);
  const summary = (list: SubscriptionEvent[]) => list.map((e) => (e.kind === 'logs' ? [e.entry.log.data[0], e.removed, e.entry.at?.logIndex] : null));
  t.same(summary(got.logsA), [[1, false, 0], [3, false, 0]]);
  t.same(summary(got.all), [[1, false, 0], [2, false, 1], [3, false, 0]]);

  // a reorg takes b2 and b1 off (newest first): their logs come again, removed
  events.emit('rewound', { removed: [b2, b1] });
  t.same(summary(got.logsA).slice(2), [[3, true, 0], [1, true, 0]]);
  t.same(summary(got.all).slice(3), [[3, true, 0], [1, true, 0], [2, true, 1]]);
  t.equal(got.heads.length, 2, 'newHeads hears nothing of a rewind');

  const tx = { hash: bigintToFixed(5n, 32) } as SignedTx;
  events.emit('pendingTx', tx);
  t.same(got.pending, [{ kind: 'newPendingTransactions', tx, full: true }]);

  t.equal(hub.unsubscribe(heads), true);
  t.equal(hub.unsubscribe(heads), false);
  events.emit('newHead', makeBlock(3n));
  t.equal(got.heads.length, 2);
  t.equal(hub.size, 3);
  hub.stop();
  t.equal(events.listenerCount('newHead') + events.listenerCount('rewound') + events.listenerCount('pendingTx'), 0, 'stop removes its listeners');
});

t.test('a throwing subscriber is dropped; the others still get the event', async (t) => {
  const events = new FakeEvents();
  const hub = new SubscriptionHub({ chain: events, pool: events });
  hub.subscribe({ kind: 'newHeads' }, () => {
    throw new Error('gone');
  });
  let seen = 0;
  hub.subscribe({ kind: 'newHeads' }, () => seen++);
  events.emit('newHead', makeBlock(1n));
  events.emit('newHead', makeBlock(2n));
  t.equal(seen, 2);
  t.equal(hub.size, 1);
});

t.test('polled log filters report the logs of rewound blocks as removed', async (t) => {
  const chain = new FakeChain();
  const events = new FakeEvents();
  const filters = new FilterSystem({ chain, rewinds: events, pool: new FakePool(), pending: { get: async () => chain.pendingBlock } }, { timeoutSeconds: 300 });
  t.teardown(() => filters.stop());
  const logId = filters.newLogFilter({ fromBlock: 'latest', toBlock: 'latest', criteria: { addresses: [A], topics: [] } });
  const blockId = filters.newBlockFilter();
  const mined = chain.append([[{ address: A, topics: [T1], data: Uint8Array.of(7) }]]);
  const first = await filters.changes(logId);
  t.same(first.kind === 'logs' && first.logs.map((e) => [e.log.data[0], e.removed ?? false]), [[7, false]]);
  events.emit('rewound', { removed: [{ block: mined, receipts: chain.receipts.get(mined)! }] });
  const second = await filters.changes(logId);
  t.same(second.kind === 'logs' && second.logs.map((e) => [e.log.data[0], e.removed, e.at?.blockNumber]), [[7, true, 1n]]);
  const hashes = await filters.changes(blockId);
  t.equal(hashes.kind === 'hashes' && hashes.hashes.length, 1, 'block filters list new blocks only');
});
