// debug_trace* against a real node: a nested call (a store with a log, a caught revert, a static
// call) and a transaction that reverts inside a nested call, compared field by field with the
// golden files in test/fixtures/traces (hand-checked; WRITE_GOLDEN=1 rewrites them).

import t, { type Test } from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV, rawTx } from '../../helpers/accounts.js';
import { contract, encodeCall, selector, word } from '../../helpers/abi.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

const GOLDEN = path.join(ROOT, 'test/fixtures/traces');
let node: TestNode;

function golden(t: Test, name: string, actual: unknown): void {
  const file = path.join(GOLDEN, `${name}.json`);
  if (process.env.WRITE_GOLDEN === '1') writeFileSync(file, JSON.stringify(actual, null, 2) + '\n');
  t.same(actual, JSON.parse(readFileSync(file, 'utf8')), `${name} matches its golden file`);
}

const receiptOf = (hash: string) => waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), `receipt ${hash}`);

let store: string;
let nest: string;
let runTx: string;
let boomTx: string;
let deployTx: string;

t.before(async () => {
  node = await startNode(testDir(t), ['--mining.mode', 'instant', '--minerthreads', '1']);
  const key = DEV[2].key;
  const d1 = rawTx(key, { nonce: 0n, data: hexToBytes(contract('Store').bytecode + word(7)), gas: 500_000n });
  await node.rpc('mc_sendRawTransaction', [d1.raw]);
  store = (await receiptOf(d1.hash)).contractAddress;
  const d2 = rawTx(key, { nonce: 1n, data: hexToBytes(contract('Nest').bytecode + word(store)), gas: 800_000n });
  await node.rpc('mc_sendRawTransaction', [d2.raw]);
  nest = (await receiptOf(d2.hash)).contractAddress;
  deployTx = d2.hash;
  const run = rawTx(key, { nonce: 2n, to: hexToBytes(nest), data: hexToBytes(encodeCall('run(uint256)', 5)), gas: 300_000n });
  await node.rpc('mc_sendRawTransaction', [run.raw]);
  runTx = run.hash;
  t.equal((await receiptOf(runTx)).status, '0x1');
  const boom = rawTx(key, { nonce: 3n, to: hexToBytes(nest), data: hexToBytes(encodeCall('boom(uint256)', 9)), gas: 300_000n });
  await node.rpc('mc_sendRawTransaction', [boom.raw]);
  boomTx = boom.hash;
  t.equal((await receiptOf(boomTx)).status, '0x0');
});
t.teardown(() => node.stop());

t.test('callTracer: nested frames, logs, revert reason', async (t) => {
  const run = await node.ipcCall('debug_traceTransaction', [runTx, { tracer: 'callTracer', tracerConfig: { withLog: true } }]);
  t.notOk(run.error);
  golden(t, 'callTracer-run', run.result);
  const r = run.result;
  t.equal(r.type, 'CALL');
  t.equal(r.to, nest);
  t.equal(r.gasUsed, (await receiptOf(runTx)).gasUsed, 'top gasUsed is the receipt gas');
  t.same(r.calls.map((c: any) => c.type), ['CALL', 'STATICCALL', 'STATICCALL'], 'pure functions are called with STATICCALL');
  t.equal(r.calls[1].error, 'execution reverted');
  t.equal(r.calls[1].revertReason, 'nope');
  t.equal(r.calls[2].value, undefined, 'a STATICCALL has no value');
  t.equal(r.calls[0].logs.length, 1, 'the store logs in its own frame');
  t.equal(r.logs[0].position, '0x2', 'the caller logs after two calls');

  const boom = await node.ipcCall('debug_traceTransaction', [boomTx, { tracer: 'callTracer', tracerConfig: { withLog: true } }]);
  golden(t, 'callTracer-boom', boom.result);
  t.equal(boom.result.error, 'execution reverted');
  t.equal(boom.result.revertReason, 'nope');
  t.equal(boom.result.calls[0].logs, undefined, 'logs of a reverted transaction are dropped');

  const create = (await node.ipcCall('debug_traceTransaction', [deployTx, { tracer: 'callTracer' }])).result;
  t.equal(create.type, 'CREATE');
  t.equal(create.to, nest, 'a creation frame names the new contract');
  t.equal(create.output, contract('Nest').deployed, 'and returns its code');
  t.equal(create.value, '0x0');

  const top = await node.ipcCall('debug_traceTransaction', [runTx, { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }]);
  t.equal(top.result.calls, undefined);
  t.equal(top.result.logs, undefined);
});

