// evm_snapshot / evm_revert on a real node: head, pool and clock restored, ids reusable, later
// snapshots dropped, removed logs reach filters, snapshots survive a restart; debug_setHead.

import t from 'tap';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV, rawTx } from '../../helpers/accounts.js';
import { contract, encodeCall, word } from '../../helpers/abi.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

const flags = ['--mining.mode', 'off', '--minerthreads', '1'];

t.test('snapshots and reverts', async (t) => {
  const datadir = testDir(t);
  let node: TestNode = await startNode(datadir, flags);
  t.teardown(() => node.stop());
  const head = async () => Number(await node.rpc('mc_blockNumber'));
  const key = DEV[1].key;
  const receiptOf = (h: string) => waitFor(() => node.rpc('mc_getTransactionReceipt', [h]), 'receipt');

  // a contract that logs
  const deploy = rawTx(key, { nonce: 0n, data: hexToBytes(contract('Store').bytecode + word(7)), gas: 500_000n });
  await node.rpc('mc_sendRawTransaction', [deploy.raw]);
  await node.rpc('evm_mine');
  const store = (await receiptOf(deploy.hash)).contractAddress;
  t.equal(await head(), 1);

  // mc_call keeps a warm EVM per state root: each head must still answer from its own state.
  const value = () => node.rpc('mc_call', [{ to: store, data: encodeCall('value()') }, 'latest']);
  t.equal(await value(), '0x' + word(7), 'call at the first head');
  const first = await node.rpc('evm_snapshot');
  t.equal(first, '0x1');
  const offsetAtSnapshot = await node.rpc('evm_increaseTime', [0]);
  const filter = await node.rpc('mc_newFilter', [{ address: store }]);

  const set = rawTx(key, { nonce: 1n, to: hexToBytes(store), data: hexToBytes(encodeCall('set(uint256)', 42)), gas: 200_000n });
  await node.rpc('mc_sendRawTransaction', [set.raw]);
  await node.rpc('evm_mine');
  t.equal(await value(), '0x' + word(42), 'a call after a new block sees its write');
  await node.rpc('hardhat_mine', ['0x3']);
  await node.rpc('evm_increaseTime', [1000]);
  t.equal(await head(), 5);
  const second = await node.rpc('evm_snapshot');
  t.equal(second, '0x2');
  // a pending transaction at the second snapshot
  const pendingTx = rawTx(key, { nonce: 2n, to: hexToBytes(store), data: hexToBytes(encodeCall('set(uint256)', 43)), gas: 200_000n });
  await node.rpc('mc_sendRawTransaction', [pendingTx.raw]);
  const added = await node.rpc('mc_getFilterChanges', [filter]);
  t.equal(added.length, 1);
  t.equal(added[0].removed, false);

  // back to the first snapshot
  t.equal(await node.rpc('evm_revert', [first]), true);
  t.equal(await head(), 1, 'head back at the snapshot');
  t.equal(await node.rpc('mc_getStorageAt', [store, '0x0', 'latest']), '0x' + word(7));
  t.equal(await value(), '0x' + word(7), 'a call after evm_revert sees the old state');
  t.equal(await node.rpc('mc_getTransactionReceipt', [set.hash]), null, 'the reverted transaction left the chain');
  t.equal((await node.rpc('txpool_status')).pending, '0x0', 'pool as it was at the snapshot');
  t.equal(await node.rpc('evm_increaseTime', [0]), offsetAtSnapshot, 'clock offset restored');
  const removed = await node.rpc('mc_getFilterChanges', [filter]);
  t.equal(removed.length, 1);
  t.equal(removed[0].removed, true, 'the reverted log reaches the filter as removed');
  t.equal(removed[0].transactionHash, set.hash);
  t.equal(await node.rpc('evm_revert', [second]), false, 'later snapshots are dropped');
  t.equal(await node.rpc('evm_revert', ['0x99']), false, 'unknown id');

  // the id stays usable
  await node.rpc('evm_mine');
  await node.rpc('evm_mine');
  t.equal(await head(), 3);
  t.equal(await node.rpc('evm_revert', [first]), true);
  t.equal(await head(), 1);

  // the pool comes back with a snapshot
  await node.rpc('mc_sendRawTransaction', [set.raw]);
  const withPool = await node.rpc('evm_snapshot');
  t.equal(withPool, '0x3', 'ids are never reused');
  await node.rpc('evm_mine');
  t.equal((await node.rpc('txpool_status')).pending, '0x0');
  t.equal(await node.rpc('evm_revert', [withPool]), true);
  t.equal((await node.rpc('txpool_status')).pending, '0x1', 'the pending transaction is back');
  t.equal(await node.rpc('mc_getTransactionReceipt', [set.hash]), null);

  // snapshots survive a restart
  await node.rpc('evm_mine');
  await node.rpc('evm_mine');
  await node.stop();
  node = await startNode(datadir, flags);
  t.equal(await head(), 3);
  t.equal(await node.rpc('evm_revert', [first]), true, 'a snapshot taken before the restart');
  t.equal(await head(), 1);
  t.equal(await node.rpc('evm_revert', [withPool]), false, 'dropped by the revert to an older one');

  // debug_setHead: the same rewind, over IPC
  await node.rpc('anvil_mine', ['0x4']);
  t.equal(await head(), 5);
  t.equal((await node.ipcCall('debug_setHead', ['0x2'])).result, null);
  t.equal(await head(), 2);
  t.equal((await node.ipcCall('debug_setHead', ['0x9'])).error?.code, -32000);
  // a snapshot above a head that debug_setHead lowered: its branch becomes the head again
  await node.rpc('anvil_mine', ['0x2']);
  const high = await node.rpc('evm_snapshot');
  const highHash = (await node.rpc('mc_getBlockByNumber', ['latest', false])).hash;
  await node.ipcCall('debug_setHead', ['0x1']);
  t.equal(await head(), 1);
  t.equal(await node.rpc('evm_revert', [high]), true);
  t.equal((await node.rpc('mc_getBlockByNumber', ['latest', false])).hash, highHash, 'the snapshot head is back');
});
