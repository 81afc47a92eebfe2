// Durability of app-chain data: acknowledged transactions survive kill -9 (the journal), a
// flush's records and balances agree after a hard kill, bad declarations stop the start with
// the key named, and a node without the SCS refuses app-chain transactions clearly.

import t from 'tap';
import { startNode, waitFor } from '../../helpers/node.js';
import { DEV } from '../../helpers/accounts.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { MC, advanceTo, appBalance, counter, dappBaseCode, deployTx, mainBalance, scsOf, sendApp, sendMain, transferTx } from './scsHelpers.js';
import { testDir } from '../../helpers/testDir.js';

const CHAIN = '0x' + 'd1'.repeat(20);
const args = ['--mining.mode', 'instant', '--appChains', JSON.stringify([{ address: CHAIN, flushRound: 2, tokenSupply: '0xde0b6b3a7640000' }])];

t.test('acknowledged app-chain transactions survive kill -9', async (t) => {
  const datadir = testDir(t);
  let node = await startNode(datadir, args);
  let scs = scsOf(node);
  // Nonces 1 and 2 wait for nonce 0: after the kill they can only come back from the journal.
  const queued = [1n, 2n].map((nonce) => transferTx(DEV[1].key, { chain: CHAIN, nonce }, DEV[2].address));
  for (const tx of queued) t.equal(await node.rpc('mc_sendRawTransaction', [tx.raw]), tx.hash);
  // And a burst that may or may not have made it into a block when the kill lands.
  const burst = [0n, 1n, 2n, 3n, 4n].map((nonce) => transferTx(DEV[0].key, { chain: CHAIN, nonce }, DEV[2].address));
  await Promise.all(burst.map((tx) => node.rpc('mc_sendRawTransaction', [tx.raw])));
  t.equal(await node.stop('SIGKILL'), null);

  node = await startNode(datadir, args);
  scs = scsOf(node);
  t.teardown(() => node.stop());
  const pool = await scs.rpc('scs_getTxpool', [CHAIN]);
  const mine = Object.values(pool.queued).flatMap((byNonce: any) => Object.values(byNonce).map((tx: any) => tx.transactionHash));
  t.same(mine.sort(), queued.map((tx) => tx.hash).sort(), 'the queued pair is back');
  for (const tx of burst) await waitFor(() => scs.rpc('scs_getReceiptByHash', [CHAIN, tx.hash]), 'burst receipt');
  t.equal(await scs.rpc('scs_getNonce', [CHAIN, DEV[0].address]), 5);
  await sendApp(node, scs, CHAIN, transferTx(DEV[1].key, { chain: CHAIN, nonce: 0n }, DEV[2].address));
  for (const tx of queued) await waitFor(() => scs.rpc('scs_getReceiptByHash', [CHAIN, tx.hash]), 'queued receipt');
  t.equal(await scs.rpc('scs_getNonce', [CHAIN, DEV[1].address]), 3);
});

t.test('a flush survives kill -9 with main and app chain in agreement', async (t) => {
  const datadir = testDir(t);
  let node = await startNode(datadir, args);
  let scs = scsOf(node);
  await sendApp(node, scs, CHAIN, deployTx(DEV[0].key, { chain: CHAIN, nonce: 0n }, dappBaseCode()));
  await sendMain(node, DEV[1].key, { nonce: 0n, to: hexToBytes(CHAIN), value: MC / 2n, data: hexToBytes('0x6bbded70'), gas: 50_000n });
  const head = Number(await node.rpc('mc_blockNumber'));
  await advanceTo(node, head + 2);
  await node.stop('SIGKILL');

  node = await startNode(datadir, args);
  scs = scsOf(node);
  t.teardown(() => node.stop());
  t.equal(await appBalance(scs, CHAIN, DEV[1].address), MC / 2n, 'the deposit was settled (rate 1)');
  const records = await scs.rpc('scs_getExchangeByAddress', [CHAIN, DEV[1].address, 0, 10, 0, 10, 0, 10, 0, 10]);
  t.equal(records.DepositRecordCount, 1);
  t.equal(records.DepositingRecordCount, 0);
  t.equal(await mainBalance(node, CHAIN), MC / 2n);
  t.ok(Number(await scs.rpc('scs_getBlockNumber', [CHAIN])) >= 2, 'deploy block and flush block');
});

t.test('a bad app chain declaration stops the start, naming the key', async (t) => {
  const bad = ['--appChains', JSON.stringify([{ address: CHAIN }, { flushRound: 'soon' }])];
  const failure = await startNode(testDir(t), bad).then(
    () => undefined,
    (err: Error) => err.message,
  );
  t.match(failure, /appChains\[1\]\.flushRound: expected a positive JSON integer/);
});

t.test('without the SCS: no endpoint, vnode_scsService false, app-chain transactions refused', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'instant', '--scs.enabled', 'false']);
  t.teardown(() => node.stop());
  t.equal(node.scsUrl, undefined);
  t.match(node.stdout(), /SCS\s+disabled/);
  t.equal(await node.rpc('vnode_scsService'), false);
  const tx = deployTx(DEV[0].key, { chain: CHAIN, nonce: 0n }, counter().bytecode);
  const reply = await node.call('mc_sendRawTransaction', [tx.raw]);
  t.same(reply.error, { code: -32000, message: 'app-chain transactions (shardingFlag 1-3) need the SCS service' });
});

t.test('a declared app chain without an address keeps its derived address across restarts', async (t) => {
  const datadir = testDir(t);
  const declared = ['--appChains', JSON.stringify([{ flushRound: 7 }, { address: CHAIN }])];
  let node = await startNode(datadir, declared);
  const list = await scsOf(node).rpc('scs_getMicroChainList');
  t.equal(list.length, 2);
  t.equal(list[1], CHAIN);
  const created = await scsOf(node).rpc('scs_createAppChain', [{}]);
  await node.stop();
  node = await startNode(datadir, declared);
  t.teardown(() => node.stop());
  t.same(await scsOf(node).rpc('scs_getMicroChainList'), [...list, created], 'nothing new, nothing lost');
});