t.test('struct logger and its options', async (t) => {
  const full = await node.ipcCall('debug_traceTransaction', [boomTx, {}]);
  const res = full.result;
  t.equal(res.failed, true);
  t.equal(res.gas, Number((await receiptOf(boomTx)).gasUsed));
  t.equal(res.returnValue.slice(0, 10), '0x08c379a0', 'the revert data');
  const logs = res.structLogs;
  t.same(Object.keys(logs[0]).sort(), ['depth', 'gas', 'gasCost', 'op', 'pc', 'stack']);
  t.same(logs[0], { pc: 0, op: 'PUSH1', gas: logs[0].gas, gasCost: 3, depth: 1, stack: [] });
  t.equal(logs[1].stack[0], '0x80');
  t.ok(logs.some((l: any) => l.depth === 2), 'steps inside the nested call');
  const sstore = logs.find((l: any) => l.op === 'SSTORE' && l.depth === 2);
  t.same(sstore.storage, { [word(0)]: word(9) }, 'storage seen at the SSTORE');
  for (let i = 1; i < logs.length; i++) {
    if (logs[i].depth === logs[i - 1].depth && !['CALL', 'STATICCALL', 'DELEGATECALL'].includes(logs[i - 1].op)) {
      if (logs[i - 1].gas - logs[i - 1].gasCost !== logs[i].gas) {
        t.fail(`gas after step ${i - 1} (${logs[i - 1].op}) does not match`);
        break;
      }
    }
  }
  t.equal(logs.at(-1).op, 'REVERT');
  golden(t, 'structLogs-boom-head', logs.slice(0, 12));

  const lean = await node.ipcCall('debug_traceTransaction', [boomTx, { disableStack: true, disableStorage: true, enableMemory: true, enableReturnData: true }]);
  const l = lean.result.structLogs;
  t.equal(l.length, logs.length);
  t.equal(l[0].stack, undefined);
  t.equal(l.find((x: any) => x.op === 'SSTORE').storage, undefined);
  t.same(l[2].memory, [], 'memory before MSTORE is empty');
  t.equal(l[3].memory.length, 3, 'three words after the free-memory pointer store');
  t.equal(l[3].memory[2], word(0x80));
  t.ok(l.some((x: any) => x.returnData), 'return data after the nested call');

  const limited = await node.ipcCall('debug_traceTransaction', [boomTx, { limit: 5 }]);
  t.equal(limited.result.structLogs.length, 5);
});

t.test('prestate, 4byte, traceCall, traceBlock, raw data, errors', async (t) => {
  const pre = (await node.ipcCall('debug_traceTransaction', [runTx, { tracer: 'prestateTracer' }])).result;
  t.equal(pre[store].storage['0x' + word(0)], '0x' + word(7), 'store value before run(5)');
  t.equal(pre[DEV[2].address].nonce, 2);
  const diff = (await node.ipcCall('debug_traceTransaction', [runTx, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }])).result;
  t.equal(diff.post[store].storage['0x' + word(0)], '0x' + word(5));
  t.equal(diff.pre[store].storage['0x' + word(0)], '0x' + word(7));
  t.equal(diff.post[DEV[2].address].nonce, 3);

  const four = (await node.ipcCall('debug_traceTransaction', [runTx, { tracer: '4byteTracer' }])).result;
  t.same(four, {
    [`${selector('run(uint256)')}-32`]: 1,
    [`${selector('set(uint256)')}-32`]: 1,
    [`${selector('fail()')}-0`]: 1,
    [`${selector('add(uint256,uint256)')}-64`]: 1,
  });

  const call = (await node.ipcCall('debug_traceCall', [{ to: nest, data: encodeCall('run(uint256)', 3) }, 'latest', { tracer: 'callTracer' }])).result;
  t.equal(call.calls.length, 3);
  t.equal(call.output, '0x' + word(4));

  const blockNumber = (await receiptOf(runTx)).blockNumber;
  const byNumber = (await node.ipcCall('debug_traceBlockByNumber', [blockNumber, { tracer: 'callTracer' }])).result;
  t.equal(byNumber.length, 1);
  t.equal(byNumber[0].txHash, runTx);
  const block = await node.rpc('mc_getBlockByNumber', [blockNumber, false]);
  const byHash = (await node.ipcCall('debug_traceBlockByHash', [block.hash, { tracer: 'callTracer' }])).result;
  t.same(byHash, byNumber);

  const rawTxHex = (await node.ipcCall('debug_getRawTransaction', [runTx])).result;
  t.equal((await node.rpc('mc_getTransactionByHash', [runTx])).hash, runTx);
  t.ok(rawTxHex.length > 100);
  const rawHeader = (await node.ipcCall('debug_getRawHeader', [blockNumber])).result;
  const { keccak256 } = await import('../../../src/encoding/bytes.js');
  const { bytesToHex } = await import('../../../src/encoding/hex.js');
  t.equal(bytesToHex(keccak256(hexToBytes(rawHeader))), block.hash, 'the raw header hashes to the block hash');
  const rawBlock = (await node.ipcCall('debug_getRawBlock', [blockNumber])).result;
  t.ok(rawBlock.includes(rawHeader.slice(2)), 'the raw block holds the header');
  t.ok(rawBlock.includes(rawTxHex.slice(2)), 'and the transaction');
  const receipts = (await node.ipcCall('debug_getRawReceipts', [blockNumber])).result;
  t.equal(receipts.length, 1);

  const bad = await node.ipcCall('debug_traceTransaction', [runTx, { tracer: 'nope' }]);
  t.equal(bad.error?.code, -32000);
  t.match(bad.error?.message, /tracer not found/);
  const slow = await node.ipcCall('debug_traceTransaction', [runTx, { timeout: '0s' }]);
  t.equal(slow.error?.code, -32000);
  t.match(slow.error?.message, /execution timeout/);
  const badTimeout = await node.ipcCall('debug_traceTransaction', [runTx, { timeout: 'soon' }]);
  t.equal(badTimeout.error?.code, -32602);
  const missing = await node.ipcCall('debug_traceTransaction', ['0x' + '00'.repeat(32)]);
  t.equal(missing.error?.code, -32000);
  // debug is not served over HTTP unless listed in --rpcapi
  t.equal((await node.call('debug_traceTransaction', [runTx])).error?.code, -32601);
});
