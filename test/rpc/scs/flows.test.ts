// The app-chain story over raw JSON-RPC against a real node: a declared app chain, the DappBase
// deploy, a registered Dapp, calls, reads through scs_directCall and AnyCall, a token transfer,
// a deposit and a withdrawal settled by flushes, the records, and a restart that keeps it all.

import t from 'tap';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV } from '../../helpers/accounts.js';
import { contractAddress } from '../../../src/chain/transaction.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import {
  MC, advanceTo, appBalance, callData, callTx, counter, dappBaseCode, deployTx, mainBalance, scsOf, sendApp, sendMain,
  transferTx, type Scs,
} from './scsHelpers.js';
import { testDir } from '../../helpers/testDir.js';

const CHAIN = '0x57b7b8225bcb5d4c6c5abbe2e44fa67998cfa791';
const RATE = 1000n;
const SUPPLY = 5_000_000n * MC;
const FLUSH = 4;
const DECLARED = JSON.stringify([
  { address: CHAIN, owner: DEV[0].address, tokenSupply: '0x' + SUPPLY.toString(16), exchangeRate: Number(RATE), flushRound: FLUSH },
]);
const [OWNER, ALICE, BOB] = DEV;
const dappBase = bytesToHex(contractAddress(hexToBytes(OWNER.address), 0n));
const dapp = bytesToHex(contractAddress(hexToBytes(OWNER.address), 1n));

let node: TestNode;
let scs: Scs;
const datadir = testDir(t);
const start = async () => {
  node = await startNode(datadir, ['--mining.mode', 'instant', '--appChains', DECLARED]);
  scs = scsOf(node);
};
t.before(start);
t.teardown(() => node.stop());

/** The next flush height after the main-chain head (flushes every FLUSH blocks from block 0). */
const nextFlush = async () => (Math.floor(Number(await node.rpc('mc_blockNumber')) / FLUSH) + 1) * FLUSH;

t.test('the declared app chain, before any Dapp', async (t) => {
  t.same(await scs.rpc('scs_getMicroChainList'), [CHAIN]);
  t.same(await scs.rpc('scs_getAppChainList'), [CHAIN]);
  const info = await scs.rpc('scs_getMicroChainInfo', [CHAIN]);
  t.same(info, {
    balance: '0x0', blockReward: '0x1c6bf52634000', bondLimit: '0xde0b6b3a7640000',
    owner: '0xc4C4FB5146A694D58521B4A135564765B6cEC4Fa', scsList: [info.scsList[0]], txReward: '0x174876e800', viaReward: '0x9184e72a000',
  });
  t.equal(info.scsList[0].toLowerCase(), await scs.rpc('scs_getSCSId'), 'the SCS serves it');
  t.equal(await scs.rpc('scs_getDappState', [CHAIN]), 0);
  t.same(await scs.rpc('scs_getDappList', [CHAIN]), []);
  t.equal(await scs.rpc('scs_getBlockNumber', [CHAIN]), '0x0');
  t.equal(await scs.rpc('scs_getNonce', [CHAIN, OWNER.address]), 0);
  const genesis = await scs.rpc('scs_getBlock', [CHAIN, '0x0']);
  t.equal(genesis.number, '0x0');
  t.equal(genesis.parentHash, '0x' + '00'.repeat(32));
  t.same(genesis.transactions, []);
});

