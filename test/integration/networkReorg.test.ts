// Two miners apart: B mines one block with a log, A mines a longer chain. When they meet, B
// switches to A's heavier chain (highest total difficulty wins), its log filter reports the
// old log again with removed: true, and both end on the same head.

import t from 'tap';
import { startNetNode, waitPeers, waitSameHead, head, type NetNode } from '../helpers/network.js';
import { waitFor } from '../helpers/node.js';
import { testDir } from '../helpers/testDir.js';

// Init code that emits one LOG0 (no data) and deploys nothing: PUSH1 0 PUSH1 0 LOG0 STOP.
const LOG_INIT_CODE = '0x60006000a000';

t.test('partitioned miners converge on the heavier chain; removed logs on a filter', async (t) => {
  const nodes: NetNode[] = [];
  t.teardown(async () => {
    for (const n of nodes) await n.stop();
  });
  const dir = testDir(t, { a: {}, b: {} });
  const a = await startNetNode(dir + '/a', ['--mining.mode', 'interval', '--mining.period', '1', '--minerthreads', '1']);
  nodes.push(a);
  const b = await startNetNode(dir + '/b', ['--mining.mode', 'instant', '--minerthreads', '1']);
  nodes.push(b);

  const filter = await b.rpc('mc_newFilter', [{}]);
  const [from] = await b.rpc('mc_accounts');
  const txHash = await b.rpc('mc_sendTransaction', [{ from, data: LOG_INIT_CODE, gas: '0x186a0' }]);
  const receipt = await waitFor(() => b.rpc('mc_getTransactionReceipt', [txHash]), 'B mines its block');
  t.equal(receipt.logs.length, 1, 'the block holds one log');
  const first = await b.rpc('mc_getFilterChanges', [filter]);
  t.equal(first.length, 1);
  t.equal(first[0].removed, false);

  // A, mining alone, gets ahead by several blocks.
  await waitFor(async () => (await head(a)).number >= BigInt(receipt.blockNumber) + 3n, 'A mines ahead', 30_000);
  const bOld = receipt.blockHash;

  t.equal(await b.rpc('admin_addPeer', [a.enode]), true);
  await waitPeers(b, 1, 'B');
  const common = await waitSameHead([a, b], 4n, 30_000);
  t.ok(common.number >= 4n, `same head #${common.number}`);
  const atOld = await b.rpc('mc_getBlockByNumber', [receipt.blockNumber, false]);
  t.not(atOld.hash, bOld, 'B\'s own block left the canonical chain');

  const changes = await waitFor(async () => {
    const c = await b.rpc('mc_getFilterChanges', [filter]);
    return c.length ? c : undefined;
  }, 'filter changes after the switch');
  const removed = changes.find((l: any) => l.removed === true);
  t.ok(removed, 'the old log comes back with removed: true');
  t.equal(removed.transactionHash, txHash);
  t.equal(removed.blockHash, bOld);
});
