// FilterSystem and the log query in-process, on a synthetic chain: matching rules, the bloom
// pre-check, ranges and every limit (chains longer than 10,000 blocks are cheap here), buffering
// bounds, expiry on a controlled clock, pending logs.

import t, { type Test } from 'tap';
import type { Log } from '../../../src/chain/types.js';
import { NodeError } from '../../../src/errors.js';
import { FilterSystem, DEFAULT_MAX_BUFFERED, DEFAULT_MAX_FILTERS } from '../../../src/filters/filterSystem.js';
import {
  DEFAULT_LOG_LIMITS, bloomMayMatch, matchesLog, queryLogs, resolveRange, type LogCriteria, type LogQuery,
} from '../../../src/filters/logQuery.js';
import { logsBloom } from '../../../src/chain/block.js';
import { blockBlooms } from '../../../src/filters/blockBlooms.js';
import { FakeChain, FakePool, addr, word } from './fakeChain.js';

const A = word(0xa);
const B = word(0xb);
const C = word(0xc);
const log = (address: Uint8Array, ...topics: Uint8Array[]): Log => ({ address, topics, data: new Uint8Array([1, 2]) });
const crit = (topics: (Uint8Array[] | null)[], addresses: Uint8Array[] = []): LogCriteria => ({ addresses, topics });
const query = (c: LogCriteria, fromBlock: LogQuery['fromBlock'] = 'earliest', toBlock: LogQuery['toBlock'] = 'latest'): LogQuery => ({
  fromBlock, toBlock, criteria: c,
});

async function rejectsWith(t: Test, p: Promise<unknown> | (() => unknown), kind: string, message: string | RegExp) {
  try {
    await (typeof p === 'function' ? p() : p);
    t.fail(`expected ${kind} error`);
  } catch (err) {
    t.ok(err instanceof NodeError, 'a NodeError');
    t.equal((err as NodeError).kind, kind);
    t.match((err as NodeError).message, message);
  }
}

function setup(opts: { now?: () => number; timeoutSeconds?: number; maxBuffered?: number } = {}) {
  const chain = new FakeChain();
  const pool = new FakePool();
  const filters = new FilterSystem({ chain, pool, pending: { get: async () => chain.pendingBlock } }, { timeoutSeconds: 300, ...opts });
  return { chain, pool, filters };
}

t.test('topic and address matching follows the positional order rules (README "Filters and logs")', async (t) => {
  const l = log(addr(1), A, B);
  t.ok(matchesLog(l, crit([])), '[] matches anything');
  t.ok(matchesLog(l, crit([[A]])), '[A] matches A first');
  t.notOk(matchesLog(l, crit([[B]])), '[B] does not match A first');
  t.ok(matchesLog(l, crit([null, [B]])), '[null, B]');
  t.notOk(matchesLog(l, crit([null, [A]])), '[null, A] does not match');
  t.ok(matchesLog(l, crit([[A, B], [A, B]])), '[[A,B],[A,B]]');
  t.ok(matchesLog(log(addr(1), B, A), crit([[A, B], [A, B]])), '[[A,B],[A,B]] either order');
  t.notOk(matchesLog(log(addr(1), A, C), crit([[A, B], [A, B]])), 'C second fails');
  t.ok(matchesLog(l, crit([[], [B]])), 'an empty OR list matches anything');
  t.notOk(matchesLog(log(addr(1), A), crit([[A], null])), 'more positions than topics never match (geth)');
  t.ok(matchesLog(l, crit([], [addr(2), addr(1)])), 'address list');
  t.notOk(matchesLog(l, crit([], [addr(2), addr(3)])), 'address not listed');
  const bloom = logsBloom([l]);
  t.ok(bloomMayMatch(bloom, crit([[A], [C, B]], [addr(1)])));
  t.notOk(bloomMayMatch(bloom, crit([[C]])));
  t.notOk(bloomMayMatch(bloom, crit([], [addr(9)])));
});

