// What the call interpreter (execution/fastCall) did, for /metrics and the log: messages it ran,
// messages it declined (fallbacks to the library EVM), its faults, and what verification found.
// A fault is logged once per cause (its message and top stack frame) with the stack; every
// disagreement with the library is logged with the call's inputs. One monitor serves every
// CallExecutor of a node (main chain and app chains).

import { bytesToHex } from '../encoding/hex.js';
import type { Logger } from '../log.js';
import type { CallRequest } from './call.js';

export interface CallCounters {
  /** messages started on the interpreter */
  calls: number;
  /** messages it handed to the library EVM (an op, precompile or amount of gas it does not implement) */
  fallbacks: number;
  /** messages it failed on with an exception (the library answered them) */
  faults: number;
  /** answers compared with the library EVM (rpc.fastCallVerify) */
  verified: number;
  /** compared answers that differed */
  disagreements: number;
}


/** Distinct fault causes remembered (so each is logged once); past this, faults are only counted. */
const MAX_CAUSES = 1000;
/** Disagreements logged in full; later ones are only counted (their count is in /metrics). */
const MAX_LOGGED_DISAGREEMENTS = 100;
/** Call data beyond this many bytes is cut in the log. */
const MAX_LOGGED_DATA = 4096;

export class CallMonitor {
  readonly counters: CallCounters = { calls: 0, fallbacks: 0, faults: 0, verified: 0, disagreements: 0 };
  private readonly causes = new Set<string>();

  constructor(private readonly log?: Pick<Logger, 'error' | 'warn'>) {}

  /** The interpreter threw: counted, and logged with its stack the first time this cause is seen. */
  fault(err: unknown, inputs: CallRequest, blockNumber: bigint): void {
    this.counters.faults++;
    const e = err instanceof Error ? err : new Error(String(err));
    const stack = e.stack ?? `${e.name}: ${e.message}`;
    const top = stack.split('\n').find((line) => line.trimStart().startsWith('at ')) ?? '';
    const cause = `${e.message}\n${top.trim()}`;
    if (this.causes.has(cause)) return;
    if (this.causes.size < MAX_CAUSES) this.causes.add(cause);
    this.log?.error('call interpreter fault: the library EVM answered this call instead (logged once per cause)', {
      error: e.message, block: blockNumber, ...describe(inputs), stack,
    });
  }

  /** Verification compared an answer of the interpreter with the library's. */
  compared(method: string, inputs: CallRequest, blockNumber: bigint, interpreter: unknown, library: unknown): boolean {
    this.counters.verified++;
    const a = JSON.stringify(interpreter, jsonValue);
    const b = JSON.stringify(library, jsonValue);
    if (a === b) return true;
    this.counters.disagreements++;
    if (this.counters.disagreements <= MAX_LOGGED_DISAGREEMENTS) {
      this.log?.error('call interpreter disagrees with the library EVM (the library\'s answer was returned)', {
        method, block: blockNumber, ...describe(inputs), interpreter: a, library: b,
      });
    }
    return false;
  }

  /** Verification could not run the library (it ran out of time): nothing compared. */
  unverified(method: string, reason: string): void {
    this.log?.warn('call not verified: the library EVM did not finish', { method, reason });
  }
}

function describe(inputs: CallRequest): Record<string, unknown> {
  const data = inputs.data ?? new Uint8Array(0);
  return {
    from: inputs.from && bytesToHex(inputs.from),
    to: inputs.to ? bytesToHex(inputs.to) : 'creation',
    gas: inputs.gas,
    gasPrice: inputs.gasPrice,
    value: inputs.value,
    data: bytesToHex(data.subarray(0, MAX_LOGGED_DATA)) + (data.length > MAX_LOGGED_DATA ? `… (${data.length} bytes)` : ''),
  };
}

/** Bytes as hex and bigints as decimal, for comparing and logging answers as JSON. */
function jsonValue(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return bytesToHex(value);
  if (typeof value === 'bigint') return value.toString();
  return value;
}
