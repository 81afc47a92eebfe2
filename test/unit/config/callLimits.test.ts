// The call interpreter's switch and verification, and the bounds of calls (rpc.fastCall,
// rpc.fastCallVerify, rpc.evmTimeout, rpc.gasCap): geth's flag names, the config file form, env.

import t from 'tap';
import { loadInvocation } from '../../../src/config/load.js';
import { testDir } from '../../helpers/testDir.js';

const load = (...argv: string[]) => loadInvocation(argv, {}).config;

t.test('defaults: interpreter on, no verification, 5 s, 50,000,000 gas', async (t) => {
  const { fastCall, fastCallVerify, evmTimeout, gasCap } = load().rpc;
  t.same({ fastCall, fastCallVerify, evmTimeout, gasCap }, { fastCall: true, fastCallVerify: 0, evmTimeout: 5000, gasCap: 50_000_000n });
});

t.test('flags', async (t) => {
  t.equal(load('--rpc.fastcall=false').rpc.fastCall, false);
  t.equal(load('--rpc.fastcall', 'false').rpc.fastCall, false);
  t.equal(load('--rpc.fastcall.verify', '1').rpc.fastCallVerify, 1);
  t.equal(load('--rpc.fastcallverify', '7').rpc.fastCallVerify, 7, 'the dotted key works too');
  t.equal(load('--rpc.evmtimeout', '500ms').rpc.evmTimeout, 500);
  t.equal(load('--rpc.evmtimeout', '1m30s').rpc.evmTimeout, 90_000);
  t.equal(load('--rpc.evmtimeout', '2.5').rpc.evmTimeout, 2500, 'a bare number is seconds');
  t.equal(load('--rpc.evmtimeout', '0').rpc.evmTimeout, 0, '0: no limit');
  t.equal(load('--rpc.gascap', '0').rpc.gasCap, 0n, '0: no cap');
  t.equal(load('--rpc.gascap', '0x1000').rpc.gasCap, 4096n);
  t.throws(() => load('--rpc.evmtimeout', 'soon'), { message: /rpc\.evmTimeout: "soon" \(expected a number of seconds or a duration/ });
  t.throws(() => load('--rpc.fastcall.verify', '-1'), { message: /rpc\.fastCallVerify/ });
});

t.test('config file and environment', async (t) => {
  const dir = testDir(t, { 'c.json': JSON.stringify({ rpc: { fastCall: false, fastCallVerify: 3, evmTimeout: 0.25, gasCap: '1000000' } }) });
  const c = loadInvocation(['--config', `${dir}/c.json`], {}).config.rpc;
  t.same([c.fastCall, c.fastCallVerify, c.evmTimeout, c.gasCap], [false, 3, 250, 1_000_000n]);
  const e = loadInvocation([], { MCNODE_RPC_FASTCALL_VERIFY: '1', MCNODE_RPC_EVMTIMEOUT: '2s' }).config.rpc;
  t.same([e.fastCallVerify, e.evmTimeout], [1, 2000]);
});
