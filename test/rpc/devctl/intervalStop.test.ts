// Interval mining stops at once: after the answer to evm_setAutomine(true),
// evm_setIntervalMining(0) or miner_stop, no interval block follows, however many timer ticks were
// queued. A 1 ms interval keeps ticks queued all the time, so a tick left over from before the
// switch would show as a block after it.

import t, { type Test } from 'tap';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { testDir } from '../../helpers/testDir.js';

const blockNumber = async (node: TestNode) => Number(await node.rpc('mc_blockNumber'));
const quiet = () => new Promise((r) => setTimeout(r, 600));

async function intervalRunning(node: TestNode, t: Test, method = 'evm_setIntervalMining'): Promise<void> {
  t.equal(await node.rpc(method, [1]), true, `${method}(1)`);
  const from = await blockNumber(node);
  await waitFor(async () => (await blockNumber(node)) >= from + 5, 'interval blocks', 20_000);
}

t.test('no interval block follows the switch that stops them', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'off', '--minerthreads', '1', '--verbosity', '1']);
  t.teardown(() => node.stop());

  for (let round = 0; round < 3; round++) {
    await intervalRunning(node, t);
    t.equal(await node.rpc('evm_setAutomine', [true]), true, 'automine on');
    const atSwitch = await blockNumber(node);
    await quiet();
    t.equal(await blockNumber(node), atSwitch, `round ${round}: no block after evm_setAutomine(true)`);
    t.equal(await node.rpc('evm_getAutomine'), true);

    // automine still seals transactions
    const [from] = await node.rpc('mc_accounts');
    const hash = await node.rpc('mc_sendTransaction', [{ from, to: '0x' + '22'.repeat(20), value: '0x1' }]);
    const receipt = await waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), 'automined receipt');
    t.equal(Number(receipt.blockNumber), atSwitch + 1, 'the transaction sealed in the next block');

    // beside automine (mode mixed), then off with evm_setIntervalMining(0)
    await intervalRunning(node, t);
    t.equal(await node.rpc('evm_setIntervalMining', [0]), true);
    const atZero = await blockNumber(node);
    await quiet();
    t.equal(await blockNumber(node), atZero, `round ${round}: no block after evm_setIntervalMining(0)`);

    // alone (mode interval), then miner_stop
    t.equal(await node.rpc('evm_setAutomine', [false]), true);
    await intervalRunning(node, t);
    t.equal((await node.ipcCall('miner_stop')).result, true);
    const atStop = await blockNumber(node);
    await quiet();
    t.equal(await blockNumber(node), atStop, `round ${round}: no block after miner_stop`);
    t.equal(await node.rpc('evm_setIntervalMining', [0]), true);
  }
});
