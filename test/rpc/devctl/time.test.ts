// Mining and time controls (evm_mine, anvil_mine / hardhat_mine, evm_increaseTime,
// evm_setNextBlockTimestamp, evm_setAutomine, evm_setIntervalMining) against a real node;
// the clock offset survives a restart; a testnet-preset node refuses them.

import t from 'tap';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { testDir } from '../../helpers/testDir.js';

const latest = async (node: TestNode) => {
  const b = await node.rpc('mc_getBlockByNumber', ['latest', false]);
  return { number: Number(b.number), timestamp: Number(b.timestamp) };
};

t.test('mining and time controls, persisted offset', async (t) => {
  const datadir = testDir(t);
  let node = await startNode(datadir, ['--mining.mode', 'off', '--minerthreads', '1']);
  t.teardown(() => node.stop());

  t.equal(await node.rpc('evm_mine'), '0x0');
  const first = await latest(node);
  t.equal(first.number, 1);
  const wall = Math.floor(Date.now() / 1000);
  t.ok(Math.abs(first.timestamp - wall) <= 5, 'first block near wall time');

  // increaseTime returns the total offset
  t.equal(await node.rpc('evm_increaseTime', [3600]), '0xe10');
  t.equal(await node.rpc('evm_increaseTime', ['0x64']), '0xe74');
  await node.rpc('evm_mine');
  const second = await latest(node);
  t.ok(second.timestamp - first.timestamp >= 3700, 'block after increaseTime is 3700 s later');

  // hardhat_mine / anvil_mine with an interval
  t.equal(await node.rpc('hardhat_mine', ['0x3', '0x10']), null);
  const afterMine = await latest(node);
  t.equal(afterMine.number, 5);
  const b3 = await node.rpc('mc_getBlockByNumber', ['0x3', false]);
  const b4 = await node.rpc('mc_getBlockByNumber', ['0x4', false]);
  t.equal(Number(b4.timestamp) - Number(b3.timestamp), 16);
  t.equal(afterMine.timestamp - Number(b4.timestamp), 16);
  await node.rpc('anvil_mine', ['0x2']);
  t.equal((await latest(node)).number, 7);

  // setNextBlockTimestamp: not below the head, then used by the next block
  const head = await latest(node);
  const bad = await node.call('evm_setNextBlockTimestamp', [head.timestamp - 1]);
  t.equal(bad.error?.code, -32000);
  t.match(bad.error?.message, /before the head block's timestamp/);
  const target = head.timestamp + 100_000;
  t.equal(await node.rpc('evm_setNextBlockTimestamp', ['0x' + target.toString(16)]), true);
  await node.rpc('evm_mine');
  t.equal((await latest(node)).timestamp, target);
  // evm_mine with a timestamp, then time continues from it
  await node.rpc('evm_mine', [target + 50]);
  t.equal((await latest(node)).timestamp, target + 50);
  const badMine = await node.call('evm_mine', [target]);
  t.equal(badMine.error?.code, -32000);
  const bad2 = await node.call('evm_increaseTime', ['x']);
  t.equal(bad2.error?.code, -32602);
  t.equal((await node.call('evm_increaseTime', ['0x' + (2n ** 63n).toString(16)])).error?.code, -32000, 'past the largest timestamp');
  t.equal((await node.call('evm_setNextBlockTimestamp', ['0x' + (2n ** 63n).toString(16)])).error?.code, -32000);
  t.equal((await node.call('evm_setIntervalMining', [2 ** 40])).error?.code, -32602);
  t.equal((await node.call('evm_revert', ['0x' + 'f'.repeat(40)])).error?.code, -32602);
  t.equal((await node.call('anvil_mine', ['0x' + (10n ** 9n).toString(16)])).error?.code, -32602);

  // automine on: a transaction seals at once
  t.equal(await node.rpc('anvil_getAutomine'), false);
  t.equal(await node.rpc('evm_setAutomine', [true]), true);
  t.equal(await node.rpc('hardhat_getAutomine'), true);
  const [from] = await node.rpc('mc_accounts');
  const hash = await node.rpc('mc_sendTransaction', [{ from, to: '0x' + '11'.repeat(20), value: '0x1' }]);
  await waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), 'automined receipt', 15_000);
  t.equal(await node.rpc('evm_setAutomine', [false]), true);
  // interval mining: blocks come by themselves
  const before = (await latest(node)).number;
  t.equal(await node.rpc('evm_setIntervalMining', [200]), true);
  await waitFor(async () => (await latest(node)).number >= before + 2, 'interval blocks', 15_000);
  t.equal(await node.rpc('evm_setIntervalMining', [0]), true);

  // the offset persists across a restart
  const stopHead = await latest(node);
  await node.stop();
  node = await startNode(datadir, ['--mining.mode', 'off', '--minerthreads', '1']);
  await node.rpc('evm_mine');
  const resumed = await latest(node);
  t.ok(resumed.timestamp >= stopHead.timestamp, 'never below the parent');
  t.ok(resumed.timestamp - Math.floor(Date.now() / 1000) > 90_000, 'offset kept across the restart');
});

t.test('a testnet-preset node refuses the controls', async (t) => {
  const node = await startNode(testDir(t), ['--config', 'testnet', '--mining.mode', 'off']);
  t.teardown(() => node.stop());
  for (const m of ['evm_mine', 'evm_increaseTime', 'anvil_mine', 'hardhat_setBalance', 'evm_snapshot']) {
    const reply = await node.ipcCall(m, m === 'evm_increaseTime' ? [1] : []);
    t.equal(reply.error?.code, -32601, `${m} is not served`);
  }
  const modules = (await node.ipcCall('rpc_modules')).result;
  t.notOk('evm' in modules || 'anvil' in modules || 'hardhat' in modules, 'rpc_modules does not list them');
  t.ok('debug' in modules, 'tracing stays available');
});