t.test('deploy the DappBase (flag 3): it takes the token supply and whatever the deploy carries', async (t) => {
  const tx = deployTx(OWNER.key, { chain: CHAIN, nonce: 0n, value: 7n }, dappBaseCode());
  const receipt = await sendApp(node, scs, CHAIN, tx);
  t.equal(receipt.contractAddress, dappBase, 'CREATE(sender, app-chain nonce)');
  t.equal(receipt.status, '0x1');
  t.equal(receipt.failed, false);
  t.equal(receipt.blockNumber, '0x1', 'the first transaction is in block 1');
  t.equal(await scs.rpc('scs_getDappState', [CHAIN]), 1);
  t.same(await scs.rpc('scs_getDappAddrList', [CHAIN]), [dappBase]);
  t.equal(await scs.rpc('scs_getNonce', [CHAIN, OWNER.address]), 1);
  t.equal(await appBalance(scs, CHAIN, dappBase), SUPPLY + 7n);
  t.equal(await appBalance(scs, CHAIN, OWNER.address), 0n, 'the carried value is minted, not taken from the deployer');
  t.equal((await scs.rpc('scs_getMicroChainInfo', [CHAIN])).balance, '0x' + (SUPPLY + 7n).toString(16));
  t.equal(await node.rpc('mc_getTransactionByHash', [tx.hash]), null, 'never on the main chain');
  t.equal(await node.rpc('mc_getTransactionCount', [OWNER.address, 'latest']), '0x0', 'main-chain nonce untouched');
});

t.test('deploy a Dapp and register it in the DappBase', async (t) => {
  const deployed = await sendApp(node, scs, CHAIN, deployTx(OWNER.key, { chain: CHAIN, nonce: 1n }, counter().bytecode));
  t.equal(deployed.contractAddress, dapp);
  t.same(await scs.rpc('scs_getDappList', [CHAIN]), [dappBase], 'a plain deploy is not listed');
  const register = callData('registerDapp(address,address,string)', hexToBytes(dapp), hexToBytes(OWNER.address), JSON.stringify(counter().abi));
  const receipt = await sendApp(node, scs, CHAIN, callTx(OWNER.key, { chain: CHAIN, nonce: 2n }, dappBase, register));
  t.equal(receipt.status, '0x1');
  t.equal(receipt.result, '0x', 'a call receipt carries its return value');
  t.equal(receipt.logs.length, 1);
  const log = receipt.logs[0];
  t.equal(log.address, dappBase);
  t.equal(log.topics[1], '0x' + dapp.slice(2).padStart(64, '0'));
  t.equal(log.data, '', 'no unindexed data: empty base64');
  t.equal(log.blockNumber, Number(receipt.blockNumber), 'log numbers are plain numbers');
  t.equal(log.logIndex, 0);
  t.equal(log.removed, false);
  t.same(await scs.rpc('scs_getDappList', [CHAIN]), [dappBase, dapp]);
  t.same(await scs.debug('GetDappAddrList', { SubChainAddr: CHAIN }), [dappBase, dapp]);
  const list = await scs.rpc('scs_directCall', [{ to: CHAIN, data: dappBase + callData('getDappList()').slice(2) }]);
  t.ok(list.includes(dapp.slice(2)), 'the DappBase lists it too');

  // Only the owner may register: the call fails and nothing is listed.
  const refused = await sendApp(node, scs, CHAIN, callTx(ALICE.key, { chain: CHAIN, nonce: 0n }, dappBase, register));
  t.equal(refused.status, '0x0');
  t.equal(refused.failed, true);
  t.equal(await scs.rpc('scs_getNonce', [CHAIN, ALICE.address]), 1, 'a failed transaction still uses its nonce');
  t.equal((await scs.rpc('scs_getDappList', [CHAIN])).length, 2);
});

