// The struct logger on hand-made EVM step events: the size cap fails with an error naming it,
// geth's `limit` only stops recording, an SLOAD's value is filled in from the next step.

import t from 'tap';
import type { InterpreterStep } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import { StructLogger } from '../../../src/tracing/structLogger.js';

const options = { disableStack: false, disableStorage: false, enableMemory: false, enableReturnData: false, limit: 0 };
const contract = new Address(new Uint8Array(20).fill(7));

function step(pc: number, name: string, stack: bigint[], depth = 0): InterpreterStep {
  return {
    pc, depth, stack, gasLeft: 1000n - BigInt(pc), gasRefund: 0n, address: contract, codeAddress: contract,
    opcode: { name, fee: 3, dynamicFee: 3n, isAsync: false, code: 0 }, memory: new Uint8Array(), memoryWordCount: 0n,
  } as unknown as InterpreterStep;
}

t.test('the cap fails the trace and names the limit', async (t) => {
  const logger = new StructLogger(options, 3);
  for (let i = 0; i < 3; i++) logger.step(step(i, 'PUSH1', []));
  t.throws(() => logger.step(step(3, 'PUSH1', [])), { name: 'NodeError', kind: 'aborted' });
  try {
    logger.step(step(4, 'PUSH1', []));
  } catch (err) {
    t.match((err as Error).message, /struct log limit exceeded: more than 3 steps/);
  }
});

t.test('limit stops recording without an error', async (t) => {
  const logger = new StructLogger({ ...options, limit: 2 }, 3);
  for (let i = 0; i < 10; i++) logger.step(step(i, 'PUSH1', []));
  const trace = logger.finish({ gasUsed: 21000n, returnValue: new Uint8Array(), error: undefined, createdAddress: undefined });
  t.equal(trace.structLogs.length, 2);
  t.equal(trace.failed, false);
});

t.test('storage at SLOAD and SSTORE, depth from 1', async (t) => {
  const logger = new StructLogger(options);
  logger.step(step(0, 'SSTORE', [5n, 1n])); // slot 1 := 5
  logger.step(step(1, 'SLOAD', [2n])); // slot 2, loads 9
  logger.step(step(2, 'POP', [9n]));
  const [store, load, pop] = logger.finish({ gasUsed: 1n, returnValue: new Uint8Array(), error: undefined, createdAddress: undefined }).structLogs;
  t.same([...store.storage!], [[1n, 5n]]);
  t.same([...load.storage!], [[1n, 5n], [2n, 9n]], 'the loaded value comes from the next step');
  t.equal(pop.storage, undefined, 'only SLOAD and SSTORE carry storage');
  t.equal(store.depth, 1);
  t.equal(store.gasCost, 3n);
});

t.test('a failed transaction that did not revert returns no data', async (t) => {
  const logger = new StructLogger(options);
  const trace = logger.finish({ gasUsed: 5n, returnValue: Uint8Array.of(1, 2), error: 'out of gas', createdAddress: undefined });
  t.equal(trace.failed, true);
  t.equal(trace.returnValue.length, 0);
  const reverted = new StructLogger(options).finish({ gasUsed: 5n, returnValue: Uint8Array.of(1, 2), error: 'revert', createdAddress: undefined });
  t.same([...reverted.returnValue], [1, 2]);
});
