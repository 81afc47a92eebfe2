import t from 'tap';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import type { EVM, InterpreterStep } from '@ethereumjs/evm';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, hexToBytes } from '@ethereumjs/util';
import { createChainEvm } from '../../../src/execution/evm.js';
import { RunClock, withClock } from '../../../src/execution/runClock.js';
import { asm } from '../../helpers/evmAsm.js';

// Our EVM's interpreter subclass (src/execution/chainEvm.ts): the first run of a fresh process
// already runs on it (the clock applies, and the run that learns the class shows in no trace).
// This file must stay the first to make an EVM in its process: it is its own process under tap.

const CALLER = new Address(hexToBytes(`0x${'11'.repeat(20)}`));
const A = new Address(hexToBytes(`0x${'a0'.padStart(40, '0')}`));

async function evmWith(source: string): Promise<EVM> {
  const sm = new MerkleStateManager();
  await sm.putAccount(CALLER, new Account(0n, 1000n));
  await sm.putAccount(A, new Account());
  await sm.putCode(A, hexToBytes(`0x${asm(source)}`));
  return createChainEvm(new Common({ chain: Mainnet, hardfork: Hardfork.Petersburg }), sm, { getBlockByNumber: async () => undefined });
}

const steps = (evm: EVM) => {
  const seen: InterpreterStep[] = [];
  evm.events!.on('step', (step: InterpreterStep) => seen.push(step));
  return seen;
};
const runA = (evm: EVM, gasLimit = 100_000n) => evm.runCall({ caller: CALLER, to: A, gasLimit, skipBalance: true });

t.test('the first run of a process: only its own steps are seen, and its clock applies', async (t) => {
  const evm = await evmWith('PUSH 1 POP STOP');
  const seen = steps(evm);
  await runA(evm);
  t.same(seen.map((s) => `${s.pc} ${s.opcode.name}`), ['0 PUSH1', '2 POP', '3 STOP']);
  const loop = await evmWith(':l &l JUMP');
  await t.rejects(withClock(loop, new RunClock(0), () => runA(loop, 1_000_000_000n)), { message: 'execution aborted (timeout = 0s)' });
});
