import t from 'tap';
import { asm } from '../../helpers/evmAsm.js';
import type { CallOptions, CallRequest } from '../../../src/execution/call.js';
import { CALLER, addr, buildState, executorFor, headerFor } from './fastCall/harness.js';

// The bounds of a call on both engines (the evm timeout with geth's message, turns of the event
// loop during a long run, the gas cap), and a defect found by the differential run over the RPC
// (MSTORE with one stack item and an unpayable offset).

const LOOP = 0xc0de01n;
const GAS_LEFT = 0xc0de02n;
const MSTORE_ONE = 0xc0de05n;
const MSTORE8_ONE = 0xc0de06n;
const MSTORE_ONE_PAYABLE = 0xc0de07n;
const RETURN_WORD = 'PUSH 0 MSTORE PUSH 32 PUSH 0 RETURN';

const CODE = new Map([
  // ~1 gas per op, forever
  [LOOP, asm(':l ' + 'JUMPDEST '.repeat(200) + '&l JUMP')],
  [GAS_LEFT, asm(`GAS ${RETURN_WORD}`)],
  [MSTORE_ONE, asm('PUSH4 0xffffffff MSTORE')],
  [MSTORE8_ONE, asm('PUSH4 0xffffffff MSTORE8')],
  [MSTORE_ONE_PAYABLE, asm('PUSH 64 MSTORE')],
]);
const state = buildState(CODE);
const call = (to: bigint, gas?: bigint): CallRequest => ({ from: addr(CALLER), to: addr(to), gas });
const word = (hex: string) => '0x' + hex.slice(2).padStart(64, '0');
const hexOf = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');

async function executor(fastCall: boolean, options: CallOptions = {}, fork = 'petersburg') {
  const { sm, root } = await state;
  return { ex: executorFor(fork, sm, { fastCall, ...options }), header: headerFor(root) };
}

for (const fastCall of [true, false]) {
  const engine = fastCall ? 'interpreter' : 'library';

  t.test(`${engine}: a run past the evm timeout stops with geth's message`, async (t) => {
    const { ex, header } = await executor(fastCall, { timeoutMs: 300, gasCap: 0n });
    await t.rejects(ex.call(call(LOOP, 1_000_000_000n), { header }), { message: 'execution aborted (timeout = 300ms)' });
    await t.rejects(ex.estimateGas(call(LOOP), { header }, 1_000_000_000n), { message: 'execution aborted (timeout = 300ms)' }, 'the whole estimate');
    t.equal((await ex.run(call(GAS_LEFT), { header })).error, undefined, 'the next call runs');
  });

  t.test(`${engine}: a long run lets the event loop turn`, async (t) => {
    const { ex, header } = await executor(fastCall, { timeoutMs: 1000, gasCap: 0n });
    const order: string[] = [];
    const long = ex.call(call(LOOP, 1_000_000_000n), { header }).catch((e: Error) => order.push(`call: ${e.message}`));
    await new Promise((resolve) => setTimeout(resolve, 20)).then(() => order.push('timer'));
    await long;
    t.same(order, ['timer', 'call: execution aborted (timeout = 1s)']);
  });

  t.test(`${engine}: the gas cap lowers what a call asks for, and is what it gets when it asks for none`, async (t) => {
    const gasLeft = async (options: CallOptions, gas?: bigint) => {
      const { ex, header } = await executor(fastCall, options);
      return BigInt(hexOf(await ex.call(call(GAS_LEFT, gas), { header })));
    };
    // GAS reads what is left after MOAC's intrinsic gas (1,000) and GAS itself (2)
    t.equal(await gasLeft({ gasCap: 100_000n }, 1_000_000n), 100_000n - 1_002n, 'lowered to the cap');
    t.equal(await gasLeft({ gasCap: 100_000n }, 50_000n), 50_000n - 1_002n, 'below the cap: as asked');
    t.equal(await gasLeft({ gasCap: 100_000n }), 100_000n - 1_002n, 'none asked: the cap');
    t.equal(await gasLeft({ gasCap: 0n }), 50_000_000n - 1_002n, 'no cap, none asked: 50,000,000');
    t.equal(await gasLeft({ gasCap: 0n }, 70_000_000n), 70_000_000n - 1_002n, 'no cap: as asked');
    t.equal(await gasLeft({}, 70_000_000n), 50_000_000n - 1_002n, 'the default cap is 50,000,000');
  });

  t.test(`${engine}: MSTORE and MSTORE8 with one stack item charge the memory first`, async (t) => {
    const { ex, header } = await executor(fastCall);
    for (const [label, to, error] of [
      ['MSTORE, unpayable offset', MSTORE_ONE, 'out of gas'], ['MSTORE8, unpayable offset', MSTORE8_ONE, 'out of gas'],
      ['MSTORE, payable offset', MSTORE_ONE_PAYABLE, 'stack underflow'],
    ] as const) {
      const out = await ex.run(call(to, 100_000n), { header });
      t.same([out.error, out.gasUsed], [error, 100_000n], label);
    }
  });
}