t.test('call the Dapp and read it with scs_directCall and AnyCall', async (t) => {
  const receipt = await sendApp(node, scs, CHAIN, callTx(OWNER.key, { chain: CHAIN, nonce: 3n }, dapp, callData('increment(uint256)', 5n)));
  t.equal(receipt.result, '0x' + '5'.padStart(64, '0'));
  t.equal(Buffer.from(receipt.logs[0].data, 'base64').toString('hex'), '5'.padStart(64, '0') + '5'.padStart(64, '0'));

  const get = callData('get()');
  t.equal(await scs.rpc('scs_directCall', [{ to: CHAIN, data: dapp + get.slice(2) }]), '0x' + '5'.padStart(64, '0'));
  t.equal(await scs.rpc('scs_directCall', [{ from: ALICE.address, to: CHAIN, dappAddr: dapp, data: get }]), '0x' + '5'.padStart(64, '0'));
  t.equal(await scs.rpc('scs_directCall', [{ to: CHAIN, dappAddr: dapp, data: get }, '0x2']), '0x' + '0'.padStart(64, '0'), 'at an earlier block');
  const reverted = await scs.call('scs_directCall', [{ to: CHAIN, dappAddr: dapp, data: callData('fail()') }]);
  t.equal(reverted.error?.code, 3);
  t.equal(reverted.error?.message, 'execution reverted: counter says no');

  const any = (Params: unknown[], Sender = OWNER.address) => scs.debug('AnyCall', { SubChainAddr: CHAIN, DappAddr: dapp, Sender, Params });
  t.equal(await any(['get']), '5');
  t.equal(await any(['count']), '5');
  t.same(await any(['info', OWNER.address]), ['5', OWNER.address, 'counter', true], 'several outputs → an array');
  t.equal(await any(['sum', [1, '2', '0x3'], -10]), '-4');
  t.same(await any(['echo', '0x1234', '0xdeadbeef', [1, 2]]), ['0x1234', '0xdeadbeef', ['1', '2']]);
  t.equal(await any(['label']), 'counter');
  const unregistered = await scs.debug('AnyCall', { SubChainAddr: CHAIN, DappAddr: dappBase, Sender: OWNER.address, Params: ['dappCount'] }).catch((e) => e.rpcError);
  t.equal(unregistered.code, -32000);
  t.match(unregistered.message, /is not registered/);
  const unknownFn = await any(['nope']).catch((e) => e.rpcError);
  t.equal(unknownFn.code, -32602);
  const revert = await any(['fail']).catch((e) => e.rpcError);
  t.equal(revert.code, 3);
});

t.test('deposit: a Depositing record, then a Deposit record and tokens at the flush', async (t) => {
  const deposit = await sendMain(node, ALICE.key, { nonce: 0n, to: hexToBytes(CHAIN), value: 2n * MC, data: hexToBytes('0x6bbded70'), gas: 50_000n });
  t.equal(deposit.status, '0x1');
  t.equal(await mainBalance(node, CHAIN), 2n * MC, 'the value lands on the app chain address');
  const block = await node.rpc('mc_getBlockByNumber', [deposit.blockNumber, false]);
  const info = await scs.rpc('scs_getExchangeInfo', [CHAIN, 0, 10, 0, 10]);
  t.same(info, {
    DepositingRecordCount: 1,
    DepositingRecords: [{ DepositingAmt: '0x1bc16d674ec80000', Depositingtime: block.timestamp }],
    WithdrawingRecordCount: 0,
    WithdrawingRecords: null,
    microchain: CHAIN,
    scsid: await scs.rpc('scs_getSCSId'),
  });
  const appHeight = BigInt(await scs.rpc('scs_getBlockNumber', [CHAIN]));
  const baseBefore = await appBalance(scs, CHAIN, dappBase);

  await advanceTo(node, await nextFlush());
  t.equal(await appBalance(scs, CHAIN, ALICE.address), 2n * MC * RATE, 'value × rate');
  t.equal(await appBalance(scs, CHAIN, dappBase), baseBefore - 2n * MC * RATE, 'taken from the DappBase');
  const flushBlock = await scs.rpc('scs_getBlock', [CHAIN, 'latest']);
  t.equal(BigInt(flushBlock.number), appHeight + 1n, 'the flush made one app-chain block');
  t.same(flushBlock.transactions, [], 'with no transactions');
  const mine = await scs.rpc('scs_getExchangeByAddress', [CHAIN, ALICE.address, 0, 10, 0, 10, 0, 10, 0, 10]);
  t.equal(mine.DepositRecordCount, 1);
  t.equal(mine.DepositRecords[0].DepositAmt, '0x1bc16d674ec80000', 'in sha, as sent');
  t.equal(mine.DepositRecords[0].Deposittime, flushBlock.timestamp);
  t.equal(mine.DepositingRecordCount, 0);
  t.equal(mine.DepositingRecords, null);
  t.equal(mine.sender, ALICE.address);
});

