// geth's callTracer: the tree of call frames of a transaction (type, from, to, value, gas,
// gasUsed, input, output, error, revertReason, child calls and, with `withLog`, each frame's
// own logs with their position among its calls).

import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { gethError, type FrameEnd, type TracedTx, type Tracer, type TxOutcome } from './tracer.js';
import { decodeRevertReason } from '../execution/revertReason.js';

export interface CallTracerOptions {
  onlyTopCall: boolean;
  withLog: boolean;
}

export interface CallLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  /** number of child calls of the frame made before this log */
  position: number;
}

export interface CallFrame {
  type: string;
  from: Uint8Array;
  to: Uint8Array | undefined;
  /** undefined for DELEGATECALL and STATICCALL */
  value: bigint | undefined;
  gas: bigint;
  gasUsed: bigint;
  input: Uint8Array;
  output: Uint8Array | undefined;
  error: string | undefined;
  revertReason: string | undefined;
  calls: CallFrame[];
  logs: CallLog[];
}

const CALL_OPS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2']);

export class CallTracer implements Tracer<CallFrame> {
  private readonly stack: CallFrame[] = [];
  private root: CallFrame | undefined;
  private tx: TracedTx | undefined;
  /** the opcode that opened the next frame (the EVM's message carries no opcode) */
  private lastCallOp: string | undefined;

  constructor(private readonly options: CallTracerOptions) {}

  begin(tx: TracedTx): void {
    this.tx = tx;
  }

  step(step: InterpreterStep): void {
    const op = step.opcode.name;
    if (CALL_OPS.has(op)) this.lastCallOp = op;
    else if (this.options.withLog && op.startsWith('LOG')) this.log(step, Number(op.slice(3)));
  }

  private log(step: InterpreterStep, topicCount: number): void {
    const frame = this.stack.at(-1);
    if (!frame || step.stack.length < 2 + topicCount) return;
    // A LOG whose cost (its memory included) exceeds the gas left fails next, and a failed frame's
    // logs are dropped: its range, which memory does not hold yet, is never read.
    if (step.opcode.dynamicFee !== undefined && step.opcode.dynamicFee > step.gasLeft) return;
    const s = step.stack;
    const offset = Number(s[s.length - 1]);
    const size = Number(s[s.length - 2]);
    const data = new Uint8Array(size);
    // Memory is the state before the opcode, which may still grow it: the rest reads as zeros.
    data.set(step.memory.subarray(offset, offset + size));
    const topics: Uint8Array[] = [];
    for (let i = 0; i < topicCount; i++) topics.push(word(s[s.length - 3 - i]));
    frame.logs.push({ address: step.address.bytes, topics, data, position: frame.calls.length });
  }

  enter(message: Message): void {
    const depth = message.depth;
    const isCreate = message.to === undefined || message.isCreate === true;
    const type = depth === 0 ? (isCreate ? 'CREATE' : 'CALL') : this.lastCallOp ?? (isCreate ? 'CREATE' : 'CALL');
    this.lastCallOp = undefined;
    const frame: CallFrame = {
      type,
      from: message.caller.bytes,
      to: isCreate ? undefined : message.to!.bytes,
      value: type === 'DELEGATECALL' || type === 'STATICCALL' ? undefined : message.value,
      gas: depth === 0 && this.tx ? this.tx.gas : message.gasLimit,
      gasUsed: 0n,
      // The message's data may be a view of the caller's memory, which keeps changing.
      input: message.data.slice(),
      output: undefined,
      error: undefined,
      revertReason: undefined,
      calls: [],
      logs: [],
    };
    // DELEGATECALL and CALLCODE run the target's code in the calling contract: geth names the
    // calling contract `from` and the code's address `to`.
    if ((type === 'DELEGATECALL' || type === 'CALLCODE') && message._codeAddress) {
      if (type === 'DELEGATECALL' && message.to) frame.from = message.to.bytes;
      frame.to = message._codeAddress.bytes;
    }
    this.stack.push(frame);
  }

  exit(result: EVMResult, end?: FrameEnd): void {
    const frame = this.stack.pop();
    if (!frame) return;
    const exec = result.execResult;
    frame.gasUsed = exec.executionGasUsed;
    if (frame.type === 'CREATE' || frame.type === 'CREATE2') {
      frame.to = result.createdAddress?.bytes;
    }
    const error = exec.exceptionError?.error;
    if (error === undefined) {
      frame.output = exec.returnValue.slice();
    } else {
      frame.error = end?.error ?? gethError(error);
      if (frame.type === 'CREATE' || frame.type === 'CREATE2') frame.to = undefined;
      if (error === 'revert' && exec.returnValue.length > 0) {
        frame.output = exec.returnValue.slice();
        frame.revertReason = decodeRevertReason(exec.returnValue);
      }
    }
    const parent = this.stack.at(-1);
    if (parent) {
      if (!this.options.onlyTopCall) parent.calls.push(frame);
    } else {
      this.root = frame;
    }
  }

  finish(outcome: TxOutcome): CallFrame {
    // A setter or settlement system transaction runs no EVM frame: its frame is the transaction.
    const tx = this.tx;
    const root = this.root ?? (tx && {
      type: 'CALL', from: tx.from, to: tx.to, value: tx.value, gas: tx.gas, gasUsed: 0n, input: tx.data,
      output: undefined, error: undefined, revertReason: undefined, calls: [], logs: [],
    });
    if (!root) throw new Error('call tracer saw no frame');
    root.gasUsed = outcome.gasUsed;
    if (this.options.withLog) dropFailedLogs(root, false);
    return root;
  }
}

/** A failed frame's logs never happened, nor those of the frames inside it. */
function dropFailedLogs(frame: CallFrame, parentFailed: boolean): void {
  const failed = parentFailed || frame.error !== undefined;
  if (failed) frame.logs = [];
  for (const child of frame.calls) dropFailedLogs(child, failed);
}

function word(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let v = value;
  for (let i = 31; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}