t.test('ranges: tags, order, clamping, the block-range limit', async (t) => {
  const L = DEFAULT_LOG_LIMITS;
  t.same(resolveRange('earliest', 'latest', 50n, L), { from: 0n, to: 50n, pending: false });
  t.same(resolveRange(3n, 0xffffffffn, 50n, L), { from: 3n, to: 50n, pending: false }, 'toBlock clamped to the head');
  t.same(resolveRange('latest', 'pending', 50n, L), { from: 50n, to: 50n, pending: true });
  t.same(resolveRange('pending', 'pending', 50n, L), { from: 51n, to: 50n, pending: true });
  await rejectsWith(t, () => resolveRange(5n, 4n, 50n, L), 'invalidRange', 'invalid block range: fromBlock > toBlock');
  await rejectsWith(t, () => resolveRange('pending', 'latest', 50n, L), 'invalidRange', 'invalid block range');
  await rejectsWith(t, () => resolveRange('latest', 49n, 50n, L), 'invalidRange', 'invalid block range');
  await rejectsWith(t, () => resolveRange(60n, 'earliest', 50n, L), 'invalidRange', 'invalid block range');
  t.same(resolveRange(60n, 'latest', 50n, L), { from: 60n, to: 50n, pending: false }, 'a start past the head with an open end is empty');
  t.same(resolveRange(60n, 'pending', 50n, L), { from: 60n, to: 50n, pending: false });
  t.same(resolveRange(51n, 'pending', 50n, L), { from: 51n, to: 50n, pending: true }, 'the pending block is head + 1');
  t.same(resolveRange(0n, 9_999n, 20_000n, L), { from: 0n, to: 9_999n, pending: false }, '10,000 blocks are allowed');
  await rejectsWith(t, () => resolveRange(0n, 10_000n, 20_000n, L), 'limitExceeded', 'limit exceeded: block range');
  await rejectsWith(t, () => resolveRange('earliest', 'latest', 10_000n, L), 'limitExceeded', 'limit exceeded: block range');
  t.same(resolveRange(0n, 0xffffffn, 9_999n, L), { from: 0n, to: 9_999n, pending: false }, 'counted after clamping');
  t.same(resolveRange(10_001n, 0xffffffn, 20_000n, L).to, 20_000n);
});

t.test('getLogs over many blocks reads receipts only where the bloom allows', async (t) => {
  const { chain, filters } = setup();
  for (let i = 1; i <= 300; i++) chain.append([[log(addr(i % 3), A, word(i))], [log(addr(7), B)]]);
  chain.receiptReads = 0;
  const hits = await filters.getLogs(query(crit([[A], [word(150), word(151)]])));
  t.same(hits.map((h) => h.at!.blockNumber), [150n, 151n]);
  t.same(hits.map((h) => [h.at!.index, h.at!.logIndex]), [[0, 0], [0, 0]]);
  t.same(hits[0].at!.txHash, chain.blocks[150].transactions[0].hash);
  t.same(hits[0].at!.blockHash, chain.blocks[150].hash);
  t.ok(chain.receiptReads < 10, `bloom skipped most blocks (${chain.receiptReads} receipt reads)`);
  const second = await filters.getLogs(query(crit([[B]]), 10n, 12n));
  t.same(second.map((h) => [h.at!.blockNumber, h.at!.index, h.at!.logIndex]), [[10n, 1, 1], [11n, 1, 1], [12n, 1, 1]]);
  const byAddress = await filters.getLogs(query(crit([], [addr(0), addr(1)]), 1n, 6n));
  t.same(byAddress.map((h) => h.at!.blockNumber), [1n, 3n, 4n, 6n]);
  const byHash = await filters.getLogs({ ...query(crit([])), blockHash: chain.blocks[5].hash });
  t.equal(byHash.length, 2);
  await rejectsWith(t, filters.getLogs({ ...query(crit([])), blockHash: word(12345) }), 'notFound', 'unknown block');
  filters.stop();
});

t.test('limits: topics, logs per answer, installed filters, block range on a long chain', async (t) => {
  const { chain, filters } = setup();
  await rejectsWith(t, filters.getLogs(query(crit([null, null, null, null, null]))), 'limitExceeded', 'limit exceeded: topics');
  await rejectsWith(t, () => filters.newLogFilter(query(crit([null, null, null, null, null]))), 'limitExceeded', 'limit exceeded: topics');
  t.same(await filters.getLogs(query(crit([null, null, null, null]))), [], 'four positions are fine');

  chain.append(Array.from({ length: 10_000 }, () => [log(addr(1), A)]));
  t.equal((await filters.getLogs(query(crit([[A]])))).length, 10_000, 'exactly 10,000 logs');
  chain.append([[log(addr(1), A)]]);
  await rejectsWith(t, filters.getLogs(query(crit([[A]]))), 'limitExceeded', 'limit exceeded: logs');
  t.equal((await filters.getLogs(query(crit([[A]]), 'latest'))).length, 1);

  const ids = new Set<bigint>();
  for (let i = 0; i < DEFAULT_MAX_FILTERS; i++) ids.add(i % 2 ? filters.newBlockFilter() : filters.newPendingTransactionFilter());
  t.equal(ids.size, 1000, 'distinct ids');
  t.ok([...ids].every((id) => id > 0n && id < 2n ** 128n), 'ids are positive 128-bit numbers');
  await rejectsWith(t, () => filters.newBlockFilter(), 'limitExceeded', 'limit exceeded: filters');
  t.equal(filters.uninstall([...ids][0]), true);
  t.ok(filters.newLogFilter(query(crit([]))) > 0n, 'room again after an uninstall');
  filters.stop();

  const long = setup();
  for (let i = 0; i < 10_001; i++) long.chain.append([]);
  await rejectsWith(t, long.filters.getLogs(query(crit([]))), 'limitExceeded', 'limit exceeded: block range');
  t.same(await long.filters.getLogs(query(crit([]), 2n, 'latest')), [], '10,000 blocks up to the head are fine');
  const id = long.filters.newLogFilter(query(crit([])));
  await rejectsWith(t, long.filters.filterLogs(id), 'limitExceeded', 'limit exceeded: block range');
  long.filters.stop();
});

