import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { EVM, EVMError, createEVM, type EVMResult } from '@ethereumjs/evm';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, hexToBytes } from '@ethereumjs/util';
import { createChainEvm } from '../../../src/execution/evm.js';
import { CODESTORE_OUT_OF_GAS } from '../../../src/execution/executor.js';
import { keccak256 } from '../../../src/encoding/bytes.js';
import { bytesToHex } from '../../../src/encoding/hex.js';

// ChainEvm (src/execution/chainEvm.ts) replaces two methods of @ethereumjs/evm with copies of
// their steps, builds the library's Interpreter itself and reads its private fields; the executor
// reads the EVM's journal and result. None of that is public API, so these checks fail when a
// library upgrade changes any of it (the packages are pinned to exact versions for the same
// reason). When one fails: read the new library method, bring chainEvm.ts (or executor.ts) in
// line with it, then update the expectation here.

const ROOT = path.resolve(import.meta.dirname, '../../..');
const PINNED = ['common', 'evm', 'mpt', 'rlp', 'statemanager', 'util'].map((p) => `@ethereumjs/${p}`);

/** keccak256 of a method's source text, first 8 bytes: changes with any edit to the method. */
const fingerprint = (fn: unknown): string => bytesToHex(keccak256(new TextEncoder().encode(String(fn)))).slice(0, 18);

/**
 * The library methods ChainEvm re-implements or wraps, as installed (10.1.3). A new fingerprint
 * means the method changed: compare it with the override before updating the value.
 */
const FINGERPRINTS: Record<string, string> = {
  'EVM._executeCall': '0xf7395e62bbbb5a02',
  'EVM.runInterpreter': '0x9eb4fbf6c768d26b',
  'EVM.postMessageCleanup': '0xbf03636c5474cb9a',
  'Interpreter.constructor': '0x1b47146ffbba3856',
  'Interpreter._getValidJumpDestinations': '0x9a0057e045f1962c',
};

const CALLER = new Address(hexToBytes(`0x${'11'.repeat(20)}`));
const TARGET = new Address(hexToBytes(`0x${'a0'.repeat(20)}`));
const HEIR = new Address(hexToBytes(`0x${'b0'.repeat(20)}`));
const common = (hardfork: string = Hardfork.Petersburg) => new Common({ chain: Mainnet, hardfork });
const noBlocks = { getBlockByNumber: async () => undefined };

// SSTORE(0, 1), LOG1(topic 7, no data), RETURN 32 bytes of memory
const WRITE_LOG_RETURN = '6001600055' + '60076000600' + '0a1' + '60206000f3';
// SELFDESTRUCT to HEIR
const DESTRUCT = '73' + 'b0'.repeat(20) + 'ff';
// REVERT with 32 bytes
const REVERT = '60206000fd';

async function state(code: string): Promise<MerkleStateManager> {
  const sm = new MerkleStateManager({ common: common() });
  await sm.putAccount(CALLER, new Account(0n, 10n ** 18n));
  await sm.putAccount(TARGET, new Account(1n, 5n));
  await sm.putCode(TARGET, hexToBytes(`0x${code}`));
  await sm.flush();
  return sm;
}

async function runOn(evm: EVM, to: Address | undefined, data = '0x'): Promise<EVMResult> {
  return evm.runCall({ caller: CALLER, origin: CALLER, to, data: hexToBytes(data as `0x${string}`), gasLimit: 200_000n, block: undefined });
}

async function interpreterClass(): Promise<{ prototype: Record<string, unknown>; length: number; toString(): string }> {
  const evm = await createEVM({ common: common(), stateManager: await state(WRITE_LOG_RETURN) });
  const r = await runOn(evm, TARGET);
  return (r.execResult.runState as unknown as { interpreter: { constructor: never } }).interpreter.constructor;
}

t.test('the packages whose internals mcnode relies on are pinned exactly, and installed at the pin', async (t) => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const name of PINNED) {
    const wanted = pkg.dependencies[name];
    t.match(wanted, /^\d+\.\d+\.\d+$/, `${name} is an exact version in package.json`);
    const installed = JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
    t.equal(installed.version, wanted, `${name} installed at the pinned version`);
  }
});

t.test('the methods ChainEvm overrides or copies are the ones it was written against', async (t) => {
  const Interpreter = await interpreterClass();
  const proto = EVM.prototype as unknown as Record<string, unknown>;
  const now: Record<string, string> = {
    'EVM._executeCall': fingerprint(proto._executeCall),
    'EVM.runInterpreter': fingerprint(proto.runInterpreter),
    'EVM.postMessageCleanup': fingerprint(proto.postMessageCleanup),
    // the class source starts with the constructor; the whole class is too broad a net
    'Interpreter.constructor': fingerprint(Interpreter.toString().slice(0, Interpreter.toString().indexOf('async run('))),
    'Interpreter._getValidJumpDestinations': fingerprint(Interpreter.prototype._getValidJumpDestinations),
  };
  t.same(now, FINGERPRINTS);
});