t.test('transfer app-chain tokens (flag 2)', async (t) => {
  const receipt = await sendApp(node, scs, CHAIN, transferTx(ALICE.key, { chain: CHAIN, nonce: 1n, value: 300n * MC }, BOB.address));
  t.equal(receipt.status, '0x1');
  t.equal(await appBalance(scs, CHAIN, BOB.address), 300n * MC);
  t.equal(await appBalance(scs, CHAIN, ALICE.address), 2000n * MC - 300n * MC);
  const tooMuch = await sendApp(node, scs, CHAIN, transferTx(BOB.key, { chain: CHAIN, nonce: 0n, value: 301n * MC }, ALICE.address));
  t.equal(tooMuch.failed, true, 'more than the balance fails');
  t.equal(await appBalance(scs, CHAIN, BOB.address), 300n * MC);
});

t.test('withdraw: a Withdrawing record, then the main chain pays value / rate at the flush', async (t) => {
  const amount = 500n * MC; // 0.5 mc back at rate 1000
  const receipt = await sendApp(node, scs, CHAIN, callTx(ALICE.key, { chain: CHAIN, nonce: 2n, value: amount }, dappBase, '0x89739c5b'));
  t.equal(receipt.status, '0x1');
  const pending = await scs.rpc('scs_getExchangeByAddress', [CHAIN, ALICE.address, 0, 10, 0, 10, 0, 10, 0, 10]);
  t.equal(pending.WithdrawingRecordCount, 1);
  t.equal(pending.WithdrawingRecords[0].WithdrawingAmt, '0x' + amount.toString(16), 'in app-chain base units');
  t.equal(pending.WithdrawRecords, null);
  const aliceBefore = await mainBalance(node, ALICE.address);
  const chainBefore = await mainBalance(node, CHAIN);

  const flush = await nextFlush();
  await advanceTo(node, flush);
  t.equal(await mainBalance(node, ALICE.address), aliceBefore + amount / RATE);
  t.equal(await mainBalance(node, CHAIN), chainBefore - amount / RATE);
  const done = await scs.rpc('scs_getExchangeByAddress', [CHAIN, ALICE.address, 0, 10, 0, 10, 0, 10, 0, 10]);
  t.equal(done.WithdrawingRecordCount, 0);
  t.equal(done.WithdrawRecordCount, 1);
  const flushBlock = await node.rpc('mc_getBlockByNumber', ['0x' + flush.toString(16), false]);
  t.same(done.WithdrawRecords, [{ WithdrawAmt: '0x' + amount.toString(16), Withdrawtime: flushBlock.timestamp }]);
  t.equal(await scs.debug('GetDappState', { SubChainAddr: CHAIN, Sender: OWNER.address }), 1);
});