t.test('changes: blocks, pending transactions, logs since the last poll', async (t) => {
  const { chain, pool, filters } = setup();
  const blocks = filters.newBlockFilter();
  const txs = filters.newPendingTransactionFilter();
  const logs = filters.newLogFilter(query(crit([[A]]), 'latest', 'latest'));
  const from3 = filters.newLogFilter(query(crit([[A]]), 3n, 4n));
  t.same(await filters.changes(blocks), { kind: 'hashes', hashes: [] });
  const b1 = chain.append([[log(addr(1), A)], [log(addr(1), B)]]);
  const b2 = chain.append([[log(addr(1), B), log(addr(2), A)]]);
  pool.emit('pendingTx', chain.setPending([])[0] ?? b1.transactions[0]);
  t.same(await filters.changes(blocks), { kind: 'hashes', hashes: [b1.hash, b2.hash] });
  t.same(await filters.changes(blocks), { kind: 'hashes', hashes: [] }, 'nothing new');
  t.same(await filters.changes(txs), { kind: 'hashes', hashes: [b1.transactions[0].hash] });
  const got = await filters.changes(logs);
  t.equal(got.kind, 'logs');
  if (got.kind === 'logs') t.same(got.logs.map((e) => [e.at!.blockNumber, e.at!.logIndex]), [[1n, 0], [2n, 1]]);
  t.same(await filters.changes(logs), { kind: 'logs', logs: [] });
  for (let i = 0; i < 4; i++) chain.append([[log(addr(1), A)]]);
  const ranged = await filters.changes(from3);
  if (ranged.kind === 'logs') t.same(ranged.logs.map((e) => e.at!.blockNumber), [3n, 4n], 'explicit numbers bound changes');
  t.same((await filters.filterLogs(from3)).map((e) => e.at!.blockNumber), [3n, 4n]);
  await rejectsWith(t, filters.filterLogs(blocks), 'unsupported', /not a log filter/);
  await rejectsWith(t, filters.changes(12345n), 'notFound', 'filter not found');
  t.equal(filters.uninstall(logs), true);
  t.equal(filters.uninstall(logs), false);
  await rejectsWith(t, filters.changes(logs), 'notFound', 'filter not found');
  await rejectsWith(t, () => filters.newLogFilter(query(crit([]), 5n, 4n)), 'invalidRange', 'invalid block range');
  filters.stop();
  t.equal(chain.listenerCount('newHead'), 0, 'stop() unsubscribes');
  t.equal(pool.listenerCount('pendingTx'), 0);
});

t.test('pending logs: delivered once, null positions, pending-only filters skip mined logs', async (t) => {
  const { chain, filters } = setup();
  const both = filters.newLogFilter(query(crit([[A]]), 'latest', 'pending'));
  const pendingOnly = filters.newLogFilter(query(crit([[A]]), 'pending', 'pending'));
  const [p1] = chain.setPending([[log(addr(1), A)]]);
  const first = await filters.changes(both);
  t.equal(first.kind === 'logs' && first.logs.length, 1);
  t.equal(first.kind === 'logs' && first.logs[0].at, undefined, 'pending logs carry no position');
  t.same(await filters.changes(both), { kind: 'logs', logs: [] }, 'not delivered twice');
  chain.pendingBlock = { transactions: [p1, ...chain.setPending([[log(addr(2), A)]])], receipts: [...chain.pendingBlock.receipts, ...chain.pendingBlock.receipts] };
  const second = await filters.changes(both);
  t.equal(second.kind === 'logs' && second.logs.length, 1, 'only the new pending transaction');
  chain.append([[log(addr(3), A)]]);
  const mined = await filters.changes(pendingOnly);
  t.ok(mined.kind === 'logs' && mined.logs.every((e) => e.at === undefined), 'pending-only filters get no mined logs');
  const viaGetLogs = await filters.getLogs(query(crit([[A]]), 'pending', 'pending'));
  t.equal(viaGetLogs.length, 2);
  t.ok(viaGetLogs.every((e) => e.at === undefined));
  filters.stop();
});

