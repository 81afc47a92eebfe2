// The call tree as OpenEthereum's traces and Otterscan's operations see it: every CALL-family
// frame, CREATE and CREATE2 with the created code, and each SELFDESTRUCT as a frame of its own
// (beneficiary and balance). Gas is the frame's own: the top frame has the transaction's gas
// after intrinsic gas and its execution gas, as OpenEthereum reports them.

import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { equalBytes } from '../encoding/bytes.js';
import type { TracedTx, Tracer, TxOutcome } from './tracer.js';

export type FrameType = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2' | 'SELFDESTRUCT';

export interface TraceFrame {
  type: FrameType;
  /** the calling contract (DELEGATECALL: the contract whose context runs the code) */
  from: Uint8Array;
  /** callee or code address; the created contract (undefined when the creation failed); the SELFDESTRUCT beneficiary */
  to: Uint8Array | undefined;
  /** value sent (DELEGATECALL: the caller's; SELFDESTRUCT: the balance given away) */
  value: bigint;
  gas: bigint;
  gasUsed: bigint;
  /** call data, or the init code of a creation */
  input: Uint8Array;
  /** return data, or the created code */
  output: Uint8Array;
  /** the EVM's error word ("revert", "out of gas", …); undefined on success */
  error: string | undefined;
  depth: number;
  calls: TraceFrame[];
}

export interface FlatCallTrace {
  /** undefined for a transaction that ran no frame (a plain system transaction) */
  root: TraceFrame | undefined;
  tx: TracedTx | undefined;
  outcome: TxOutcome;
}

const CALL_OPS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2']);
const MASK160 = (1n << 160n) - 1n;

export class FlatCallTracer implements Tracer<FlatCallTrace> {
  private readonly stack: TraceFrame[] = [];
  private root: TraceFrame | undefined;
  private tx: TracedTx | undefined;
  /** the opcode that opened the next frame (the EVM's message carries no opcode) */
  private lastCallOp: FrameType | undefined;

  begin(tx: TracedTx): void {
    this.tx = tx;
  }

  step(step: InterpreterStep): void {
    const op = step.opcode.name;
    if (CALL_OPS.has(op)) this.lastCallOp = op as FrameType;
    else if (op === 'SELFDESTRUCT') this.selfdestruct(step);
  }

  private selfdestruct(step: InterpreterStep): void {
    const frame = this.stack.at(-1);
    if (!frame || step.stack.length < 1) return;
    frame.calls.push({
      type: 'SELFDESTRUCT', from: step.address.bytes, to: addressOf(step.stack[step.stack.length - 1]),
      value: step.account.balance, gas: 0n, gasUsed: 0n, input: new Uint8Array(), output: new Uint8Array(),
      error: undefined, depth: frame.depth + 1, calls: [],
    });
  }

  enter(message: Message): void {
    const depth = message.depth;
    const isCreate = message.to === undefined || message.isCreate === true;
    const type: FrameType = depth === 0 ? (isCreate ? 'CREATE' : 'CALL') : this.lastCallOp ?? (isCreate ? 'CREATE' : 'CALL');
    this.lastCallOp = undefined;
    const frame: TraceFrame = {
      type, from: message.caller.bytes, to: isCreate ? undefined : message.to!.bytes, value: message.value,
      gas: message.gasLimit, gasUsed: 0n, input: message.data.slice(), output: new Uint8Array(), error: undefined, depth, calls: [],
    };
    if (type === 'STATICCALL') frame.value = 0n;
    // DELEGATECALL and CALLCODE run the target's code in the calling contract.
    if ((type === 'DELEGATECALL' || type === 'CALLCODE') && message._codeAddress) {
      if (type === 'DELEGATECALL' && message.to) frame.from = message.to.bytes;
      frame.to = message._codeAddress.bytes;
    }
    this.stack.push(frame);
  }

  exit(result: EVMResult): void {
    const frame = this.stack.pop();
    if (!frame) return;
    const exec = result.execResult;
    frame.gasUsed = exec.executionGasUsed;
    frame.error = exec.exceptionError?.error;
    const created = frame.type === 'CREATE' || frame.type === 'CREATE2';
    if (created) {
      frame.to = frame.error === undefined ? result.createdAddress?.bytes : undefined;
      frame.output = frame.error === undefined ? exec.returnValue.slice() : new Uint8Array();
    } else if (frame.error === undefined || frame.error === 'revert') {
      frame.output = exec.returnValue.slice();
    }
    const parent = this.stack.at(-1);
    if (parent) parent.calls.push(frame);
    else this.root = frame;
  }

  finish(outcome: TxOutcome): FlatCallTrace {
    return { root: this.root, tx: this.tx, outcome };
  }
}

/** The caller of the frame that created `address`, if one of the trace's frames did. */
export function creatorIn(root: TraceFrame | undefined, address: Uint8Array): Uint8Array | undefined {
  if (!root) return undefined;
  const created = (root.type === 'CREATE' || root.type === 'CREATE2') && root.to !== undefined && equalBytes(root.to, address);
  if (created) return root.from;
  for (const child of root.calls) {
    const found = creatorIn(child, address);
    if (found) return found;
  }
  return undefined;
}

function addressOf(value: bigint): Uint8Array {
  const out = new Uint8Array(20);
  let v = value & MASK160;
  for (let i = 19; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}
