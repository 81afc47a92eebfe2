import t from 'tap';
import { asm } from '../../helpers/evmAsm.js';
import type { CallOptions, CallRequest } from '../../../src/execution/call.js';
import { CallMonitor } from '../../../src/execution/callMonitor.js';
import { Engine } from '../../../src/execution/fastCall/engine.js';
import { CALLER, addr, buildState, executorFor, headerFor, hexAddress } from './fastCall/harness.js';

// The bounds of a call on both engines (the evm timeout with geth's message, turns of the event
// loop during a long run, the gas cap), the interpreter's monitor (faults, fallbacks, verification)
// and a defect found by the differential run over the RPC (MSTORE with one stack item and an
// unpayable offset).

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
      t.same([out.error, out.gasUsed, out.engine], [error, 100_000n, engine], label);
    }
  });
}

t.test('faults are counted and logged once per cause, with the stack; the library answers', async (t) => {
  const lines: { msg: string; fields?: Record<string, unknown> }[] = [];
  const monitor = new CallMonitor({ error: (msg, fields) => lines.push({ msg, fields }), warn: () => undefined });
  const { ex, header } = await executor(true, { monitor });
  const original = Engine.prototype.start;
  let message = 'first cause';
  Engine.prototype.start = () => {
    throw new Error(message);
  };
  try {
    for (let i = 0; i < 3; i++) t.equal(hexOf(await ex.call(call(GAS_LEFT, 30_000n), { header })), word('0x' + (30_000 - 1_002).toString(16)));
    message = 'second cause';
    await ex.call(call(GAS_LEFT), { header });
  } finally {
    Engine.prototype.start = original;
  }
  t.same(monitor.counters, { calls: 4, fallbacks: 0, faults: 4, verified: 0, disagreements: 0 });
  t.equal(lines.length, 2, 'one line per cause');
  t.match(lines[0], { msg: /call interpreter fault/, fields: { error: 'first cause', to: hexAddress(GAS_LEFT), stack: /Error: first cause\n\s+at / } });
  t.match(lines[1].fields, { error: 'second cause' });
});

t.test('fallbacks are counted apart from faults', async (t) => {
  const monitor = new CallMonitor();
  const { ex, header } = await executor(true, { monitor, gasCap: 0n });
  const out = await ex.run(call(GAS_LEFT, 2_000_000_000n), { header });
  t.equal(out.engine, 'library', 'more gas than the interpreter takes');
  t.equal(hexOf(out.returnValue), word('0x' + (2_000_000_000 - 1_002).toString(16)));
  t.same(monitor.counters, { calls: 1, fallbacks: 1, faults: 0, verified: 0, disagreements: 0 });
});

t.test('verification: one request in N is answered by the library and compared', async (t) => {
  const lines: { msg: string; fields?: Record<string, unknown> }[] = [];
  const monitor = new CallMonitor({ error: (msg, fields) => lines.push({ msg, fields }), warn: () => undefined });
  const { ex, header } = await executor(true, { monitor, verifyEvery: 2 });
  for (let i = 0; i < 4; i++) await ex.call(call(GAS_LEFT), { header });
  t.equal(await ex.estimateGas(call(GAS_LEFT), { header }, 1_000_000n), 1_000n + 17n, 'GAS, PUSH, MSTORE (one word), PUSH, PUSH, RETURN');
  await ex.estimateGas(call(GAS_LEFT), { header }, 1_000_000n);
  t.same(monitor.counters.verified, 3, 'calls 2 and 4, the second estimate');
  t.equal(monitor.counters.disagreements, 0);

  // An interpreter that answers wrongly: the library's answer is returned, the disagreement logged with the inputs.
  const original = Engine.prototype.start;
  Engine.prototype.start = function (this: Engine, ...args: Parameters<Engine['start']>) {
    const status = original.apply(this, args);
    if (this.outcome) this.outcome = { ...this.outcome, returnValue: Uint8Array.of(0xba, 0xd0) };
    return status;
  };
  try {
    const answers = [];
    for (let i = 0; i < 2; i++) answers.push(hexOf(await ex.call({ ...call(GAS_LEFT, 40_000n), data: Uint8Array.of(1, 2) }, { header })));
    t.same(answers, ['0xbad0', word('0x' + (40_000 - 1_002 - 68 * 2).toString(16))], 'unverified: the interpreter\'s; verified: the library\'s');
  } finally {
    Engine.prototype.start = original;
  }
  t.equal(monitor.counters.disagreements, 1);
  t.match(lines, [{ msg: /disagrees with the library EVM/, fields: { method: 'mc_call', to: hexAddress(GAS_LEFT), data: '0x0102', gas: 40_000n, interpreter: /"returnValue":"0xbad0"/ } }]);
});
