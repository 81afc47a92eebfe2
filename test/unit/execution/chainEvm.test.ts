import t from 'tap';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createEVM, type EVM } from '@ethereumjs/evm';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, hexToBytes } from '@ethereumjs/util';
import { createChainEvm } from '../../../src/execution/evm.js';
import { CallStateView } from '../../../src/state/callStateView.js';
import { bytesToHex } from '../../../src/encoding/hex.js';

// Our EVM (src/execution/chainEvm.ts) replaces two library methods for speed; every program here
// runs on it and on the library's own EVM, and the outcomes must be the same.

const CALLER = new Address(hexToBytes(`0x${'11'.repeat(20)}`));
const addr = (n: number) => new Address(hexToBytes(`0x${n.toString(16).padStart(40, '0')}`));
const A = addr(0xa0);
const B = addr(0xb0);
const SHA256 = addr(2);

const PROGRAMS: Record<string, string> = {
  // get(): SLOAD(0) when the selector matches, else REVERT (the compare harness's contract)
  sload: '60003560e01c636d4ce63c14601357600080fd5b60005460005260206000f3',
  // SSTORE(1, 7) then return SLOAD(1): a call sees its own write
  writeRead: '6007600155600154600052602060' + '00f3',
  // REVERT with 32 bytes of data ending 0xbeef
  revertData: '61beef60005260206000fd',
  // PUSH1 4 JUMP PUSH1 0x5b STOP: the target is inside push data
  jumpIntoPush: '600456605b00',
  // PUSH1 4 JUMP STOP JUMPDEST, then return 1
  jumpValid: '60045600' + '5b600160005260206000f3',
  // an infinite loop: out of gas
  loop: '5b600056',
};

async function state(code: string): Promise<MerkleStateManager> {
  const sm = new MerkleStateManager();
  await sm.putAccount(CALLER, new Account(0n, 1000n));
  for (const a of [A, B]) {
    await sm.putAccount(a, new Account());
    await sm.putCode(a, hexToBytes(('0x' + code) as `0x${string}`));
  }
  await sm.putStorage(A, new Uint8Array(32), Uint8Array.from([42]));
  await sm.flush();
  return sm;
}

const common = () => new Common({ chain: Mainnet, hardfork: Hardfork.Petersburg });
const noBlocks = { getBlockByNumber: async () => undefined };

interface Outcome { ret: string; gas: bigint; error: string | undefined; callerBalance: bigint | undefined }

async function run(evm: EVM, to: Address, data: string, value = 0n, skipBalance = true): Promise<Outcome> {
  const r = await evm.runCall({
    caller: CALLER, origin: CALLER, to, value, data: hexToBytes(data as `0x${string}`), gasLimit: 100_000n, skipBalance,
  });
  const out = {
    ret: bytesToHex(r.execResult.returnValue),
    gas: r.execResult.executionGasUsed,
    error: r.execResult.exceptionError?.error,
    callerBalance: (await evm.stateManager.getAccount(CALLER))?.balance,
  };
  // As CallExecutor does after each call: the next run starts from the base state.
  if (evm.stateManager instanceof CallStateView) evm.stateManager.reset();
  evm.journal.cleanJournal();
  return out;
}

t.test('every program gives the library EVM\'s outcome, on our EVM over a call view', async (t) => {
  for (const [name, code] of Object.entries(PROGRAMS)) {
    const ours = await createChainEvm(common(), new CallStateView(await state(code)), noBlocks);
    for (const [to, data, value, skip] of [[A, '0x6d4ce63c', 0n, true], [B, '0x', 5n, true], [A, '0x', 2000n, false], [SHA256, '0xabcd', 0n, true]] as const) {
      const library = await createEVM({ common: common(), stateManager: await state(code) });
      // twice on our EVM: the second run takes the cached jump analysis
      const first = await run(ours, to, data, value, skip);
      const second = await run(ours, to, data, value, skip);
      const expected = await run(library, to, data, value, skip);
      t.same(first, expected, `${name} to ${to} value ${value}`);
      t.same(second, first, `${name} again`);
    }
  }
});

t.test('concrete results: SLOAD, own write, revert data, bad jump, good jump, precompile', async (t) => {
  const word = (v: string) => '0x' + v.padStart(64, '0');
  const get = async (code: string, to = A, data = '0x6d4ce63c') =>
    run(await createChainEvm(common(), new CallStateView(await state(code)), noBlocks), to, data);
  t.equal((await get(PROGRAMS.sload)).ret, word('2a'));
  t.equal((await get(PROGRAMS.sload, A, '0x12345678')).error, 'revert', 'unknown selector reverts');
  t.equal((await get(PROGRAMS.writeRead)).ret, word('7'), 'the call reads its own write');
  const reverted = await get(PROGRAMS.revertData);
  t.equal(reverted.error, 'revert');
  t.equal(reverted.ret, word('beef'), 'revert data returned');
  t.ok(reverted.gas < 100_000n, 'a revert keeps its unused gas');
  const bad = await get(PROGRAMS.jumpIntoPush);
  t.match(bad.error, /^invalid JUMP/);
  t.equal(bad.gas, 100_000n, 'a bad jump uses all gas');
  t.equal((await get(PROGRAMS.jumpValid)).ret, word('1'));
  t.equal((await get(PROGRAMS.loop)).error, 'out of gas');
  const hash = await get(PROGRAMS.sload, SHA256, '0x');
  t.equal(hash.ret, '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'sha256 precompile of nothing');
});

t.test('the jump analysis follows the code: same code shared, different code apart', async (t) => {
  // One code array for A and B (the view hands out the same bytes), another with the JUMPDEST moved.
  const evm = await createChainEvm(common(), new CallStateView(await state(PROGRAMS.jumpValid)), noBlocks);
  t.equal((await run(evm, A, '0x')).error, undefined);
  t.equal((await run(evm, B, '0x')).error, undefined, 'second contract with the same code');
  const other = await createChainEvm(common(), new CallStateView(await state('6004565b00')), noBlocks);
  t.match((await run(other, A, '0x')).error, /^invalid JUMP/, 'other code, JUMPDEST elsewhere: no stale analysis');
  t.equal((await run(evm, A, '0x')).error, undefined, 'the first code still jumps');
});

t.test('a call leaves the base state alone; the merged runState is still readable', async (t) => {
  const sm = await state(PROGRAMS.writeRead);
  const root = await sm.getStateRoot();
  const view = new CallStateView(sm);
  const evm = await createChainEvm(common(), view, noBlocks);
  const r = await evm.runCall({ caller: CALLER, to: A, data: new Uint8Array(), gasLimit: 100_000n, skipBalance: true });
  t.equal(bytesToHex(r.execResult.returnValue), '0x' + '7'.padStart(64, '0'));
  const rs = r.execResult.runState as unknown as { gasLeft: bigint; address: Address; programCounter: number };
  t.equal(rs.address.toString(), A.toString(), 'runState carries the environment');
  t.equal(rs.gasLeft, 100_000n - r.execResult.executionGasUsed);
  view.reset();
  evm.journal.cleanJournal();
  const one = new Uint8Array(32);
  one[31] = 1;
  t.same(await view.getStorage(A, one), new Uint8Array(0), 'the write is gone after reset');
  t.same(await sm.getStateRoot(), root, 'base root unchanged');
});
