// ots_* and erigon_getHeaderByNumber against a real node, for the actions of
// test/helpers/explorerScenario.ts: values asserted one by one (internal operations, flat traces,
// block details and fees, search pages, sender+nonce, contract creators).

import t from 'tap';
import { startNode, type TestNode } from '../../helpers/node.js';
import { runScenario, type Scenario } from '../../helpers/explorerScenario.js';
import { contract } from '../../helpers/abi.js';
import { testDir } from '../../helpers/testDir.js';

let node: TestNode;
let s: Scenario;

t.before(async () => {
  node = await startNode(testDir(t), ['--mining.mode', 'instant', '--minerthreads', '1']);
  s = await runScenario(node.rpc);
});
t.teardown(() => node.stop());

const receipt = (hash: string) => node.rpc('mc_getTransactionReceipt', [hash]);

t.test('ots_getApiLevel and ots_hasCode', async (t) => {
  t.equal(await node.rpc('ots_getApiLevel'), 8);
  t.equal(await node.rpc('ots_hasCode', [s.ops, 'latest']), true);
  t.equal(await node.rpc('ots_hasCode', [s.payee, 'latest']), false);
  t.equal(await node.rpc('ots_hasCode', [s.ops, '0x0']), false, 'no code before its deployment');
  t.equal(await node.rpc('ots_hasCode', [s.children[1], 'latest']), true);
});

t.test('ots_getInternalOperations: transfers, CREATE, CREATE2, SELFDESTRUCT below the top frame', async (t) => {
  t.same(await node.rpc('ots_getInternalOperations', [s.forward]), [{ type: 0, from: s.ops, to: s.payee, value: '0x64' }]);
  t.same(await node.rpc('ots_getInternalOperations', [s.make]), [
    { type: 2, from: s.ops, to: s.children[0], value: '0x10' },
    { type: 3, from: s.ops, to: s.children[1], value: '0x0' },
    { type: 1, from: s.children[0], to: s.from, value: '0x10' },
  ]);
  t.same(await node.rpc('ots_getInternalOperations', [s.shout]), [], 'console calls move no value');
  const missing = await node.call('ots_getInternalOperations', ['0x' + '11'.repeat(32)]);
  t.match(missing.error?.message, /not found/);
});

t.test('ots_getTransactionError: the revert data, or 0x', async (t) => {
  const reason = Buffer.from('ops failed').toString('hex');
  const err = await node.rpc('ots_getTransactionError', [s.fail]);
  t.match(err, /^0x08c379a0/);
  t.ok(err.includes(reason), 'Error(string) with the reason');
  t.equal(await node.rpc('ots_getTransactionError', [s.forward]), '0x');
});

t.test('ots_traceTransaction: every frame in order with its depth', async (t) => {
  const trace = await node.rpc('ots_traceTransaction', [s.make]);
  t.same(trace.map((f: any) => [f.type, f.depth, f.from, f.to]), [
    ['CALL', 0, s.from, s.ops],
    ['CREATE', 1, s.ops, s.children[0]],
    ['CREATE2', 1, s.ops, s.children[1]],
    ['CALL', 1, s.ops, s.children[0]],
    ['SELFDESTRUCT', 2, s.children[0], s.from],
  ]);
  t.equal(trace[0].value, '0x10');
  t.equal(trace[1].output, contract('Child').deployed, 'a creation returns the code');
  const shout = await node.rpc('ots_traceTransaction', [s.shout]);
  t.same(shout.map((f: any) => f.type), ['CALL', 'STATICCALL', 'STATICCALL', 'STATICCALL']);
  t.equal(shout[1].value, null, 'a STATICCALL carries no value');
  t.equal(shout[1].to, '0x000000000000000000636f6e736f6c652e6c6f67');
});

