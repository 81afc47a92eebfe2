// Runs one mc_call / mc_estimateGas message the way the library EVM runs it through `runCall`
// (CallExecutor's reference: the same caller top-up, nonce increment, value transfers, frame
// checkpoints, gas and results), on our own interpreter. Frames live on an explicit stack, so a
// frame waiting for state or for its child keeps its place: a missing account, code, slot or
// block hash suspends the run (`start` answers S_NEED) until `complete` has loaded it, then the
// same op runs again. A message that meets something not implemented here (an opcode such as
// BASEFEE, an asynchronous precompile, too much gas) gives S_ABORT / undefined: a call has no
// side effects, so the caller simply runs it on the library instead. The run's clock suspends it
// the same way every CLOCK_STEPS steps: `complete` looks at the deadline and lets the event loop
// turn before it goes on.

import type { EVM } from '@ethereumjs/evm';
import { codeInfo } from './analysis.js';
import { createdAddress } from './callOps.js';
import {
  ERR_BAD_CODE, ERR_CODESIZE, ERR_CODESTORE_OOG, ERR_COLLISION, ERR_INSUFFICIENT, ERR_JUMP, ERR_OOG, ERR_REVERT,
  ERR_VALUE_OVERFLOW, ERROR_TEXT, EMPTY, Frame, MAX_CALL_GAS, S_ABORT, S_DESCEND, S_HALT, S_NEED, WAIT_CALL, bytesToWord,
} from './frame.js';
import { execute } from './interpreter.js';
import { RunClock } from '../runClock.js';
import type { CallRules, Precompile } from './rules.js';
import { CallAccount, type CallWorld, toAddress } from './world.js';
import { keccak256 } from '../../encoding/bytes.js';
import { bytesToHex } from '../../encoding/hex.js';

const U256 = (1n << 256n) - 1n;
/** A precompile's own error (its text is passed on). */
const ERR_PRECOMPILE = 99;
/** Loads one message may wait for before it goes to the library instead. */
const MAX_LOADS = 100_000;

export interface FastMessage {
  caller: bigint;
  /** undefined: a creation */
  to: bigint | undefined;
  value: bigint;
  data: Uint8Array;
  gasLimit: number;
  gasPrice: bigint;
}

export interface FastBlock {
  number: bigint;
  timestamp: bigint;
  coinbase: bigint;
  difficulty: bigint;
  gasLimit: bigint;
}

export interface FastOutcome {
  returnValue: Uint8Array;
  /** execution gas (the caller adds the intrinsic gas) */
  gasUsed: number;
  error: string | undefined;
}

/** Block hashes by number, as BLOCKHASH reads them (zeros for an unknown block). */
export type BlockHashes = (number: bigint) => Promise<Uint8Array>;

export class Engine {
  origin = 0n;
  gasPrice = 0n;
  coinbase = 0n;
  number = 0n;
  timestamp = 0n;
  difficulty = 0n;
  blockGasLimit = 0n;

  /** the bound of the running message (a new one per message) */
  clock: RunClock = new RunClock(Infinity);
  private frames: Frame[] = [];
  /** one frame object per call depth (with its stack and memory) */
  private readonly pool: Frame[] = [];
  private readonly hashes = new Map<bigint, bigint>();
  private needBlock: bigint | undefined;

  constructor(
    readonly rules: CallRules,
    readonly world: CallWorld,
    private readonly blockHashes: BlockHashes,
    /** the library EVM whose precompiles run here */
    private readonly evm: EVM,
  ) {}

