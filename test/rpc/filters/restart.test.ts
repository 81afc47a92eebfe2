// Log history survives a restart (mc_getLogs answers identically); installed filters do not.

import t from 'tap';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV, rawTx } from '../../helpers/accounts.js';
import { contract, encodeCall, topic, word } from '../../helpers/abi.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

t.test('logs after a restart are identical; filters are gone', async (t) => {
  const datadir = testDir(t);
  const first = await startNode(datadir, ['--mining.mode', 'instant']);
  let nonce = 0n;
  const send = async (node: TestNode, fields: { to?: Uint8Array; data: Uint8Array }) => {
    const { raw, hash } = rawTx(DEV[1].key, { nonce: nonce++, gas: 300_000n, ...fields });
    await node.rpc('mc_sendRawTransaction', [raw]);
    return waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), 'receipt');
  };
  const address = (await send(first, { data: hexToBytes(contract('Store').bytecode + word(0)) })).contractAddress;
  for (let v = 1; v <= 4; v++) await send(first, { to: hexToBytes(address), data: hexToBytes(encodeCall('set(uint256)', v)) });
  const query = [{ fromBlock: 'earliest', toBlock: 'latest', address, topics: [topic('Stored(address,uint256)')] }];
  const before = await first.rpc('mc_getLogs', query);
  t.equal(before.length, 4);
  const filter = await first.rpc('mc_newFilter', [{ fromBlock: 'earliest', address }]);
  const blockFilter = await first.rpc('mc_newBlockFilter');
  t.equal(await first.stop('SIGTERM'), 0);

  const second = await startNode(datadir, ['--mining.mode', 'instant']);
  t.teardown(() => second.stop());
  t.same(await second.rpc('mc_getLogs', query), before, 'identical log objects');
  t.same(await second.rpc('mc_getLogs', [{ blockHash: before[2].blockHash }]), [before[2]]);
  for (const id of [filter, blockFilter]) {
    t.same((await second.call('mc_getFilterChanges', [id])).error, { code: -32000, message: 'filter not found' });
  }
  // New filters work on the reopened chain.
  const fresh = await second.rpc('mc_newFilter', [{ address }]);
  const receipt = await send(second, { to: hexToBytes(address), data: hexToBytes(encodeCall('set(uint256)', 5)) });
  t.same(await second.rpc('mc_getFilterChanges', [fresh]), receipt.logs);
});
