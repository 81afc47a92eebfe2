// State and block overrides through the RPC (design.md §17): eth_call, eth_estimateGas and
// debug_traceCall on a running node that verifies every interpreter answer on the library EVM
// (--rpc.fastcall.verify 1: /metrics counts no disagreement), geth's errors, nothing left behind,
// and the chain-agnostic cases answered as the real Anvil answers them.

import t from 'tap';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV } from '../../helpers/accounts.js';
import { asm } from '../../helpers/evmAsm.js';
import { fastCallCounters } from '../../helpers/fastCallMetrics.js';
import { anvilBinary, startAnvil } from '../../helpers/anvil.js';
import { testDir } from '../../helpers/testDir.js';

let node: TestNode;
t.before(async () => {
  node = await startNode(testDir(t), ['--mining.mode', 'instant', '--rpc.fastcall.verify', '1', '--metrics', '--metrics.port', '0']);
});
t.teardown(() => node.stop());

const X = '0x' + 'c0'.repeat(20);
const Y = '0x' + 'c1'.repeat(20);
const FEE = '0x' + 'fe'.repeat(20);
const word = (n: bigint | number) => '0x' + BigInt(n).toString(16).padStart(64, '0');
const put = (i: number) => `PUSH ${i * 32} MSTORE`;
// returns Y's balance, its own slots 1 and 2, NUMBER, TIMESTAMP, COINBASE, GASLIMIT, and Y's code size
const READER = '0x' + asm([
  `PUSH20 ${Y} BALANCE ${put(0)}`, `PUSH 1 SLOAD ${put(1)}`, `PUSH 2 SLOAD ${put(2)}`,
  `NUMBER ${put(3)}`, `TIMESTAMP ${put(4)}`, `COINBASE ${put(5)}`, `GASLIMIT ${put(6)}`,
  `PUSH20 ${Y} EXTCODESIZE ${put(7)}`, `PUSH ${8 * 32} PUSH 0 RETURN`,
].join(' '));
const words = (hex: string) => Array.from({ length: (hex.length - 2) / 64 }, (_, i) => BigInt('0x' + hex.slice(2 + i * 64, 66 + i * 64)));

/** The requests compared with Anvil: results (or error codes) must be the same on both. */
const CASES: [string, unknown[]][] = [
  ['eth_call', [{ to: X }, 'latest', { [X]: { code: READER, balance: '0x1' }, [Y]: { balance: '0x1234', code: '0x6001' } }]],
  ['eth_call', [{ to: X }, 'latest', { [X]: { code: READER, state: { [word(1)]: word(7) } } }]],
  ['eth_call', [{ to: X }, 'latest', { [X]: { code: READER, stateDiff: { [word(2)]: word(9) } } }]],
  ['eth_call', [{ to: X }, 'latest', { [X]: { code: READER } }, { number: '0x1000', time: '0x99', feeRecipient: FEE, gasLimit: '0x7a1200' }]],
  ['eth_call', [{ to: X, data: '0x' }, 'latest', { [X]: { code: '0x' + asm('PUSH 0 PUSH 0 REVERT') } }]],
  ['eth_call', [{ to: X }, 'latest', { [X]: { code: READER, state: {}, stateDiff: {} } }]],
];

t.test('eth_call with overrides: the values set, verified on the library, nothing kept', async (t) => {
  const before = await fastCallCounters(node);
  const [first, second, third, fourth] = CASES;
  const a = words(await node.rpc(...first));
  t.same([a[0], a[1], a[2], a[7]], [0x1234n, 0n, 0n, 2n], 'balance and code of another account');
  const b = words(await node.rpc(...second));
  t.same([b[1], b[2]], [7n, 0n], '`state` replaces the storage');
  const c = words(await node.rpc(...third));
  t.same([c[1], c[2]], [0n, 9n], '`stateDiff` patches a slot');
  const d = words(await node.rpc(...fourth));
  t.same([d[3], d[4], d[5], d[6]], [0x1000n, 0x99n, BigInt(FEE), 8_000_000n], 'block fields');
  t.equal(await node.rpc('mc_getCode', [X, 'latest']), '0x', 'the chain has no code at X');
  t.equal(await node.rpc('mc_getBalance', [Y, 'latest']), '0x0');
  t.equal(await node.rpc('eth_call', [{ to: X }, 'latest']), '0x', 'a later call sees no override');
  const after = await fastCallCounters(node);
  t.ok(after.verified - before.verified >= 4, 'the interpreter answered and the library checked');
  t.equal(after.disagreements - before.disagreements, 0, 'both engines agree');
});

