// Hand-written edge programs on both engines under a list of hardforks: called with the default
// gas and with gas limits stepping down from what they need (out of gas at each kind of step), with
// value, from a caller without funds, run as init code of a creation, and estimated.

import type { Test } from 'tap';
import type { CallRequest } from '../../../../src/execution/call.js';
import { intrinsicGas } from '../../../../src/execution/gas.js';
import { asm } from '../../../helpers/evmAsm.js';
import { CALLER, POOR, addr, buildState, bytes, compare, headerFor, pairFor } from './harness.js';
import { COLLIDING_CREATOR, COLLISION_TARGET, CREATOR, EDGES, HELPERS } from './programs.js';

const EDGE_BASE = 0xed9e0000n;
/** mc_estimateGas (a search of many runs) is compared under these. */
const ESTIMATE_FORKS = new Set(['homestead', 'petersburg', 'istanbul', 'london']);

/** Runs every edge program under `forks` on both engines (see the .test.ts files that call it). */
export async function runEdges(t: Test, forks: readonly string[]): Promise<void> {
  const code = new Map(HELPERS);
  code.set(COLLIDING_CREATOR, HELPERS.get(CREATOR)!);
  code.set(COLLISION_TARGET, asm('STOP'));
  const programs = EDGES.map(([label, source, gas], i) => ({ label, address: EDGE_BASE + BigInt(i), hex: asm(source), gas: gas ?? 1_000_000n }));
  for (const p of programs) code.set(p.address, p.hex);
  const storage = new Map(programs.map((p) => [p.address, new Map([[0n, 42n], [2n, 7n]])]));
  const { sm, root } = await buildState(code, storage);
  const header = headerFor(root);
  const calldata = bytes('0x0102030405060708090a0b0c0d0e0f10111213141516171819');

  for (const fork of forks) {
    const pair = pairFor(fork, sm);
    const notFast: string[] = [];
    for (const p of [...programs, { label: 'create on an occupied address', address: COLLIDING_CREATOR, hex: '', gas: 1_000_000n }]) {
      const base: CallRequest = { from: addr(CALLER), to: addr(p.address), data: calldata, gas: p.gas };
      const runs: [string, CallRequest][] = [
        ['', base],
        [' with value', { ...base, value: 3n }],
        [' from a poor caller with value', { ...base, from: addr(POOR), value: 10n ** 21n }],
      ];
      if (p.hex !== '') runs.push([' as init code', { from: addr(CALLER), data: bytes(p.hex), gas: p.gas }]);
      for (const [suffix, req] of runs) {
        if (!(await compare(t, pair, req, header, p.label + suffix, suffix === '' && ESTIMATE_FORKS.has(fork)))) notFast.push(p.label + suffix);
      }
      // Out of gas at each step: the gas the library used, then less and less.
      const used = await pair.library.run(base, { header }).then((o) => o.gasUsed, () => 0n);
      const floor = intrinsicGas(calldata, false);
      const limits = new Set<bigint>();
      for (let d = 0n; d < 8n; d++) limits.add(used - d);
      for (let g = used; g > floor; g = (g * 2n) / 3n) limits.add(g);
      for (const gas of limits) {
        if (gas < floor || gas >= p.gas) continue;
        if (!(await compare(t, pair, { ...base, gas }, header, `${p.label} gas ${gas}`))) notFast.push(`${p.label} gas ${gas}`);
      }
    }
    // Only BASEFEE (london) is left to the library: it fails there without a base fee.
    t.same(notFast.filter((l) => !l.startsWith('BASEFEE')), [], `${fork}: all but BASEFEE ran on our interpreter`);
  }
}
