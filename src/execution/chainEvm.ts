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
//
// Every interpreter is our subclass, which adds two things the library lacks: the run's clock
// (execution/runClock.ts: a deadline, and turns of the event loop during a long run) and a step
// event for REVERT that reads only memory the run has paid for (the library's reads the whole
// range before charging it, growing memory to whatever the stack names).

import { EVM, EVMError, NobleBN254, type EVMOpts, type EVMResult, type ExecResult, type Message } from '@ethereumjs/evm';
import { Account, createZeroAddress } from '@ethereumjs/util';
import { LIBRARY_STEP, type ClockedEvm, type RunClock } from './runClock.js';

/** The library's Interpreter, as much of it as this file touches (the package does not export it). */
interface InterpreterLike {
  _evm: EVM & ClockedEvm;
  _result: { logs: unknown[]; returnValue?: Uint8Array; selfdestruct: Map<unknown, unknown>; createdAddresses?: Set<string> };
  _env: Record<string, unknown>;
  _runState: { opCode: number; memory: MemoryLike };
  run(code: Uint8Array, opts: object): Promise<{ runState: Record<string, unknown> & { gasLeft: bigint; gasRefund: bigint; stateGasSpilled?: bigint }; exceptionError?: EVMError }>;
  runStep(opcode?: unknown): Promise<void>;
  _runStepHook(dynamicFee: bigint, gasLeft: bigint, memoryWords: bigint): Promise<void>;
  _getValidJumpDestinations(code: Uint8Array): JumpAnalysis;
  lookupOpInfo(op: number): unknown;
}
interface MemoryLike {
  _store: Uint8Array;
  read(offset: number, size: number, avoidCopy?: boolean): Uint8Array;
}
type InterpreterClass = new (...args: unknown[]) => InterpreterLike;
interface JumpAnalysis { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: unknown[] }

/** Learned from the first run through the library's own method (its result carries the interpreter). */
let CachingInterpreter: InterpreterClass | undefined;
/** The same with the run's clock: for runs that have one (calls, estimates, traces), not for blocks. */
let ClockedInterpreter: InterpreterClass | undefined;

function learn(Base: InterpreterClass): void {
  CachingInterpreter = cachingSubclass(Base);
  ClockedInterpreter = clockedSubclass(CachingInterpreter);
}

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

    // The library's step event reads REVERT's whole range (for its `error` field) before the gas
    // for it is charged: an unpayable range fails the trace with a RangeError, a large one grows
    // memory by as much. Here the read sees only the memory paid for (the rest reads as zeros), and
    // nothing when the op's cost (memory included) exceeds the gas left: it fails out of gas next.
    override _runStepHook(dynamicFee: bigint, gasLeft: bigint, memoryWords: bigint): Promise<void> {
      const state = this._runState;
      if (state.opCode !== 0xfd) return super._runStepHook(dynamicFee, gasLeft, memoryWords);
      const memory = state.memory;
      const paid = Number(memoryWords) * 32;
      state.memory = {
        _store: memory._store,
        read: (offset, size) => (dynamicFee > gasLeft ? new Uint8Array(0) : paidRange(memory._store, paid, offset, size)),
      };
      return super._runStepHook(dynamicFee, gasLeft, memoryWords).finally(() => {
        state.memory = memory;
      });
    }
  };
}

function clockedSubclass(Base: InterpreterClass): InterpreterClass {
  return class extends Base {
    // The run's clock, every few hundred steps: past the deadline it throws (not an EVM error, so
    // the whole run stops), after a slice it waits for a turn of the event loop.
    override runStep(opcode?: unknown): Promise<void> {
      const clock = this._evm.runClock;
      if (clock !== undefined && (clock.steps -= LIBRARY_STEP) <= 0) {
        const turn = clock.tick();
        if (turn !== undefined) return turn.then(() => super.runStep(opcode));
      }
      return super.runStep(opcode);
    }
  };
}

/** `size` bytes at `offset` of memory of which `paid` bytes exist, zeros past them. */
function paidRange(store: Uint8Array, paid: number, offset: number, size: number): Uint8Array {
  const out = new Uint8Array(size);
  if (offset < paid) out.set(store.subarray(offset, Math.min(paid, offset + size)));
  return out;
}

/**
 * EIPs that add work to `_executeCall` (frame charges, access witnesses, access lists, transfer
 * logs, delegation, transient storage cleanup): with any of them active the library's own method runs.
 */
const FRAME_EIPS = [1153, 2780, 6800, 7702, 7708, 7864, 7928];

export class ChainEvm extends EVM implements ClockedEvm {
  /** the clock of the run in progress (set by withClock); declared here so the object's shape never changes */
  runClock: RunClock | undefined = undefined;

  constructor(opts: EVMOpts) {
    super({ ...opts, bn254: opts.bn254 ?? new NobleBN254() });
  }

  protected override async _executeCall(message: Message & { to: NonNullable<Message['to']> }): Promise<EVMResult> {
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
      if (CachingInterpreter === undefined && interpreter) learn(interpreter.constructor);
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
    const interpreter = new (this.runClock === undefined ? CachingInterpreter : ClockedInterpreter!)(
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

  /**
   * The package does not export its Interpreter class; the result of a run carries it. A STOP run
   * on the first EVM made learns it (before anyone listens to its events), so that every real run
   * runs on our subclass, with the clock.
   */
  async prepare(): Promise<void> {
    if (CachingInterpreter === undefined) await this.runCode({ code: Uint8Array.of(0x00), gasLimit: 0n });
  }
}
