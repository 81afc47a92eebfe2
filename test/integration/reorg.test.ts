// A reorganisation on running nodes, as a user sees it: node A mines a block with a log; node B,
// on the same genesis, mines a longer chain; A imports B's chain (admin_importChain, the one
// import path a peer's blocks take) and switches to it. A's log filter gets the old log with
// `removed: true`, its block filter the new branch's hashes, the creation returns to A's pool
// and is mined again on top, the old block stays readable by hash, and a restart keeps the head.

import t from 'tap';
import path from 'node:path';
import { startNode, waitFor, type TestNode } from '../helpers/node.js';
import { testDir } from '../helpers/testDir.js';

// Init code that emits one LOG0 (empty data) and deploys nothing.
const LOGGER = '0x60006000a0';

async function send(node: TestNode, tx: Record<string, string>): Promise<{ hash: string; receipt: any }> {
  const hash = await node.rpc('mc_sendTransaction', [tx]);
  const receipt = await waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), `receipt of ${hash}`);
  return { hash, receipt };
}

t.test('a heavier chain from another node takes over; filters see removed logs and new blocks', async (t) => {
  const dir = testDir(t);
  const args = ['--mining.mode', 'instant'];
  const [a, b] = await Promise.all([startNode(path.join(dir, 'a'), args), startNode(path.join(dir, 'b'), args)]);
  t.teardown(() => Promise.all([a.stop(), b.stop()]));
  const [from0, from1] = await a.rpc('mc_accounts');

  const logFilter = await a.rpc('mc_newFilter', [{ fromBlock: 'latest' }]);
  const blockFilter = await a.rpc('mc_newBlockFilter');
  const creation = await send(a, { from: from0, data: LOGGER, gas: '0x186a0' });
  const a1 = creation.receipt.blockHash;
  t.equal(creation.receipt.blockNumber, '0x1');
  t.equal(creation.receipt.logs.length, 1, 'the creation logged');

  for (let i = 0; i < 2; i++) await send(b, { from: from1, to: from0, value: '0x1' });
  const bBlocks = [await b.rpc('mc_getBlockByNumber', ['0x1', false]), await b.rpc('mc_getBlockByNumber', ['0x2', false])];
  const file = path.join(dir, 'b.rlp');
  t.equal((await b.ipcCall('admin_exportChain', [file])).result, true);

  const imported = await a.ipcCall('admin_importChain', [file]);
  t.equal(imported.result, true, JSON.stringify(imported.error));
  t.equal((await a.rpc('mc_getBlockByNumber', ['0x1', false])).hash, bBlocks[0].hash, 'block 1 is B\'s');
  t.equal((await a.rpc('mc_getBlockByNumber', ['0x2', false])).hash, bBlocks[1].hash, 'block 2 is B\'s');

  // The creation left the canonical chain, went back to the pool and is mined again on top.
  const again = await waitFor(async () => {
    const r = await a.rpc('mc_getTransactionReceipt', [creation.hash]);
    return r && r.blockHash !== a1 ? r : undefined;
  }, 'the creation mined again');
  t.equal(again.blockNumber, '0x3', 'mined again above B\'s blocks');
  t.equal((await a.rpc('mc_getBlockByHash', [a1, false])).number, '0x1', 'the old block is still readable by hash');

  const logs = await a.rpc('mc_getFilterChanges', [logFilter]);
  t.same(logs.map((l: any) => [l.blockHash, l.removed]), [[a1, false], [a1, true], [again.blockHash, false]],
    'the log, then the same log removed, then the log of the block that mined it again');
  const hashes = await a.rpc('mc_getFilterChanges', [blockFilter]);
  t.same(hashes, [a1, bBlocks[0].hash, bBlocks[1].hash, again.blockHash], 'block filter: A1, then the new branch');
  const logsNow = await a.rpc('mc_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
  t.same(logsNow.map((l: any) => [l.blockHash, l.removed]), [[again.blockHash, false]], 'mc_getLogs: only the canonical log');

  const head = await a.rpc('mc_getBlockByNumber', ['latest', false]);
  await a.stop();
  const restarted = await startNode(path.join(dir, 'a'), ['--mining.mode', 'off']);
  t.teardown(() => restarted.stop());
  t.equal((await restarted.rpc('mc_getBlockByNumber', ['latest', false])).hash, head.hash, 'the restart keeps the new head');
  t.equal((await restarted.rpc('mc_getTransactionReceipt', [creation.hash])).blockHash, again.blockHash);
});
