// One revert-reason decoder: Error(string) and Panic(uint256), the same in mc_call and
// mc_estimateGas on both engines and in the call tracer.

import t from 'tap';
import { decodeRevertReason } from '../../../src/execution/revertReason.js';
import { NodeError, ErrorKind } from '../../../src/errors.js';
import { bytes, buildState, executorFor, headerFor, hexAddress, CALLER, addr } from './fastCall/harness.js';

const word = (n: bigint) => n.toString(16).padStart(64, '0');
const panic = (code: bigint) => bytes('4e487b71' + word(code));
const error = (text: string) => {
  const hex = Buffer.from(text).toString('hex');
  return bytes('08c379a0' + word(32n) + word(BigInt(text.length)) + hex.padEnd(Math.ceil(hex.length / 64) * 64, '0'));
};

t.test('Error(string) and Panic(uint256) decoded; anything else is not', async (t) => {
  t.equal(decodeRevertReason(error('not owner')), 'not owner');
  t.equal(decodeRevertReason(panic(0x01n)), 'assert(false)');
  t.equal(decodeRevertReason(panic(0x11n)), 'arithmetic underflow or overflow');
  t.equal(decodeRevertReason(panic(0x99n)), 'unknown panic code: 0x99');
  t.equal(decodeRevertReason(bytes('deadbeef')), undefined, 'a custom error');
  t.equal(decodeRevertReason(error('x').subarray(0, 60)), undefined, 'truncated');
});

/** Code that reverts with `data`: CODECOPY the tail of the code into memory, REVERT it. */
function reverting(data: Uint8Array): string {
  const n = data.length.toString(16).padStart(2, '0');
  // PUSH1 n PUSH1 12 PUSH1 0 CODECOPY PUSH1 n PUSH1 0 REVERT, then the data (12 bytes of code first)
  return `60${n}600c600039` + `60${n}6000fd` + Buffer.from(data).toString('hex');
}

t.test('mc_call and mc_estimateGas name the reason on both engines', async (t) => {
  const A = 0xa0a0n;
  const B = 0xb0b0n;
  const { sm, root } = await buildState(new Map([[A, reverting(panic(0x12n))], [B, reverting(error('too late'))]]));
  const header = headerFor(root);
  for (const fastCall of [true, false]) {
    const exec = executorFor('petersburg', sm, { fastCall });
    for (const [to, reason] of [[A, 'division or modulo by zero'], [B, 'too late']] as const) {
      const req = { from: addr(CALLER), to: addr(to), data: new Uint8Array(), gas: 100_000n };
      for (const [what, run] of [['call', () => exec.call(req, { header })], ['estimateGas', () => exec.estimateGas(req, { header }, 1_000_000n)]] as const) {
        const err = await (run as () => Promise<unknown>)().then(() => undefined, (e: unknown) => e);
        t.ok(err instanceof NodeError && err.kind === ErrorKind.Reverted, `${what} ${hexAddress(to)} reverts (fastCall=${fastCall})`);
        t.equal((err as NodeError).message, reason, `${what}: ${reason} (fastCall=${fastCall})`);
      }
    }
  }
});