t.test('expiry on a controlled clock; getFilterLogs does not keep a filter alive', async (t) => {
  let now = 0;
  const { chain, filters } = setup({ now: () => now, timeoutSeconds: 10 });
  const a = filters.newBlockFilter();
  const b = filters.newLogFilter(query(crit([])));
  now = 9_000;
  await filters.changes(a);
  await filters.filterLogs(b);
  now = 10_500;
  chain.append([]);
  t.equal((await filters.changes(a)).kind, 'hashes', 'polled at 9 s: alive at 10.5 s');
  await rejectsWith(t, filters.changes(b), 'notFound', 'filter not found');
  t.equal(filters.uninstall(b), false);
  now = 30_000;
  t.equal(filters.size, 1);
  filters.sweep();
  t.equal(filters.size, 0, 'the sweep removes expired filters');
  filters.stop();
});

t.test('buffered changes per filter are bounded (oldest dropped)', async (t) => {
  const small = setup({ maxBuffered: 3 });
  const id = small.filters.newBlockFilter();
  const hashes = Array.from({ length: 5 }, () => small.chain.append([]).hash);
  t.same(await small.filters.changes(id), { kind: 'hashes', hashes: hashes.slice(2) });
  small.filters.stop();

  const big = setup();
  const blocks = big.filters.newBlockFilter();
  for (let i = 0; i < DEFAULT_MAX_BUFFERED + 5; i++) big.chain.append([]);
  const got = await big.filters.changes(blocks);
  t.equal(got.kind === 'hashes' && got.hashes.length, 10_000);
  t.same(got.kind === 'hashes' && got.hashes[0], big.chain.blocks[6].hash, 'the newest 10,000 remain');
  big.filters.stop();
});

t.test('queryLogs works on any LogChain', async (t) => {
  const chain = new FakeChain();
  chain.append([[log(addr(1), A)]]);
  const sources = { chain, blooms: blockBlooms(chain), pending: { get: async () => chain.pendingBlock } };
  const out = await queryLogs(sources, query(crit([])), DEFAULT_LOG_LIMITS);
  t.equal(out.length, 1);
});

t.test('a rewind gives log filters the removed logs flagged, within their range; block filters get nothing', async (t) => {
  const { chain, filters } = setup();
  chain.append([[log(addr(1), A)]]); // block 1
  const all = filters.newLogFilter(query(crit([[A]]), 'latest', 'latest'));
  const fromTwo = filters.newLogFilter(query(crit([[A]]), 2n, 'latest'));
  const other = filters.newLogFilter(query(crit([[B]]), 'latest', 'latest'));
  const blocks = filters.newBlockFilter();
  chain.append([[log(addr(1), A)], [log(addr(2), A)]]); // block 2, two transactions
  const b3 = chain.append([[log(addr(3), A)]]); // block 3
  await filters.changes(all);
  await filters.changes(fromTwo);
  await filters.changes(blocks);

  chain.rewind(3); // blocks 3, 2, 1
  const removed = await filters.changes(all);
  t.same(removed.kind === 'logs' && removed.logs.map((e) => [e.at!.blockNumber, e.at!.logIndex, e.removed]),
    [[3n, 0, true], [2n, 0, true], [2n, 1, true], [1n, 0, true]], 'newest block first, block order inside');
  t.equal(removed.kind === 'logs' && removed.logs[0].at!.blockHash, b3.hash);
  const ranged = await filters.changes(fromTwo);
  t.same(ranged.kind === 'logs' && ranged.logs.map((e) => e.at!.blockNumber), [3n, 2n, 2n], 'fromBlock 2 leaves block 1 out');
  t.same(await filters.changes(other), { kind: 'logs', logs: [] }, 'criteria apply');
  t.same(await filters.changes(blocks), { kind: 'hashes', hashes: [] }, 'no hashes for removed blocks');
});