t.test('names and arities of what ChainEvm and the executor call', async (t) => {
  const Interpreter = await interpreterClass();
  const evmProto = EVM.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const arity: [string, Record<string, (...a: unknown[]) => unknown>, string, number][] = [
    ['EVM', evmProto, '_executeCall', 1],
    ['EVM', evmProto, 'runInterpreter', 1], // (message, opts = {})
    ['EVM', evmProto, '_reduceSenderBalance', 2],
    ['EVM', evmProto, '_addToBalance', 2],
    ['EVM', evmProto, '_loadCode', 1],
    ['EVM', evmProto, 'runPrecompile', 3],
    ['Interpreter', Interpreter.prototype as never, 'run', 1], // (code, opts = {})
    ['Interpreter', Interpreter.prototype as never, '_getValidJumpDestinations', 1],
    ['Interpreter', Interpreter.prototype as never, 'lookupOpInfo', 1],
  ];
  for (const [owner, proto, name, n] of arity) {
    t.equal(typeof proto[name], 'function', `${owner}.${name} exists`);
    t.equal(proto[name]?.length, n, `${owner}.${name} takes ${n}`);
  }
  // evm, stateManager, blockchain, env, gasLeft, journal, performanceLogs, profilerOpts
  t.equal(Interpreter.length, 8, 'Interpreter is constructed with 8 arguments');
  t.equal(EVMError.errorMessages.CODESTORE_OUT_OF_GAS, CODESTORE_OUT_OF_GAS, 'the executor knows the code-store error by its text');

  const evm = await createEVM({ common: common(), stateManager: await state(WRITE_LOG_RETURN) });
  const fields = evm as unknown as Record<string, unknown>;
  for (const name of ['_optsCached', '_opcodeMap', 'journal', 'performanceLogger', 'blockchain', 'stateManager']) {
    t.not(fields[name], undefined, `EVM.${name} is set`);
  }
  t.equal(typeof fields.DEBUG, 'boolean', 'EVM.DEBUG');
  const journal = evm.journal as unknown as Record<string, unknown>;
  for (const name of ['deleteAccount', 'cleanup', 'cleanJournal', 'putAccount']) t.equal(typeof journal[name], 'function', `journal.${name}`);
  await runOn(evm, TARGET);
  t.not(fields._block, undefined, 'runCall sets EVM._block');
  const tx = fields._tx as { gasPrice?: unknown; origin?: unknown };
  t.equal(typeof tx.gasPrice, 'bigint', 'EVM._tx.gasPrice');
  t.ok(tx.origin instanceof Address, 'EVM._tx.origin');
});

t.test('the interpreter\'s result and run state carry what ChainEvm reads', async (t) => {
  const evm = await createEVM({ common: common(), stateManager: await state(WRITE_LOG_RETURN) });
  const r = await runOn(evm, TARGET);
  const interpreter = (r.execResult.runState as unknown as { interpreter: Record<string, unknown> }).interpreter;
  const result = interpreter._result as Record<string, unknown>;
  t.ok(Array.isArray(result.logs), '_result.logs');
  t.ok(result.selfdestruct instanceof Map, '_result.selfdestruct is a Map');
  t.ok(result.returnValue instanceof Uint8Array, '_result.returnValue');
  t.equal(typeof interpreter._env, 'object', '_env');
  t.equal(interpreter._evm, evm, '_evm');
  const analysis = (interpreter._getValidJumpDestinations as (c: Uint8Array) => Record<string, unknown>).call(interpreter, Uint8Array.of(0x5b, 0x60, 1));
  t.ok(analysis.jumps instanceof Uint8Array, 'jump analysis: jumps');
  t.equal(typeof analysis.pushes, 'object', 'jump analysis: pushes');
  t.ok(Array.isArray(analysis.opcodesCached), 'jump analysis: opcodesCached');
  const runState = r.execResult.runState as unknown as Record<string, unknown>;
  t.equal(typeof runState.gasLeft, 'bigint', 'runState.gasLeft');
  t.equal(typeof runState.gasRefund, 'bigint', 'runState.gasRefund');
});

t.test('ChainEvm returns the library\'s result fields, run state included, for calls, reverts and creations', async (t) => {
  for (const [label, code, to, data] of [
    ['call with a write and a log', WRITE_LOG_RETURN, TARGET, '0x'],
    ['revert', REVERT, TARGET, '0x'],
    ['selfdestruct', DESTRUCT, TARGET, '0x'],
    ['creation', WRITE_LOG_RETURN, undefined, `0x${WRITE_LOG_RETURN}`],
  ] as const) {
    const library = await runOn(await createEVM({ common: common(), stateManager: await state(code) }), to, data);
    // Twice on ours: the first run learns the Interpreter class through the library's own method.
    const oursEvm = await createChainEvm(common(), await state(code), noBlocks);
    await runOn(oursEvm, to, data);
    const ours = await runOn(await createChainEvm(common(), await state(code), noBlocks), to, data);
    const keys = (o: object) => Object.keys(o).sort();
    t.same(keys(ours.execResult), keys(library.execResult), `${label}: result fields`);
    t.same(keys(ours.execResult.runState ?? {}), keys(library.execResult.runState ?? {}), `${label}: run state fields`);
    t.equal(ours.execResult.executionGasUsed, library.execResult.executionGasUsed, `${label}: gas`);
    t.equal(ours.execResult.exceptionError?.error, library.execResult.exceptionError?.error, `${label}: error`);
  }
});

t.test('a self-destruct is reported as the executor reads it: a Map from 0x-hex address', async (t) => {
  const r = await runOn(await createChainEvm(common(), await state(DESTRUCT), noBlocks), TARGET);
  t.same([...(r.execResult.selfdestruct?.entries() ?? [])], [[TARGET.toString(), HEIR.toString()]]);
});