t.test('record pages: index and count, totals, null pages, numbers or hex', async (t) => {
  for (let i = 1n; i <= 3n; i++) {
    const nonce = BigInt(await node.rpc('mc_getTransactionCount', [BOB.address, 'pending']));
    await sendMain(node, BOB.key, { nonce, to: hexToBytes(CHAIN), value: i * MC, data: hexToBytes('0x6bbded70'), gas: 50_000n });
  }
  const page = await scs.rpc('scs_getExchangeInfo', [CHAIN, 1, 1, '0x0', '0x5']);
  t.equal(page.DepositingRecordCount, 3, 'the total');
  t.same(page.DepositingRecords.map((r: any) => r.DepositingAmt), ['0x1bc16d674ec80000'], 'the second record only');
  t.equal((await scs.rpc('scs_getExchangeInfo', [CHAIN, '0x2', '0x14', 0, 20])).DepositingRecords.length, 1);
  t.equal((await scs.rpc('scs_getExchangeInfo', [CHAIN, 3, 20, 0, 20])).DepositingRecords, null, 'past the end');
  const debugPage = await scs.debug('GetExchangeInfo', { SubChainAddr: CHAIN, EnteringRecordIndex: '0x0', EnteringRecordSize: 2, RedeemingRecordIndex: 0, RedeemingRecordSize: 2 });
  t.equal(debugPage.DepositingRecordCount, 3);
  t.same(debugPage.DepositingRecords.map((r: any) => r.DepositingAmt), [1e18, 2e18]);
  const text = await scs.debugText('GetExchangeInfo', { SubChainAddr: CHAIN, EnteringRecordSize: 1 });
  t.match(text, /"DepositingAmt":1000000000000000000,/, 'exact JSON numbers');
  await advanceTo(node, await nextFlush());
  const bob = await scs.debug('GetExchangeByAddress', {
    SubChainAddr: CHAIN, Sender: BOB.address, EnterRecordIndex: 0, EnterRecordSize: 10, EnteringRecordIndex: 0, EnteringRecordSize: 10,
    RedeemRecordIndex: 0, RedeemRecordSize: 10, RedeemingRecordIndex: 0, RedeemingRecordSize: 10,
  });
  t.equal(bob.DepositRecordCount, 3);
  t.equal(bob.DepositingRecords, null);
  t.equal(bob.WithdrawRecords, null);
});

t.test('restart: everything is read back from the database', async (t) => {
  const before = {
    height: await scs.rpc('scs_getBlockNumber', [CHAIN]),
    head: await scs.rpc('scs_getBlock', [CHAIN, 'latest']),
    dapps: await scs.rpc('scs_getDappList', [CHAIN]),
    alice: await scs.rpc('scs_getBalance', [CHAIN, ALICE.address]),
    exchange: await scs.rpc('scs_getExchangeByAddress', [CHAIN, ALICE.address, 0, 10, 0, 10, 0, 10, 0, 10]),
    tx: await scs.rpc('scs_getTransactionByNonce', [CHAIN, OWNER.address, 3]),
    scsId: await scs.rpc('scs_getSCSId'),
  };
  await node.stop();
  await start();
  t.equal(await scs.rpc('scs_getBlockNumber', [CHAIN]), before.height);
  t.same(await scs.rpc('scs_getBlock', [CHAIN, 'latest']), before.head);
  t.same(await scs.rpc('scs_getDappList', [CHAIN]), before.dapps);
  t.equal(await scs.rpc('scs_getBalance', [CHAIN, ALICE.address]), before.alice);
  t.same(await scs.rpc('scs_getExchangeByAddress', [CHAIN, ALICE.address, 0, 10, 0, 10, 0, 10, 0, 10]), before.exchange);
  t.same(await scs.rpc('scs_getTransactionByNonce', [CHAIN, OWNER.address, 3]), before.tx);
  t.equal(await scs.rpc('scs_getSCSId'), before.scsId, 'the SCS id is stable');
  t.equal(await scs.debug('AnyCall', { SubChainAddr: CHAIN, DappAddr: dapp, Sender: OWNER.address, Params: ['get'] }), '5', 'the ABI is kept');
  t.equal(await scs.rpc('scs_getNonce', [CHAIN, OWNER.address]), 4);
  // And the chain goes on from there.
  const receipt = await sendApp(node, scs, CHAIN, callTx(OWNER.key, { chain: CHAIN, nonce: 4n }, dapp, callData('increment(uint256)', 1n)));
  t.equal(BigInt(receipt.blockNumber), BigInt(before.height) + 1n);
  t.equal(await scs.debug('AnyCall', { SubChainAddr: CHAIN, DappAddr: dapp, Sender: OWNER.address, Params: ['get'] }), '6');
  await waitFor(async () => (await scs.rpc('scs_getTxpool', [CHAIN])).pending, 'pool');
});