  /**
   * Starts the message. S_HALT: `outcome` holds the result; S_ABORT: it must run on the library;
   * S_NEED: it waits for state, and `complete()` loads and finishes it.
   */
  start(msg: FastMessage, block: FastBlock, clock: RunClock = new RunClock(Infinity)): number {
    if (msg.gasLimit > MAX_CALL_GAS) return S_ABORT;
    this.clock = clock;
    this.origin = msg.caller;
    this.gasPrice = msg.gasPrice;
    this.coinbase = block.coinbase;
    this.number = block.number;
    this.timestamp = block.timestamp;
    this.difficulty = block.difficulty;
    this.blockGasLimit = block.gasLimit;
    this.outcome = undefined;
    this.message = msg;
    this.loads = 0;
    let status = S_ABORT;
    try {
      status = this.begin(msg);
      return status;
    } finally {
      if (status !== S_NEED) this.end();
    }
  }

  /** Loads what the started message waits for and runs it to its end; undefined: run it on the library. */
  async complete(): Promise<FastOutcome | undefined> {
    try {
      let status = S_NEED;
      while (status === S_NEED) {
        if (this.clock.steps <= 0) await this.clock.tick();
        else if (++this.loads > MAX_LOADS) return undefined;
        else await this.load();
        status = this.started ? this.drive() : this.begin(this.message!);
      }
      return status === S_ABORT ? undefined : this.outcome;
    } finally {
      this.end();
    }
  }

  /** Runs the message to its end; undefined when it must run on the library instead. */
  async run(msg: FastMessage, block: FastBlock, clock?: RunClock): Promise<FastOutcome | undefined> {
    const status = this.start(msg, block, clock);
    if (status === S_NEED) return this.complete();
    return status === S_HALT ? this.outcome : undefined;
  }

  /** the result of the last message (after S_HALT) */
  outcome: FastOutcome | undefined;
  private message: FastMessage | undefined;
  private loads = 0;
  /** the top-level message has made its first write: a resumed run continues the frames */
  private started = false;

  private end(): void {
    // frames left by a message that stopped early (fallback, fault) give their memory back too
    for (const f of this.frames) f.release();
    this.frames.length = 0;
    if (this.hashes.size !== 0) this.hashes.clear();
    this.needBlock = undefined;
    this.started = false;
    this.message = undefined;
    this.world.reset();
  }

  /** The top-level message up to its first frame, then the frames; S_NEED before any write when the start needs state. */
  private begin(msg: FastMessage): number {
    const w = this.world;
    const caller = w.account(msg.caller);
    if (caller === undefined) return S_NEED;
    let target = msg.to;
    if (target !== undefined) {
      if (w.account(target) === undefined) return S_NEED;
      if (!this.rules.precompiles.has(target) && w.code(target) === undefined) return S_NEED;
    } else {
      target = createdAddress(msg.caller, caller.nonce, undefined, msg.data);
      if (w.account(target) === undefined) return S_NEED;
    }
    // runCall with skipBalance: the caller gets at least the value, and its nonce goes up.
    this.started = true;
    if (caller.balance < msg.value) w.setBalance(msg.caller, msg.value);
    w.setNonce(msg.caller, caller.nonce + 1n);
    if (msg.to === undefined && this.rules.eip2929) w.warmAddress(target);
    const result = msg.to === undefined
      ? this.enterCreate(msg.caller, target, msg.value, msg.data, msg.gasLimit, 0)
      : this.enterCall(msg.caller, msg.to, msg.to, msg.value, msg.data, msg.gasLimit, 0, false, false);
    if (result === S_ABORT) return S_ABORT;
    return result === S_DESCEND ? this.drive() : S_HALT;
  }

  /** Runs frames until the top one halts; S_NEED when one waits for state (`complete` loads it and calls again). */
  private drive(): number {
    for (;;) {
      const f = this.frames[this.frames.length - 1];
      if (f === undefined) return S_HALT;
      this.world.journaling = f.depth > 0;
      const status = execute(this, f);
      if (status === S_NEED || status === S_ABORT) return status;
      if (status === S_DESCEND) continue;
      this.frames.pop();
      if (f.isCreate) this.finishCreate(f);
      else this.finishFrame(f);
    }
  }

