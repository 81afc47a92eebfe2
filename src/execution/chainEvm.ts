// The EVM every block, call and app chain runs on: @ethereumjs/evm with two methods replaced and
// one analysis cached, all for speed, with the library's semantics (test/unit/execution/chainEvm.test.ts
// runs programs on both and compares).
//
// `runInterpreter` in @ethereumjs/evm 10.x ends by merging the interpreter's run state, result and
// environment with overlapping object spreads; V8 takes a slow path there (~45 µs of a ~126 µs
// one-SLOAD mc_call). Nothing reads that merged `runState` but by name, so ours builds it when read.
// `_executeCall` copies the message with another slow spread (~20 µs); where no EIP that adds
// charges to a call frame is active, ours runs the same steps and passes the message on as it is.
// The jump-destination analysis is kept per code array (a WeakMap, so it lives as long as the
// caches holding the code) instead of being redone on every call.

import { EVM, EVMError, NobleBN254, type EVMOpts, type EVMResult, type ExecResult, type Message } from '@ethereumjs/evm';
import { Account, createZeroAddress } from '@ethereumjs/util';
import { isConsoleAddress, type ConsoleCapture } from './consoleLog.js';

/** The library's Interpreter, as much of it as this file touches (the package does not export it). */
interface InterpreterLike {
  _result: { logs: unknown[]; returnValue?: Uint8Array; selfdestruct: Map<unknown, unknown>; createdAddresses?: Set<string> };
  _env: Record<string, unknown>;
  run(code: Uint8Array, opts: object): Promise<{ runState: Record<string, unknown> & { gasLeft: bigint; gasRefund: bigint; stateGasSpilled?: bigint }; exceptionError?: EVMError }>;
  _getValidJumpDestinations(code: Uint8Array): JumpAnalysis;
  lookupOpInfo(op: number): unknown;
}
type InterpreterClass = new (...args: unknown[]) => InterpreterLike;
interface JumpAnalysis { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: unknown[] }

/** Learned from the first run through the library's own method (its result carries the interpreter). */
let CachingInterpreter: InterpreterClass | undefined;

function cachingSubclass(Base: InterpreterClass): InterpreterClass {
  // Keyed by the code array, and checked against the opcode table it was made with (a hardfork
  // change swaps the table). Code from state is never written; CREATE's init code is a new view
  // of memory each time, run once before that memory can change.
  const analyses = new WeakMap<Uint8Array, { table: unknown; analysis: JumpAnalysis }>();
  return class extends Base {
    override _getValidJumpDestinations(code: Uint8Array): JumpAnalysis {
      const table = (this as unknown as { _evm: { _opcodeMap: unknown } })._evm._opcodeMap;
      const hit = analyses.get(code);
      if (hit !== undefined && hit.table === table) return hit.analysis;
      const analysis = super._getValidJumpDestinations(code);
      analyses.set(code, { table, analysis });
      return analysis;
    }
  };
}

/**
 * EIPs that add work to `_executeCall` (frame charges, access witnesses, access lists, transfer
 * logs, delegation, transient storage cleanup): with any of them active the library's own method runs.
 */
const FRAME_EIPS = [1153, 2780, 6800, 7702, 7708, 7864, 7928];

export class ChainEvm extends EVM {
  /** records console.log payloads when set (execution/consoleLog.ts); undefined costs one check per call frame */
  console: ConsoleCapture | undefined;

  constructor(opts: EVMOpts) {
    super({ ...opts, bn254: opts.bn254 ?? new NobleBN254() });
  }

