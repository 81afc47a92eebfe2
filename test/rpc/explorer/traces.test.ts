// trace_* against a real node for the actions of test/helpers/explorerScenario.ts, and the
// console.log lines those actions print (transactions, calls, estimates, traces), with a second
// node run with --no-console-log that must agree on every gas figure.

import t from 'tap';
import path from 'node:path';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { SHOUT_DATA, runScenario, type Scenario } from '../../helpers/explorerScenario.js';
import { encodeCall } from '../../helpers/abi.js';
import { toChecksumAddress } from '../../../src/encoding/address.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

let node: TestNode;
let quiet: TestNode;
let s: Scenario;
let q: Scenario;

const ARGS = ['--mining.mode', 'instant', '--minerthreads', '1'];

t.before(async () => {
  const dir = testDir(t);
  [node, quiet] = await Promise.all([startNode(path.join(dir, 'logged'), ARGS), startNode(path.join(dir, 'quiet'), [...ARGS, '--no-console-log'])]);
  [s, q] = await Promise.all([runScenario(node.rpc), runScenario(quiet.rpc)]);
});
t.teardown(() => Promise.all([node?.stop(), quiet?.stop()]));

const receipt = (n: TestNode, hash: string) => n.rpc('mc_getTransactionReceipt', [hash]);
const consoleLines = (n: TestNode) => n.stderr().split('\n').filter((l) => l.includes('console.log: '));

t.test('console.log: mined transactions, calls, estimates and traces print their lines', async (t) => {
  const sender = toChecksumAddress(hexToBytes((await node.rpc('eth_accounts'))[0]));
  const lines = await waitFor(async () => {
    const found = consoleLines(node);
    return found.length >= 4 ? found : undefined;
  }, 'console lines of the mined transactions');
  t.match(lines[0], `console.log: hi 5 tx=${s.shout}`);
  t.match(lines[1], `console.log: sender ${sender} tx=${s.shout}`, 'addresses print checksummed');
  t.match(lines[2], `console.log: true tx=${s.shout}`);
  t.match(lines[3], `console.log: about to fail 3 tx=${s.fail}`, 'a reverted transaction prints its lines too');
  t.equal(lines.length, 4, 'each mined transaction prints once; block traces and trace_filter print nothing');

  await node.rpc('mc_call', [{ from: s.from, to: s.ops, data: SHOUT_DATA }, 'latest']);
  t.same(consoleLines(node).slice(4).map((l) => l.replace(/^.*console\.log: /, '')), ['hi 5 tx=call', `sender ${sender} tx=call`, 'true tx=call']);
  await node.rpc('mc_estimateGas', [{ from: s.from, to: s.ops, data: SHOUT_DATA }]);
  t.equal(consoleLines(node).length, 10, 'an estimate prints once, not for every step of its search');
  t.notOk((await node.ipcCall('debug_traceTransaction', [s.shout, { tracer: 'callTracer' }])).error);
  t.same(consoleLines(node).slice(10).map((l) => l.replace(/^.*tx=/, '')), [s.shout, s.shout, s.shout], 'a trace prints the traced transaction');
  await node.rpc('trace_transaction', [s.fail]);
  t.match(consoleLines(node)[13], `about to fail 3 tx=${s.fail}`);
  await node.rpc('ots_traceTransaction', [s.shout]);
  t.equal(consoleLines(node).length, 14, 'the explorer\'s own traces print nothing');
});

t.test('trace_transaction: calls, creations and the self-destruct as OpenEthereum lists them', async (t) => {
  const traces = await node.rpc('trace_transaction', [s.make]);
  const r = await receipt(node, s.make);
  t.same(traces.map((x: any) => [x.type, x.traceAddress, x.subtraces]), [
    ['call', [], 3], ['create', [0], 0], ['create', [1], 0], ['call', [2], 1], ['suicide', [2, 0], 0],
  ]);
  for (const x of traces) {
    t.equal(x.transactionHash, s.make);
    t.equal(x.blockHash, r.blockHash);
    t.equal(x.blockNumber, Number(r.blockNumber));
    t.equal(x.transactionPosition, 0);
  }
  t.same(traces[0].action, { from: s.from, callType: 'call', gas: traces[0].action.gas, input: encodeCall('make(bytes32)', 7), to: s.ops, value: '0x10' });
  t.equal(traces[1].action.creationMethod, 'create');
  t.equal(traces[2].action.creationMethod, 'create2');
  t.equal(traces[1].result.address, s.children[0]);
  t.equal(traces[2].result.address, s.children[1]);
  t.same(traces[4].action, { address: s.children[0], balance: '0x10', refundAddress: s.from });
  t.equal(traces[4].result, null);
  // The top frame's gas is what the transaction had after intrinsic gas; what it used plus intrinsic is at least the receipt's (refunds).
  const fail = await node.rpc('trace_transaction', [s.fail]);
  t.equal(fail[0].error, 'Reverted');
  t.match(fail[0].result.output, /^0x08c379a0/);
  t.equal(fail[1].action.callType, 'staticcall');
  t.equal(await node.rpc('trace_transaction', ['0x' + '11'.repeat(32)]), null);
});

