import t from 'tap';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import type { EVM, InterpreterStep } from '@ethereumjs/evm';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, hexToBytes } from '@ethereumjs/util';
import { createChainEvm } from '../../../src/execution/evm.js';
import { asm } from '../../helpers/evmAsm.js';

// The step events of our EVM (src/execution/chainEvm.ts) as tracers see them: REVERT's event
// carries its range read from memory that was paid for, and nothing for a range the gas left
// cannot pay (the library read it all before charging: a RangeError, or memory grown to the range).

const CALLER = new Address(hexToBytes(`0x${'11'.repeat(20)}`));
const A = new Address(hexToBytes(`0x${'a0'.padStart(40, '0')}`));

async function evmWith(source: string): Promise<EVM> {
  const sm = new MerkleStateManager();
  await sm.putAccount(CALLER, new Account(0n, 1000n));
  await sm.putAccount(A, new Account());
  await sm.putCode(A, hexToBytes(`0x${asm(source)}`));
  return createChainEvm(new Common({ chain: Mainnet, hardfork: Hardfork.Petersburg }), sm, { getBlockByNumber: async () => undefined });
}

t.test("REVERT's step event reads only paid memory, and nothing of an unpayable range", async (t) => {
  const cases: [string, string, number][] = [
    // 32 bytes paid (MSTORE), REVERT of 64: the second word reads as zeros
    ['payable range', 'PUSH 0xbeef PUSH 0 MSTORE PUSH 64 PUSH 0 REVERT', 64],
    ['unpayable offset', 'PUSH1 0xda PUSH5 0x0100000000 REVERT', 0],
    ['256 MB with 100,000 gas', 'PUSH4 0x10000000 PUSH 0 REVERT', 0],
  ];
  for (const [label, source, length] of cases) {
    const evm = await evmWith(source);
    const seen: InterpreterStep[] = [];
    evm.events!.on('step', (step: InterpreterStep) => seen.push(step));
    // twice: the first run of the process may run on the library's own interpreter class
    for (let i = 0; i < 2; i++) {
      seen.length = 0;
      const r = await evm.runCall({ caller: CALLER, to: A, gasLimit: 100_000n, skipBalance: true });
      const revert = seen.find((s) => s.opcode.name === 'REVERT')!;
      t.equal(revert.error?.length, length, `${label}: ${length} bytes read`);
      t.equal(r.execResult.exceptionError?.error, length > 0 ? 'revert' : 'out of gas', label);
      if (length > 0) t.equal(Buffer.from(revert.error!).toString('hex'), 'beef'.padStart(64, '0') + '00'.repeat(32));
    }
  }
});