t.test('ots_getBlockDetails / ByHash: no transactions, their count, issuance and fees', async (t) => {
  const r = await receipt(s.forward);
  const tx = await node.rpc('mc_getTransactionByHash', [s.forward]);
  const number = Number(r.blockNumber);
  const details = await node.rpc('ots_getBlockDetails', [number]);
  t.equal(details.block.hash, r.blockHash);
  t.equal(details.block.transactionCount, 1);
  t.notOk('transactions' in details.block);
  t.equal(details.totalFees, '0x' + (BigInt(r.gasUsed) * BigInt(tx.gasPrice)).toString(16));
  t.equal(details.issuance.blockReward, '0x1bc16d674ec80000', '2 mc, the devnet reward');
  t.equal(details.issuance.issuance, details.issuance.blockReward);
  t.same(await node.rpc('ots_getBlockDetailsByHash', [r.blockHash]), details);
  t.equal(await node.rpc('ots_getBlockDetails', [10_000]), null);
});

t.test('ots_getBlockTransactions: one page with receipts and timestamps', async (t) => {
  const r = await receipt(s.make);
  const page = await node.rpc('ots_getBlockTransactions', [Number(r.blockNumber), 0, 10]);
  t.equal(page.fullblock.transactionCount, 1);
  t.equal(page.fullblock.transactions[0].hash, s.make);
  t.equal(page.receipts[0].transactionHash, s.make);
  t.equal(page.receipts[0].timestamp, page.fullblock.timestamp);
  const beyond = await node.rpc('ots_getBlockTransactions', [Number(r.blockNumber), 1, 10]);
  t.same(beyond.fullblock.transactions, []);
  t.same(beyond.receipts, []);
});

t.test('ots_searchTransactionsBefore / After: pages of whole blocks, newest first', async (t) => {
  const all = [s.fail, s.shout, s.make, s.forward, s.deploy];
  const first = await node.rpc('ots_searchTransactionsBefore', [s.ops, 0, 2]);
  t.same(first.txs.map((x: any) => x.hash), all.slice(0, 2));
  t.same(first.receipts.map((x: any) => x.transactionHash), all.slice(0, 2));
  t.equal(first.firstPage, true);
  t.equal(first.lastPage, false);
  const oldest = Number(first.txs[1].blockNumber);
  const next = await node.rpc('ots_searchTransactionsBefore', [s.ops, oldest, 10]);
  t.same(next.txs.map((x: any) => x.hash), all.slice(2));
  t.equal(next.firstPage, false);
  t.equal(next.lastPage, true);
  const after = await node.rpc('ots_searchTransactionsAfter', [s.ops, 0, 2]);
  t.same(after.txs.map((x: any) => x.hash), [s.forward, s.deploy], 'the oldest two, newest first');
  t.equal(after.lastPage, true);
  t.equal(after.firstPage, false);
  // Internal calls count: the payee only received value from the contract, the sender of make a refund.
  const payee = await node.rpc('ots_searchTransactionsBefore', [s.payee, 0, 25]);
  t.same(payee.txs.map((x: any) => x.hash), [s.forward]);
  const child = await node.rpc('ots_searchTransactionsBefore', [s.children[1], 0, 25]);
  t.same(child.txs.map((x: any) => x.hash), [s.make], 'a contract created inside a transaction');
  const none = await node.rpc('ots_searchTransactionsBefore', ['0x' + '12'.repeat(20), 0, 25]);
  t.same(none, { txs: [], receipts: [], firstPage: true, lastPage: true });
});

t.test('ots_getTransactionBySenderAndNonce and ots_getContractCreator', async (t) => {
  t.equal(await node.rpc('ots_getTransactionBySenderAndNonce', [s.from, 0]), s.deploy);
  t.equal(await node.rpc('ots_getTransactionBySenderAndNonce', [s.from, 2]), s.make);
  t.equal(await node.rpc('ots_getTransactionBySenderAndNonce', [s.from, 99]), null);
  t.same(await node.rpc('ots_getContractCreator', [s.ops]), { hash: s.deploy, creator: s.from });
  t.same(await node.rpc('ots_getContractCreator', [s.children[1]]), { hash: s.make, creator: s.ops }, 'CREATE2 inside a call');
  t.equal(await node.rpc('ots_getContractCreator', [s.payee]), null, 'an account without code');
});

t.test('erigon_getHeaderByNumber', async (t) => {
  const block = await node.rpc('mc_getBlockByNumber', ['0x1', false]);
  t.same(await node.rpc('erigon_getHeaderByNumber', [1]), block);
  t.equal(await node.rpc('erigon_getHeaderByNumber', [10_000]), null);
});