t.test('trace_block ends with the reward; trace_filter matches senders and recipients', async (t) => {
  const r = await receipt(node, s.forward);
  const block = await node.rpc('trace_block', [r.blockNumber]);
  t.same(block.map((x: any) => x.type), ['call', 'call', 'reward']);
  t.same(block[2].action, { author: s.from, rewardType: 'block', value: '0x1bc16d674ec80000' });
  const toPayee = await node.rpc('trace_filter', [{ fromBlock: '0x1', toBlock: 'latest', toAddress: [s.payee] }]);
  t.same(toPayee.map((x: any) => [x.transactionHash, x.traceAddress, x.action.value]), [[s.forward, [0], '0x64']]);
  const fromOps = await node.rpc('trace_filter', [{ fromBlock: '0x1', toBlock: 'latest', fromAddress: [s.ops] }]);
  t.equal(fromOps.length, 1 + 3 + 3 + 1, 'forward 1, make 3 (the self-destruct is the child\'s), shout 3 console calls, fail 1');
  const paged = await node.rpc('trace_filter', [{ fromBlock: '0x1', toBlock: 'latest', fromAddress: [s.ops], after: 2, count: 2 }]);
  t.same(paged, fromOps.slice(2, 4));
  const rewards = await node.rpc('trace_filter', [{ fromBlock: '0x1', toBlock: '0x2', toAddress: [s.from] }]);
  t.same(rewards.map((x: any) => x.type), ['reward', 'reward']);
  const backwards = await node.call('trace_filter', [{ fromBlock: '0x3', toBlock: '0x1' }]);
  t.equal(backwards.error?.code, -32000, 'a backwards range is refused as mc_getLogs refuses it');
});

t.test('trace_replayTransaction / BlockTransactions / trace_call: trace and stateDiff', async (t) => {
  const replay = await node.rpc('trace_replayTransaction', [s.forward, ['trace', 'stateDiff']]);
  t.equal(replay.vmTrace, null);
  t.same(replay.trace.map((x: any) => x.traceAddress), [[], [0]]);
  t.notOk('blockHash' in replay.trace[0]);
  const payee = replay.stateDiff[s.payee];
  t.equal(BigInt(payee.balance['*'].to) - BigInt(payee.balance['*'].from), 100n, 'the payee received 0x64');
  t.equal(payee.nonce, '=');
  t.equal(replay.stateDiff[s.ops], undefined, 'the contract passed the value on: no change');
  const sender = replay.stateDiff[s.from];
  t.same(sender.nonce, { '*': { from: '0x1', to: '0x2' } });
  const created = await node.rpc('trace_replayTransaction', [s.deploy, ['stateDiff']]);
  t.same(created.trace, []);
  t.same(created.stateDiff[s.ops].nonce, { '+': '0x1' }, 'a created account is born (+)');
  t.match(created.stateDiff[s.ops].code['+'], /^0x6080/);
  const r = await receipt(node, s.make);
  const block = await node.rpc('trace_replayBlockTransactions', [r.blockNumber, ['trace']]);
  t.equal(block.length, 1);
  t.equal(block[0].transactionHash, s.make);
  t.equal(block[0].stateDiff, null);
  t.equal(block[0].trace.length, 5);
  const call = await node.rpc('trace_call', [{ from: s.from, to: s.ops, data: SHOUT_DATA }, ['trace'], 'latest']);
  t.equal(call.output, '0x' + (6).toString(16).padStart(64, '0'), 'shout returns n + 1');
  t.same(call.trace.map((x: any) => x.action.callType), ['call', 'staticcall', 'staticcall', 'staticcall']);
  const bad = await node.call('trace_call', [{ to: s.ops }, ['bogus'], 'latest']);
  t.equal(bad.error?.code, -32602);
});

t.test('--no-console-log: nothing printed, the same gas everywhere', async (t) => {
  t.same(consoleLines(quiet), []);
  for (const name of ['deploy', 'forward', 'make', 'shout', 'fail'] as const) {
    t.equal((await receipt(quiet, q[name])).gasUsed, (await receipt(node, s[name])).gasUsed, `${name}: the same gas used`);
  }
  const estimate = (n: TestNode, x: Scenario) => n.rpc('mc_estimateGas', [{ from: x.from, to: x.ops, data: SHOUT_DATA }]);
  t.equal(await estimate(quiet, q), await estimate(node, s));
  const call = (n: TestNode, x: Scenario) => n.rpc('mc_call', [{ from: x.from, to: x.ops, data: SHOUT_DATA }, 'latest']);
  t.equal(await call(quiet, q), await call(node, s));
  t.same(consoleLines(quiet), []);
});
