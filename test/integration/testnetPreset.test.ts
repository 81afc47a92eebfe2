// The testnet preset as a new user runs it: Ethash at the preset's difficulty, mined locally with
// the light cache on two worker threads (the period is shortened to keep the test short).

import t from 'tap';
import { startNode, waitFor } from '../helpers/node.js';

t.test('--config testnet mines Ethash blocks', async (t) => {
  const node = await startNode(t.testdir(), ['--config', 'testnet', '--mining.period', '1', '--minerthreads', '2']);
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
});
