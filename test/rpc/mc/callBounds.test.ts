// Calls, estimates and traces against a real node: geth's evm timeout (with the node answering
// other requests meanwhile) and gas cap, COINBASE at block 0, and traces of ops whose memory
// range cannot be paid for (answered like the call, never -32603, memory bounded). The node runs
// with verification on (startNode's default): every call also ran on the library EVM.

import t from 'tap';
import { readFileSync } from 'node:fs';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV, rawTx } from '../../helpers/accounts.js';
import { asm } from '../../helpers/evmAsm.js';
import { fastCallCounters } from '../../helpers/fastCallMetrics.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

let node: TestNode;
t.before(async () => {
  // A cap of 1,000,000,000 gas: the endless loop below surely outlasts the timeout, however fast the machine.
  node = await startNode(testDir(t), ['--mining.mode', 'instant', '--rpc.evmtimeout', '1s', '--rpc.gascap', '1000000000', '--metrics', '--metrics.port', '0']);
});
t.teardown(() => node.stop());

const init = (source: string) => '0x' + asm(source);
const RETURN_WORD = 'PUSH 0 MSTORE PUSH 32 PUSH 0 RETURN';
/** ~1 gas per op, forever: 1,000,000,000 gas is ~1 G ops, many seconds on either engine */
const LOOP = init(':l ' + 'JUMPDEST '.repeat(200) + '&l JUMP');
const word = (hex: string) => '0x' + hex.replace(/^0x/, '').padStart(64, '0');
const receiptOf = (hash: string) => waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), `receipt ${hash}`);
/** The node process's peak resident memory (kB), from /proc. */
const peakRss = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${node.proc.pid}/status`, 'utf8'))![1]);

t.test('COINBASE is the miner of the block the call runs on', async (t) => {
  const hash = (await node.rpc('mc_sendRawTransaction', [rawTx(DEV[1].key, { nonce: 0n, to: hexToBytes(DEV[2].address), value: 1n, gas: 21_000n }).raw])) as string;
  await receiptOf(hash);
  const data = init(`COINBASE ${RETURN_WORD}`);
  const zero = word('0');
  t.equal(await node.rpc('mc_call', [{ data }, 'earliest']), zero, 'earliest: genesis has no miner');
  t.equal(await node.rpc('mc_call', [{ data }, '0x0']), zero, '0x0');
  const miner = (await node.rpc('mc_getBlockByNumber', ['latest', false])).miner;
  t.equal(await node.rpc('mc_call', [{ data }, 'latest']), word(miner), 'latest: the head block\'s miner');
  t.equal(miner, DEV[0].address, 'the node mines to the first dev account');
  t.equal(await node.rpc('mc_call', [{ data }, 'pending']), word(DEV[0].address), 'pending: the node\'s coinbase');
  const trace = (await node.ipcCall('debug_traceCall', [{ data }, 'earliest'])).result;
  t.equal(trace.returnValue, zero, 'a traced call at block 0 alike');
});

t.test('a call past the evm timeout is aborted with geth\'s message; the node answers meanwhile', async (t) => {
  const order: string[] = [];
  const long = node.call('mc_call', [{ data: LOOP }, 'latest']).then((reply) => {
    order.push('call');
    return reply;
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  const number = await node.rpc('mc_blockNumber');
  order.push('blockNumber');
  const reply = await long;
  t.same(reply.error, { code: -32000, message: 'execution aborted (timeout = 1s)' });
  t.same(order, ['blockNumber', 'call'], `mc_blockNumber (${number}) was answered while the call ran`);
  const estimate = await node.call('mc_estimateGas', [{ data: LOOP, gas: '0x3b9aca00' }]);
  t.same(estimate.error, { code: -32000, message: 'execution aborted (timeout = 1s)' }, 'an estimate alike');
  const trace = await node.ipcCall('debug_traceCall', [{ data: LOOP }, 'latest', { tracer: 'callTracer' }]);
  t.same(trace.error, { code: -32000, message: 'execution timeout: the trace took longer than 1s' }, 'a trace stops at the same default');
});

t.test('the gas cap lowers a call\'s gas to it, and is what a call gets when it names none', async (t) => {
  const data = init(`GAS ${RETURN_WORD}`);
  // a creation: 53,000 intrinsic gas, 68 per non-zero data byte, 4 per zero byte; GAS itself costs 2
  const bytes = hexToBytes(data);
  const intrinsic = 53_000 + bytes.reduce((sum, b) => sum + (b === 0 ? 4 : 68), 0);
  const left = BigInt(await node.rpc('mc_call', [{ data, gas: '0x77359400' }, 'latest']));
  t.equal(left, BigInt(1_000_000_000 - intrinsic - 2), 'asked for 2,000,000,000');
  t.equal(BigInt(await node.rpc('mc_call', [{ data }, 'latest'])), BigInt(1_000_000_000 - intrinsic - 2), 'asked for none');
  t.equal(BigInt(await node.rpc('mc_call', [{ data, gas: '0x30d40' }, 'latest'])), BigInt(200_000 - intrinsic - 2), 'asked for less');
});

t.test('ops whose memory range cannot be paid for: traces answer like the call', async (t) => {
  const programs: [string, string][] = [
    ['REVERT of an unpayable range', 'PUSH1 0xda PUSH5 0x0100000000 REVERT'],
    ['REVERT of 256 MB', 'PUSH4 0x10000000 PUSH 0 REVERT'],
    ['RETURN of 256 MB', 'PUSH4 0x10000000 PUSH 0 RETURN'],
    ['LOG0 of 1 TB', 'PUSH6 0x010000000000 PUSH 0 LOG0'],
    ['CALLDATACOPY of an unpayable range', 'PUSH 32 PUSH 0 PUSH5 0x0100000000 CALLDATACOPY'],
    ['CREATE from 256 MB', 'PUSH4 0x10000000 PUSH 0 PUSH 0 CREATE'],
  ];
  const before = peakRss();
  let nonce = 1n;
  for (const [label, source] of programs) {
    const data = init(source);
    t.same((await node.call('mc_call', [{ data }, 'latest'])).error, { code: -32000, message: 'out of gas' }, `${label}: mc_call`);
    const struct = await node.ipcCall('debug_traceCall', [{ data }, 'latest']);
    t.notOk(struct.error, `${label}: the struct logger answers`);
    t.equal(struct.result?.failed, true);
    t.equal(struct.result?.structLogs.at(-1).error, 'out of gas', `${label}: the last step failed out of gas`);
    const calls = await node.ipcCall('debug_traceCall', [{ data }, 'latest', { tracer: 'callTracer', tracerConfig: { withLog: true } }]);
    t.equal(calls.result?.error, 'out of gas', `${label}: the call tracer answers`);
    // mined: the transaction fails out of gas, and its trace says so
    const tx = rawTx(DEV[1].key, { nonce: nonce++, data: hexToBytes(data), gas: 200_000n });
    await node.rpc('mc_sendRawTransaction', [tx.raw]);
    t.equal((await receiptOf(tx.hash)).status, '0x0');
    const mined = await node.ipcCall('debug_traceTransaction', [tx.hash]);
    t.notOk(mined.error, `${label}: the mined transaction's trace answers`);
    t.equal(mined.result?.structLogs.at(-1).error, 'out of gas');
  }
  const grown = (peakRss() - before) / 1024;
  t.ok(grown < 128, `the node's peak memory grew by ${grown.toFixed(0)} MB (reading the ranges would take 256 MB and more)`);
});

