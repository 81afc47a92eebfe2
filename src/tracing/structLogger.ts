// geth's struct (opcode) logger: one entry per executed opcode with the gas before it, its cost,
// the call depth (1 = the transaction's frame), and optionally stack, memory, storage seen so
// far and the last call's return data.

import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { TraceLimit, gethError, type FrameEnd, type Tracer, type TxOutcome } from './tracer.js';

export interface StructLoggerOptions {
  disableStack: boolean;
  disableStorage: boolean;
  enableMemory: boolean;
  enableReturnData: boolean;
  /** stop recording after this many entries (geth's `limit`); 0 = no limit */
  limit: number;
}

/** The most entries one trace may hold; beyond it the trace fails with an error naming the cap. */
export const STRUCT_LOG_CAP = 1_000_000;

export interface StructLog {
  pc: number;
  op: string;
  gas: bigint;
  gasCost: bigint;
  depth: number;
  refund: bigint;
  error?: string;
  stack?: bigint[];
  memory?: Uint8Array;
  returnData?: Uint8Array;
  /** storage of the running contract seen so far (SLOAD / SSTORE entries only): slot → value */
  storage?: Map<bigint, bigint>;
}

export interface StructTrace {
  gas: bigint;
  failed: boolean;
  returnValue: Uint8Array;
  structLogs: StructLog[];
}

export class StructLogger implements Tracer<StructTrace> {
  private readonly logs: StructLog[] = [];
  /** storage seen per contract (hex address) */
  private readonly storage = new Map<string, Map<bigint, bigint>>();
  /** an SLOAD whose loaded value shows on the stack at the next step */
  private pendingLoad: { log: StructLog; address: string; slot: bigint } | undefined;
  /** return data buffer per depth: the output of the last finished child call */
  private readonly returnData: Uint8Array[] = [];
  /** index of the last entry per depth, to mark a failed frame's last step */
  private readonly lastAt: number[] = [];

  constructor(
    private readonly options: StructLoggerOptions,
    private readonly cap = STRUCT_LOG_CAP,
  ) {}

  step(step: InterpreterStep): void {
    if (this.pendingLoad) this.settleLoad(step);
    if (this.options.limit > 0 && this.logs.length >= this.options.limit) return;
    if (this.logs.length >= this.cap) throw new TraceLimit(`struct log limit exceeded: more than ${this.cap} steps (use a callTracer or geth's limit option)`);
    const log: StructLog = {
      pc: step.pc,
      op: step.opcode.name,
      gas: step.gasLeft,
      gasCost: step.opcode.dynamicFee ?? BigInt(step.opcode.fee),
      depth: step.depth + 1,
      refund: step.gasRefund,
    };
    if (!this.options.disableStack) log.stack = step.stack;
    if (this.options.enableMemory) log.memory = step.memory;
    if (this.options.enableReturnData) log.returnData = this.returnData[step.depth];
    if (!this.options.disableStorage && (step.opcode.name === 'SLOAD' || step.opcode.name === 'SSTORE') && step.stack.length > 0) {
      const address = step.address.toString();
      let seen = this.storage.get(address);
      if (!seen) this.storage.set(address, (seen = new Map()));
      const slot = step.stack[step.stack.length - 1];
      if (step.opcode.name === 'SSTORE' && step.stack.length > 1) {
        seen.set(slot, step.stack[step.stack.length - 2]);
        log.storage = new Map(seen);
      } else {
        this.pendingLoad = { log, address, slot };
        log.storage = new Map(seen);
      }
    }
    this.lastAt[step.depth] = this.logs.length;
    this.logs.push(log);
  }

  private settleLoad(step: InterpreterStep): void {
    const { log, address, slot } = this.pendingLoad!;
    this.pendingLoad = undefined;
    const value = step.stack[step.stack.length - 1];
    if (value === undefined) return;
    this.storage.get(address)!.set(slot, value);
    log.storage!.set(slot, value);
  }

  /** depths of the open frames; afterMessage carries no depth, and frames close in reverse order */
  private readonly open: number[] = [];

  enter(message: Message): void {
    this.open.push(message.depth);
    this.returnData[message.depth] = new Uint8Array();
  }

  exit(result: EVMResult, end?: FrameEnd): void {
    const depth = this.open.pop() ?? 0;
    if (depth > 0) this.returnData[depth - 1] = result.execResult.returnValue.slice();
    const error = result.execResult.exceptionError?.error;
    const last = this.lastAt[depth];
    if (error && error !== 'revert' && last !== undefined && this.logs[last]) this.logs[last].error = end?.error ?? gethError(error);
  }

  finish(outcome: TxOutcome): StructTrace {
    const failed = outcome.error !== undefined;
    return {
      gas: outcome.gasUsed,
      failed,
      returnValue: failed && outcome.error !== 'revert' ? new Uint8Array() : outcome.returnValue,
      structLogs: this.logs,
    };
  }
}
