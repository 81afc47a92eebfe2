// The call interpreter against the library EVM through the RPC of a running node: seeded random
// programs (deployed, then called with random data, value and gas, and run as init code) and the
// hand-written edge programs (as init code), each as mc_call and some as mc_estimateGas. The node
// verifies every answer (--rpc.fastcall.verify 1): /metrics must count them all and no
// disagreement. FAST_CALL_SEED picks another corpus, FAST_CALL_RPC_PROGRAMS its size.

import t from 'tap';
import { generateAddress } from '@ethereumjs/util';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV, rawTx } from '../../helpers/accounts.js';
import { asm } from '../../helpers/evmAsm.js';
import { fastCallCounters } from '../../helpers/fastCallMetrics.js';
import { randomProgram, seeded } from '../../unit/execution/fastCall/random.js';
import { EDGES } from '../../unit/execution/fastCall/programs.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

const SEED = Number(process.env.FAST_CALL_SEED ?? 20261127);
const PROGRAMS = Number(process.env.FAST_CALL_RPC_PROGRAMS ?? 40);

let node: TestNode;
t.before(async () => {
  node = await startNode(testDir(t), ['--mining.mode', 'instant', '--metrics', '--metrics.port', '0']);
});
t.teardown(() => node.stop());

/** Init code that deploys `runtime` (hex): copy it from behind this 14-byte prefix and return it. */
function deployer(runtime: string): string {
  const n = runtime.length / 2;
  const hex2 = (v: number) => v.toString(16).padStart(4, '0');
  return `61${hex2(n)}600e600039` + `61${hex2(n)}6000f3` + runtime;
}

t.test('random and edge programs: every answer verified, none differs', async (t) => {
  const rng = seeded(SEED);
  const sender = DEV[1];
  const from = hexToBytes(sender.address);
  const addresses = Array.from({ length: PROGRAMS }, (_, i) => BigInt(bytesToHex(generateAddress(from, i === 0 ? new Uint8Array(0) : Uint8Array.of(i)))));
  const targets = [...addresses, 1n, 2n, 4n, BigInt(DEV[0].address), 0x5555n];
  const sources = addresses.map(() => randomProgram(rng, targets));
  const codes = sources.map((s) => asm(s));
  // deploy them in order (nonces 0..n-1 give the addresses above)
  let last = '';
  for (let i = 0; i < PROGRAMS; i++) {
    const tx = rawTx(sender.key, { nonce: BigInt(i), data: hexToBytes('0x' + deployer(codes[i])), gas: 2_000_000n });
    last = await node.rpc('mc_sendRawTransaction', [tx.raw]);
  }
  const receipt = await waitFor(() => node.rpc('mc_getTransactionReceipt', [last]), 'the last deployment');
  t.equal(receipt.status, '0x1', 'deployed');

  const before = await fastCallCounters(node);
  const hex = (bytes: number) => '0x' + Array.from({ length: bytes }, () => rng(256).toString(16).padStart(2, '0')).join('');
  const requests: [string, unknown[]][] = [];
  for (let i = 0; i < PROGRAMS; i++) {
    const to = '0x' + addresses[i].toString(16).padStart(40, '0');
    for (let k = 0; k < 4; k++) {
      const gas = '0x' + [30_000, 100_000, 300_000, 1_000_000][rng(4)].toString(16);
      const value = rng(3) === 0 ? '0x' + rng(2000).toString(16) : '0x0';
      const caller = rng(4) === 0 ? '0x' + '22'.repeat(20) : DEV[2].address;
      requests.push(['mc_call', [{ from: caller, to, data: hex(rng(70)), value, gas }, 'latest']]);
    }
    requests.push(['mc_call', [{ from: DEV[2].address, data: '0x' + codes[i], gas: '0xf4240' }, 'latest']]);
    if (i % 4 === 0) requests.push(['mc_estimateGas', [{ from: DEV[2].address, to, data: hex(rng(40)) }]]);
  }
  for (const [, source, gas] of EDGES) {
    const data = '0x' + asm(source);
    requests.push(['mc_call', [{ from: DEV[2].address, data, gas: '0x' + (gas ?? 1_000_000n).toString(16) }, 'latest']]);
    requests.push(['mc_call', [{ from: DEV[2].address, data, gas: '0x' + (30_000 + rng(200_000)).toString(16) }, 'pending']]);
  }
  const internal: string[] = [];
  /** below the intrinsic gas no engine runs: nothing to verify */
  let unrun = 0;
  for (const [method, params] of requests) {
    const reply = await node.call(method, params);
    if (reply.error && ![-32000, 3].includes(reply.error.code)) internal.push(`${method} ${JSON.stringify(params)}: ${JSON.stringify(reply.error)}`);
    if (reply.error?.message === 'intrinsic gas too low') unrun++;
  }
  t.same(internal, [], 'every request got a result or an execution error');
  const after = await fastCallCounters(node);
  const d = (k: keyof typeof after) => after[k] - before[k];
  t.equal(d('disagreements'), 0, `${d('verified')} answers compared with the library (seed ${SEED})`);
  t.equal(d('faults'), 0, 'no fault');
  const calls = requests.filter(([m]) => m === 'mc_call').length;
  const estimates = requests.length - calls;
  t.equal(d('verified'), requests.length - unrun - d('fallbacks'), 'every request an engine ran was verified');
  t.comment(`seed ${SEED}: ${requests.length} requests (${calls} mc_call, ${estimates} mc_estimateGas; ${unrun} below the intrinsic gas), ` +
    `${d('calls')} interpreter runs, ${d('verified')} verified, ${d('disagreements')} disagreements, ${d('fallbacks')} fallbacks`);
});
