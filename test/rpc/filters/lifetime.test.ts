// Filter lifetime and the installed-filter limit against a real node started with
// --filters.timeout 1: an unpolled filter is gone after ~2.5 s, a polled one stays.

import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { postJson, startNode, type TestNode } from '../../helpers/node.js';
import { testDir } from '../../helpers/testDir.js';

let node: TestNode;
t.before(async () => {
  node = await startNode(testDir(t), ['--mining.mode', 'off', '--filters.timeout', '1']);
});
t.teardown(() => node.stop());

t.test('a filter not polled for filters.timeout seconds is removed', async (t) => {
  const idle = await node.rpc('mc_newBlockFilter');
  const idleLog = await node.rpc('mc_newFilter', [{}]);
  const polled = await node.rpc('mc_newPendingTransactionFilter');
  // getFilterLogs is no poll: it does not keep a filter alive.
  t.same(await node.rpc('mc_getFilterLogs', [idleLog]), []);
  const end = Date.now() + 2500;
  while (Date.now() < end) {
    t.same(await node.rpc('mc_getFilterChanges', [polled]), []);
    await sleep(200);
  }
  t.same(await node.rpc('mc_getFilterChanges', [polled]), [], 'polled filter still installed');
  t.same((await node.call('mc_getFilterChanges', [idle])).error, { code: -32000, message: 'filter not found' });
  t.same((await node.call('mc_getFilterLogs', [idleLog])).error, { code: -32000, message: 'filter not found' });
  t.equal(await node.rpc('mc_uninstallFilter', [idle]), false, 'already removed');
  t.equal(await node.rpc('mc_uninstallFilter', [polled]), true);
});

t.test('at most 1000 filters are installed (-32005)', async (t) => {
  const batch = Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: i % 2 ? 'mc_newBlockFilter' : 'mc_newFilter', params: i % 2 ? [] : [{}] }));
  const replies = (await postJson(node.url, batch)) as unknown as { result?: string; error?: unknown }[];
  t.equal(replies.filter((r) => typeof r.result === 'string').length, 1000, '1000 installed in one batch');
  t.equal(new Set(replies.map((r) => r.result)).size, 1000, 'distinct ids');
  t.same((await node.call('mc_newPendingTransactionFilter')).error, { code: -32005, message: 'limit exceeded: filters (max 1000 installed)' });
  t.equal(await node.rpc('mc_uninstallFilter', [replies[0].result]), true);
  t.match(await node.rpc('mc_newBlockFilter'), /^0x[1-9a-f]/, 'room after an uninstall');
  // Unpolled, they all expire and free their slots.
  await sleep(2500);
  t.match(await node.rpc('mc_newBlockFilter'), /^0x[1-9a-f]/, 'expired filters no longer count');
  t.same((await node.call('mc_getFilterChanges', [replies[1].result])).error?.message, 'filter not found');
});