  /** Loads what stopped the run, then continues it. */
  private async load(): Promise<void> {
    if (this.needBlock !== undefined) {
      const n = this.needBlock;
      this.needBlock = undefined;
      this.hashes.set(n, bytesToWord(await this.blockHashes(n)));
    } else {
      await this.world.load();
    }
  }

  blockHash(n: bigint): bigint | undefined {
    const hash = this.hashes.get(n);
    if (hash === undefined) this.needBlock = n;
    return hash;
  }

  // --- frame entry and exit ---

  /** runCall + _executeCall of a message: value transfer, then a precompile, nothing, or a frame. */
  enterCall(
    caller: bigint, to: bigint, codeAddress: bigint, value: bigint, data: Uint8Array,
    gasLimit: number, depth: number, isStatic: boolean, delegate: boolean,
  ): number {
    const w = this.world;
    w.journaling = depth > 0;
    const mark = w.checkpoint();
    let error = 0;
    if (!delegate) {
      const balance = w.account(caller)!.balance - value;
      if (balance < 0n) error = ERR_INSUFFICIENT;
      else w.setBalance(caller, balance);
      const received = w.account(to)!.balance + value;
      if (received > U256) error = ERR_VALUE_OVERFLOW;
      else w.setBalance(to, received);
    }
    if (error !== 0) return this.settle(depth, mark, error, EMPTY, 0, undefined, 0n);
    const precompile = this.rules.precompiles.get(codeAddress);
    if (precompile !== undefined) return this.runPrecompile(precompile, data, gasLimit, depth, mark);
    const code = w.code(codeAddress)!;
    if (code.length === 0) return this.settle(depth, mark, 0, EMPTY, 0, undefined, 0n);
    const frame = this.frame(to, caller, codeAddress, value, data, code, isStatic, depth, gasLimit, false);
    frame.mark = mark;
    this.frames.push(frame);
    return S_DESCEND;
  }

  /** runCall + _executeCreate up to the init code's frame. */
  enterCreate(creator: bigint, target: bigint, value: bigint, init: Uint8Array, gasLimit: number, depth: number): number {
    const w = this.world;
    const r = this.rules;
    w.journaling = depth > 0;
    const mark = w.checkpoint();
    w.setBalance(creator, w.account(creator)!.balance - value);
    const t = w.account(target)!;
    const hasCode = t instanceof CallAccount ? (t.code !== undefined ? t.code.length > 0 : !t.base.noCode) : !t.noCode;
    const hasStorage = t instanceof CallAccount ? !t.base.noStorage : !t.noStorage;
    if (t.nonce > 0n || hasCode || hasStorage) return this.settle(depth, mark, ERR_COLLISION, EMPTY, gasLimit, undefined, target);
    const nonce = t.nonce;
    const balance = t.balance + value;
    w.touch(target);
    w.clearStorage(target);
    if (balance > U256) return this.settle(depth, mark, ERR_VALUE_OVERFLOW, EMPTY, 0, undefined, target);
    if (r.eip161) w.setNonce(target, nonce + 1n);
    w.setBalance(target, balance);
    if (init.length === 0) return this.settle(depth, mark, 0, EMPTY, 0, undefined, target);
    const frame = this.frame(target, creator, target, value, EMPTY, init, false, depth, gasLimit, true);
    frame.mark = mark;
    frame.created = target;
    this.frames.push(frame);
    return S_DESCEND;
  }

  private runPrecompile(precompile: Precompile, data: Uint8Array, gasLimit: number, depth: number, mark: number): number {
    const evm = this.evm as unknown as { common: unknown; stateManager: unknown };
    const result = precompile({ data, gasLimit: BigInt(gasLimit), common: evm.common, _EVM: this.evm, _debug: undefined, stateManager: evm.stateManager }) as
      { executionGasUsed: bigint; returnValue?: Uint8Array; exceptionError?: { error: string } } | Promise<unknown>;
    if (result instanceof Promise) {
      result.catch(() => undefined);
      return S_ABORT;
    }
    const text = result.exceptionError?.error;
    return this.settle(depth, mark, text === undefined ? 0 : ERR_PRECOMPILE, result.returnValue ?? EMPTY, Number(result.executionGasUsed), text, 0n);
  }

