// The address index on a running node: evm_revert and debug_setHead take the removed blocks'
// transactions out of ots_search*, and a datadir without the index (as an older version left
// it) is rebuilt at start, with its progress logged, to the same answers.

import t from 'tap';
import path from 'node:path';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { runScenario, type Scenario } from '../../helpers/explorerScenario.js';
import { Database } from '../../../src/store/database.js';
import { keys } from '../../../src/store/schema.js';
import type { BatchOp } from '../../../src/store/database.js';
import { mcnode } from '../../fixtures/chains/prebuilt.js';
import { testDir } from '../../helpers/testDir.js';

const ARGS = ['--mining.mode', 'instant', '--minerthreads', '1'];
let node: TestNode;
let s: Scenario;
let datadir: string;

t.before(async () => {
  datadir = testDir(t);
  node = await startNode(datadir, ARGS);
  s = await runScenario(node.rpc);
});
t.teardown(() => node?.stop());

const search = async (address: string) => (await node.rpc('ots_searchTransactionsBefore', [address, 0, 100])).txs.map((x: any) => x.hash);
const send = async (tx: Record<string, string>) => {
  const hash = await node.rpc('mc_sendTransaction', [{ from: s.from, gas: '0x30d40', gasPrice: '0x3b9aca00', ...tx }]);
  await waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), 'receipt');
  return hash;
};

t.test('evm_revert takes the reverted blocks\' transactions out of the index', async (t) => {
  const snapshot = await node.rpc('evm_snapshot');
  const extra = await send({ to: s.payee, value: '0x1' });
  t.same(await search(s.payee), [extra, s.forward]);
  t.equal(await node.rpc('evm_revert', [snapshot]), true);
  t.same(await search(s.payee), [s.forward]);
  t.equal(await node.rpc('ots_getTransactionBySenderAndNonce', [s.from, 5]), null);
  const again = await send({ to: s.payee, value: '0x2' });
  t.same(await search(s.payee), [again, s.forward], 'a block at the same height indexes its own');
});

t.test('anvil_rollback takes the rolled-back block\'s transactions out of the index', async (t) => {
  const before = await search(s.payee);
  const extra = await send({ to: s.payee, value: '0x3' });
  t.same(await search(s.payee), [extra, ...before]);
  await node.rpc('miner_stop'); // the rolled-back transaction goes back to the pool: keep it there
  t.equal(await node.rpc('anvil_rollback', [1]), null);
  t.same(await search(s.payee), before, 'gone with its block');
  await node.rpc('anvil_dropTransaction', [extra]);
  await node.rpc('miner_start');
});

t.test('debug_setHead rewinds the index with the head', async (t) => {
  const forwardBlock = (await node.rpc('mc_getTransactionReceipt', [s.forward])).blockNumber;
  await node.rpc('miner_stop'); // the removed transactions go back to the pool: keep them there
  const reply = await node.ipcCall('debug_setHead', [forwardBlock]);
  t.notOk(reply.error);
  t.same(await search(s.ops), [s.forward, s.deploy]);
  t.same(await search(s.children[1]), [], 'the make transaction is gone');
  t.equal(await node.rpc('ots_getTransactionBySenderAndNonce', [s.from, 2]), null);
  await node.rpc('miner_start');
  await waitFor(() => node.rpc('mc_getTransactionReceipt', [s.fail]), 'the returned transactions mined again');
  t.same((await search(s.children[1])), [s.make], 'mined again, indexed again');
});

t.test('a datadir without the index is rebuilt at start, with progress', async (t) => {
  const before = { ops: await search(s.ops), payee: await search(s.payee), from: await search(s.from) };
  await node.stop();
  const db = await Database.open(path.join(datadir, 'chaindata'));
  const dels: BatchOp[] = [{ type: 'del', key: keys.addressIndexState }];
  for (const prefix of ['o:', 't:']) {
    const p = new TextEncoder().encode(prefix);
    for await (const [key] of db.entries({ gte: p, lt: Uint8Array.of(p[0], p[1] + 1) })) dels.push({ type: 'del', key });
  }
  t.ok(dels.length > 10, 'the index had entries');
  await db.batch(dels);
  await db.close();

  node = await startNode(datadir, ARGS);
  await waitFor(async () => /address index complete/.test(node.stderr()), 'the rebuild');
  t.match(node.stderr(), /rebuilding the address index for this datadir/);
  t.same({ ops: await search(s.ops), payee: await search(s.payee), from: await search(s.from) }, before, 'the same answers');
});

t.test('import writes the index as it stores the blocks', async (t) => {
  const before = { ops: await search(s.ops), payee: await search(s.payee), children: await search(s.children[1]) };
  await node.stop();
  const file = path.join(datadir, 'chain.rlp');
  const fresh = path.join(datadir, 'imported');
  const exported = mcnode('export', file, '--datadir', datadir, '--ipcdisable', '--verbosity', '1');
  t.equal(exported.status, 0, exported.stderr);
  const imported = mcnode('import', file, '--datadir', fresh, '--ipcdisable', '--verbosity', '1');
  t.equal(imported.status, 0, imported.stderr);
  node = await startNode(fresh, [...ARGS, '--mining.mode', 'off']);
  t.notMatch(node.stderr(), /rebuilding the address index/, 'nothing to rebuild');
  t.same({ ops: await search(s.ops), payee: await search(s.payee), children: await search(s.children[1]) }, before);
});
