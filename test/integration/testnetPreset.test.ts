// The testnet preset as a new user runs it: Ethash at the preset's difficulty, mined locally with
// the light cache on two worker threads (the period is shortened to keep the test short). The node
// is the mcnode command's bundle started from its code cache, as every start after the first is.

import t from 'tap';
import path from 'node:path';
import { CACHE_USED, startNode, waitFor, withCodeCache } from '../helpers/node.js';
import { testDir } from '../helpers/testDir.js';

t.test('--config testnet mines Ethash blocks', async (t) => {
  await withCodeCache(path.join(testDir(t), 'warm'));
  const node = await startNode(testDir(t), ['--config', 'testnet', '--mining.period', '1', '--minerthreads', '2', '--verbosity', '4']);
  t.teardown(() => node.stop());
  t.match(node.stdout(), /^chain id 101, network id 101/m);
  t.match(node.stdout(), /^pow {5}ethash \(light cache\)$/m);
  const [, seedHash, target] = await node.rpc('mc_getWork');
  t.equal(seedHash, '0x' + '00'.repeat(32), 'epoch 0');
  t.equal(BigInt(target), (1n << 256n) / 0x1000n, 'the preset difficulty 0x1000');
  await waitFor(async () => BigInt(await node.rpc('mc_blockNumber')) >= 2n || undefined, 'two blocks', 150_000);
  const block = await node.rpc('mc_getBlockByNumber', ['0x2', false]);
  t.ok(BigInt(block.difficulty) >= 0x1000n, 'at or above the floor of the adjust rule');
  t.match(node.stderr(), /proof of work pow="ethash \(light cache\)"/, 'the log names the PoW');
  t.notMatch(node.stderr(), /mining failed/, 'no failed mining round');
  t.match(node.stderr(), CACHE_USED, 'the node ran from the code cache');
});

t.test('miner_start on an Ethash chain seals blocks', async (t) => {
  await withCodeCache(path.join(testDir(t), 'warm'));
  const node = await startNode(testDir(t), ['--config', 'testnet', '--mining.mode', 'instant', '--mine', 'false', '--minerthreads', '1', '--verbosity', '4']);
  t.teardown(() => node.stop());
  t.equal(await node.rpc('mc_mining'), false, 'not mining at start');
  const [from] = await node.rpc('mc_accounts');
  const hash = await node.rpc('mc_sendTransaction', [{ from, to: '0x' + '33'.repeat(20), value: '0x1' }]);
  t.equal((await node.ipcCall('miner_start', [1])).result, true);
  const receipt = await waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), 'a receipt after miner_start', 150_000);
  t.equal(receipt.status, '0x1');
  t.notMatch(node.stderr(), /mining failed/, 'no failed mining round');
  t.match(node.stderr(), CACHE_USED, 'the node ran from the code cache');
});
