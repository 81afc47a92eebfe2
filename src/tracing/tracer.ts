// What a tracer sees: the EVM's step and message events of one transaction or call, its
// context before it runs and its outcome. Tracers build domain values (bigint, bytes); the
// debug RPC module turns them into geth's JSON shapes.

import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { NodeError, ErrorKind } from '../errors.js';

export interface TracedTx {
  from: Uint8Array;
  /** undefined for a creation */
  to: Uint8Array | undefined;
  value: bigint;
  gas: bigint;
  gasPrice: bigint;
  data: Uint8Array;
  /** the block's beneficiary */
  coinbase: Uint8Array;
}

export interface TxOutcome {
  /** gas charged to the sender (intrinsic + execution − refund) */
  gasUsed: bigint;
  returnValue: Uint8Array;
  /** EVM error of the top frame ("revert", "out of gas", …); undefined on success */
  error: string | undefined;
  createdAddress: Uint8Array | undefined;
}

/** State access for tracers that compare before and after (prestate). */
export interface TraceStates {
  before: MerkleStateManager;
  after: MerkleStateManager;
}

/** What the runner adds to a frame's result: its error in geth's words, a later hardfork's opcode named (design.md §17). */
export interface FrameEnd {
  error: string | undefined;
}

export interface Tracer<R> {
  step?(step: InterpreterStep): void;
  enter?(message: Message): void;
  exit?(result: EVMResult, end?: FrameEnd): void;
  /** true when `finish` needs the states before and after the transaction */
  readonly wantsStates?: boolean;
  begin?(tx: TracedTx): void;
  finish(outcome: TxOutcome, states?: TraceStates): Promise<R> | R;
}

/** Stops a trace that ran too long or recorded too much; the message names the limit. */
export class TraceLimit extends NodeError {
  constructor(message: string) {
    super(ErrorKind.Aborted, message);
  }
}

export interface TraceLimits {
  /** milliseconds the trace may run, from its start (Infinity: no limit) */
  timeoutMs: number;
  /** the timeout as given, for the error message */
  timeoutText: string;
}

/** The EVM's error words as geth reports them. */
export function gethError(error: string): string {
  switch (error) {
    case 'revert':
      return 'execution reverted';
    case 'invalid JUMP':
      return 'invalid jump destination';
    case 'static state change':
      return 'write protection';
    case 'insufficient balance':
      return 'insufficient balance for transfer';
    case 'code store out of gas':
      return 'contract creation code storage out of gas';
    case 'create collision':
      return 'contract address collision';
    case 'stack overflow':
      return 'stack limit reached 1024 (1023)';
    default:
      return error;
  }
}