  /** A call frame has halted. */
  private finishFrame(f: Frame): number {
    f.release();
    const text = f.depth === 0 && f.error === ERR_JUMP ? this.jumpError(f) : undefined;
    return this.settle(f.depth, f.mark, f.error, f.output, f.gasLimit - f.gas, text, 0n);
  }

  /** An init code frame has halted: pay for and store the code, as _executeCreate does. */
  private finishCreate(f: Frame): number {
    f.release();
    const r = this.rules;
    let error = f.error;
    let output = f.output;
    let gasUsed = f.gasLimit - f.gas;
    if (error === 0) {
      const deposit = output.length * r.p.createData;
      const total = gasUsed + deposit;
      const allowed = !(r.eip161 && output.length > r.p.maxCodeSize);
      if (total <= f.gasLimit && allowed) {
        if (r.eip3541 && output[0] === 0xef) error = ERR_BAD_CODE;
        else gasUsed = total;
      } else if (r.homestead) error = allowed ? ERR_OOG : ERR_CODESIZE;
      else if (gasUsed <= f.gasLimit) error = ERR_CODESTORE_OOG;
      else error = ERR_OOG;
      if (error === ERR_CODESTORE_OOG) output = EMPTY;
      else if (error !== 0) {
        gasUsed = f.gasLimit;
        output = EMPTY;
      }
    }
    if (error === 0 && output.length > 0) this.world.setCode(f.created, output);
    const text = f.depth === 0 && error === ERR_JUMP ? this.jumpError(f) : undefined;
    return this.settle(f.depth, f.mark, error, output, gasUsed, text, f.created);
  }

  /** A message has ended: revert it if it failed, then hand the result to the waiting frame (or keep it as the outcome). */
  private settle(depth: number, mark: number, error: number, output: Uint8Array, gasUsed: number, text: string | undefined, created: bigint): number {
    if (error !== 0 && !(error === ERR_CODESTORE_OOG && this.rules.chainstart)) this.world.revert(mark);
    if (depth === 0) {
      this.outcome = { returnValue: output, gasUsed, error: error === 0 ? undefined : text ?? ERROR_TEXT[error] };
      return S_HALT;
    }
    const parent = this.frames[this.frames.length - 1];
    parent.gas -= gasUsed;
    if (parent.wait === WAIT_CALL) {
      const data = error === 0 || error === ERR_REVERT ? output : EMPTY;
      parent.returnData = data;
      if (data.length > 0 && parent.outLength > 0) {
        parent.mem.set(data.length > parent.outLength ? data.subarray(0, parent.outLength) : data, parent.outOffset);
      }
      parent.stack[parent.sp++] = error === 0 ? 1n : 0n;
    } else {
      if (error === ERR_REVERT) parent.returnData = output;
      parent.stack[parent.sp++] = error === 0 || error === ERR_CODESTORE_OOG ? created : 0n;
    }
    parent.wait = 0;
    parent.pc++;
    return S_HALT;
  }

  /** The library's text: invalid JUMP at <code hash>/<address>:<pc>. */
  private jumpError(f: Frame): string {
    return `invalid JUMP at ${bytesToHex(keccak256(f.code))}/${toAddress(f.address).toString()}:${f.errorPc}`;
  }

  /** The frame object of `depth` (reused: frames at one depth never overlap), started on the message. */
  private frame(
    address: bigint, caller: bigint, codeAddress: bigint, value: bigint, data: Uint8Array, code: Uint8Array,
    isStatic: boolean, depth: number, gasLimit: number, isCreate: boolean,
  ): Frame {
    const f = (this.pool[depth] ??= new Frame(depth));
    return f.start(address, caller, codeAddress, value, data, code, codeInfo(code), isStatic, gasLimit, isCreate);
  }

}