t.test('verification compared the calls and found no disagreement', async (t) => {
  const c = await fastCallCounters(node);
  t.ok(c.calls > 0, `${c.calls} messages ran on the interpreter`);
  t.ok(c.verified > 0, `${c.verified} answers were compared with the library`);
  t.equal(c.disagreements, 0);
  t.equal(c.faults, 0);
});

t.test('--rpc.fastcall=false: every call runs on the library EVM', async (t) => {
  const off = await startNode(testDir(t), ['--mining.mode', 'off', '--rpc.fastcall=false', '--metrics', '--metrics.port', '0']);
  t.teardown(() => off.stop());
  const data = init(`PUSH 7 ${RETURN_WORD}`);
  t.equal(await off.rpc('mc_call', [{ data }, 'latest']), word('7'));
  const gasLeft = init(`GAS ${RETURN_WORD}`);
  const intrinsic = 53_000 + hexToBytes(gasLeft).reduce((s, b) => s + (b === 0 ? 4 : 68), 0);
  t.equal(BigInt(await off.rpc('mc_call', [{ data: gasLeft, gas: '0x3b9aca00' }, 'latest'])), BigInt(50_000_000 - intrinsic - 2), 'the default gas cap: 50,000,000');
  // a creation: intrinsic gas, 18 for the code, 200 per byte of the 32 deployed
  t.equal(await off.rpc('mc_estimateGas', [{ data }]), '0x' + (53_000 + hexToBytes(data).reduce((s, b) => s + (b === 0 ? 4 : 68), 0) + 18 + 32 * 200).toString(16));
  t.same(await fastCallCounters(off), { calls: 0, fallbacks: 0, faults: 0, verified: 0, disagreements: 0 });
});