t.test("geth's errors", async (t) => {
  const both = await node.call('eth_call', [{ to: X }, 'latest', { [X]: { state: {}, stateDiff: {} } }]);
  t.same(both.error, { code: -32602, message: `invalid argument 2: account ${X} has both 'state' and 'stateDiff'` });
  const field = await node.call('eth_call', [{ to: X }, 'latest', {}, { baseFee: '0x1' }]);
  t.equal(field.error?.code, -32602);
  t.match(field.error?.message, /invalid argument 3: block override field "baseFee" is not supported/);
  const unknown = await node.call('eth_call', [{ to: X }, 'latest', { [X]: { balanse: '0x1' } }]);
  t.match(unknown.error, { code: -32602, message: /account 0xc0c0.*unknown override field "balanse"/ });
  const badSlot = await node.call('eth_call', [{ to: X }, 'latest', { [X]: { stateDiff: { '0x01': word(1) } } }]);
  t.equal(badSlot.error?.code, -32602);
  const five = await node.call('eth_call', [{ to: X }, 'latest', {}, {}, {}]);
  t.match(five.error, { code: -32602, message: /too many arguments, want at most 4/ });
});

t.test('eth_estimateGas with a state override', async (t) => {
  // reverts unless slot 1 is set
  const gate = '0x' + asm('PUSH 1 SLOAD &ok JUMPI PUSH 0 PUSH 0 REVERT :ok STOP');
  const reverted = await node.call('eth_estimateGas', [{ from: DEV[1].address, to: X }, 'latest', { [X]: { code: gate } }]);
  t.equal(reverted.error?.code, 3, 'reverts without the slot');
  const open = await node.rpc('eth_estimateGas', [{ from: DEV[1].address, to: X }, 'latest', { [X]: { code: gate, stateDiff: { [word(1)]: word(1) } } }]);
  const plain = await node.rpc('eth_estimateGas', [{ from: DEV[1].address, to: Y }, 'latest']);
  t.equal(BigInt(open), BigInt(plain) + 217n, 'the intrinsic gas and the gate');
});

t.test('debug_traceCall with overrides', async (t) => {
  const trace = await node.rpc('debug_traceCall', [{ to: X }, 'latest', {
    tracer: 'callTracer', stateOverrides: { [X]: { code: READER }, [Y]: { balance: '0x77' } }, blockOverrides: { number: '0x4242' },
  }]);
  const out = words(trace.output);
  t.same([out[0], out[3]], [0x77n, 0x4242n]);
  const prestate = await node.rpc('debug_traceCall', [{ to: X }, 'latest', { tracer: 'prestateTracer', stateOverrides: { [X]: { code: '0x6001600155', balance: '0x5' } } }]);
  t.equal(prestate[X.toLowerCase()].code, '0x6001600155', 'the prestate shows the overridden code');
  t.equal(prestate[X.toLowerCase()].balance, '0x5');
  const bad = await node.call('debug_traceCall', [{ to: X }, 'latest', { blockOverrides: { prevRandao: word(1) } }]);
  t.match(bad.error, { code: -32602, message: /invalid argument 2: field "blockOverrides": block override field "prevRandao"/ });
});