  protected override async _executeCall(message: Message & { to: NonNullable<Message['to']> }): Promise<EVMResult> {
    const capture = this.console;
    if (capture !== undefined && isConsoleAddress(message.codeAddress.bytes)) capture.record(message.data);
    if (
      this.DEBUG || this._optsCached.profiler?.enabled === true || message.code !== undefined ||
      FRAME_EIPS.some((eip) => this.common.isActivatedEIP(eip))
    ) {
      return super._executeCall(message);
    }
    // The library's steps for a plain call frame: value out of the caller, into the callee, load
    // the code (or the precompile), run it. No charge changes the frame's gas, so the message
    // goes on unchanged.
    let error: EVMError | undefined;
    const from = (await this.stateManager.getAccount(message.caller)) ?? new Account();
    if (!message.delegatecall) {
      try {
        await this._reduceSenderBalance(from, message);
      } catch (e) {
        error = e as EVMError;
      }
    }
    const to = (await this.stateManager.getAccount(message.to)) ?? new Account();
    if (!message.delegatecall) {
      try {
        await this._addToBalance(to, message);
      } catch (e) {
        error = e as EVMError;
      }
    }
    await this._loadCode(message);
    const code = message.code as Uint8Array | undefined;
    if (code === undefined || (typeof code !== 'function' && code.length === 0) || error !== undefined) {
      return {
        execResult: { gasRefund: message.gasRefund, executionGasUsed: 0n, exceptionError: error, returnValue: new Uint8Array(0), logs: undefined },
      } as EVMResult;
    }
    if (message.isCompiled) {
      const result = await this.runPrecompile(message.code as never, message.data, message.gasLimit);
      result.gasRefund = message.gasRefund;
      return { execResult: result } as EVMResult;
    }
    return { execResult: await this.runInterpreter(message, {}) } as EVMResult;
  }

  protected override async runInterpreter(message: Message, opts: object = {}): Promise<ExecResult> {
    const to = message.to;
    const block = this._block;
    const tx = this._tx;
    if (CachingInterpreter === undefined || to === undefined || block === undefined || tx === undefined) {
      const out = await super.runInterpreter(message, opts);
      const interpreter = out.runState?.interpreter as unknown as { constructor: InterpreterClass } | undefined;
      if (CachingInterpreter === undefined && interpreter) CachingInterpreter = cachingSubclass(interpreter.constructor);
      return out;
    }
    const contract = (await this.stateManager.getAccount(to)) ?? new Account();
    const env = {
      address: to,
      caller: message.caller ?? createZeroAddress(),
      callData: message.data ?? Uint8Array.from([0]),
      callValue: message.value ?? 0n,
      code: message.code,
      isStatic: message.isStatic ?? false,
      isCreate: (message as { isCreate?: boolean }).isCreate ?? false,
      depth: message.depth ?? 0,
      gasPrice: tx.gasPrice,
      origin: tx.origin ?? message.caller ?? createZeroAddress(),
      block,
      contract,
      codeAddress: message.codeAddress,
      gasRefund: message.gasRefund,
      chargeCodeAccesses: message.chargeCodeAccesses,
      blobVersionedHashes: message.blobVersionedHashes ?? [],
      accessWitness: message.accessWitness,
      createdAddresses: message.createdAddresses,
      initialLogs: (opts as { initialLogs?: unknown[] }).initialLogs,
    };
    const interpreter = new CachingInterpreter(
      this, this.stateManager, this.blockchain, env, message.gasLimit, this.journal, this.performanceLogger, this._optsCached.profiler,
    );
    if (message.selfdestruct) interpreter._result.selfdestruct = message.selfdestruct;
    if (message.createdAddresses) interpreter._result.createdAddresses = message.createdAddresses;
    const res = await interpreter.run(message.code as Uint8Array, opts);
    let result = interpreter._result;
    let gasUsed = message.gasLimit - res.runState.gasLeft;
    const error = res.exceptionError;
    if (error) {
      if (error.error !== EVMError.errorMessages.REVERT && error.error !== EVMError.errorMessages.INVALID_EOF_FORMAT) gasUsed = message.gasLimit;
      result = { ...result, logs: [], selfdestruct: new Map(), createdAddresses: new Set() };
    }
    message.accessWitness?.commit();
    const state = res.runState;
    const merged = result;
    return {
      logs: result.logs,
      returnValue: result.returnValue ?? new Uint8Array(0),
      selfdestruct: result.selfdestruct,
      createdAddresses: result.createdAddresses,
      // The library's merge, made when (if ever) someone reads it.
      get runState() {
        return Object.assign({}, state, merged, interpreter._env);
      },
      exceptionError: error,
      gas: state.gasLeft,
      executionGasUsed: gasUsed,
      gasRefund: state.gasRefund,
      stateGasSpilled: state.stateGasSpilled,
    } as unknown as ExecResult;
  }
}