t.test('the chain-agnostic cases agree with Anvil', { skip: anvilBinary() ? false : 'no anvil binary' }, async (t) => {
  const anvil = await startAnvil();
  t.teardown(() => anvil.stop());
  for (const [method, params] of CASES) {
    const [ours, theirs] = [await node.call(method, params), await anvil.call(method, params)];
    const label = JSON.stringify(params).slice(0, 120);
    if (theirs.error) {
      // Anvil answers state with stateDiff with -32603; geth and mcnode with -32602
      t.equal(ours.error?.code, theirs.error.code === -32603 ? -32602 : theirs.error.code, `error ${label}: ${theirs.error.message}`);
      continue;
    }
    const w = [words(ours.result), words(theirs.result)];
    // the block fields not overridden differ between two chains: compare what the case sets
    const same = params.length > 3 ? [0, 1, 2, 3, 4, 5, 7] : [0, 1, 2, 7];
    t.same(same.map((i) => w[0][i]), same.map((i) => w[1][i]), label);
  }
});

t.test('an opcode of a later hardfork is named, in calls and estimates', async (t) => {
  // what default solc (Shanghai and later) starts every contract with: PUSH1 0x80 PUSH1 0x40 MSTORE, then PUSH0
  const code = '0x60806040525f80fd';
  const message = 'invalid opcode: PUSH0 (0x5f) is not in petersburg; compile with evmVersion petersburg';
  t.same(await node.call('eth_call', [{ to: X }, 'latest', { [X]: { code } }]).then((r) => r.error), { code: -32000, message });
  t.same(await node.call('eth_estimateGas', [{ to: X }, 'latest', { [X]: { code } }]).then((r) => r.error), { code: -32000, message });
  t.same(await node.call('eth_call', [{ data: code }, 'latest']).then((r) => r.error), { code: -32000, message }, 'init code');
  t.same(await node.call('eth_call', [{ to: X }, 'pending', { [X]: { code } }]).then((r) => r.error), { code: -32000, message }, 'on the pending block');
  t.same(await node.call('eth_call', [{ to: X }, 'latest', { [X]: { code: '0xfe' } }]).then((r) => r.error), { code: -32000, message: 'invalid opcode' }, 'INVALID itself stays plain');
});

t.test('a trace names it too: debug_traceCall and a failed transaction', async (t) => {
  const runtime = '60806040525f80fd'; // PUSH1 0x80 PUSH1 0x40 MSTORE PUSH0 DUP1 REVERT
  const message = 'invalid opcode: PUSH0 (0x5f) is not in petersburg; compile with evmVersion petersburg';
  const override = { [X]: { code: '0x' + runtime } };
  const frame = await node.rpc('debug_traceCall', [{ to: X }, 'latest', { tracer: 'callTracer', stateOverrides: override }]);
  t.equal(frame.error, message, 'callTracer');
  const steps = await node.rpc('debug_traceCall', [{ to: X }, 'latest', { stateOverrides: override }]);
  t.equal(steps.failed, true);
  t.equal(steps.structLogs.at(-1).error, message, 'the struct logger\'s failing step');
  // Deployed by init code without PUSH0 (it copies the runtime out), then called by a mined transaction.
  const init = '0x6008600c60003960086000f3' + runtime;
  const deploy = await node.rpc('eth_sendTransaction', [{ from: DEV[0].address, data: init, gas: '0x30000' }]);
  const receipt = (hash: string) => waitFor(() => node.rpc('eth_getTransactionReceipt', [hash]), `receipt ${hash}`);
  const created = (await receipt(deploy)).contractAddress;
  t.equal(await node.rpc('eth_getCode', [created, 'latest']), '0x' + runtime);
  const failed = await node.rpc('eth_sendTransaction', [{ from: DEV[0].address, to: created, gas: '0x30000' }]);
  t.equal((await receipt(failed)).status, '0x0');
  t.equal((await node.rpc('debug_traceTransaction', [failed, { tracer: 'callTracer' }])).error, message, 'the mined transaction\'s trace');
});
