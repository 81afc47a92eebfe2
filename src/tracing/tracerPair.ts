// Two tracers on one replay: trace_replay* asks for the call tree and the state diff of the same
// execution, and a second replay would cost as much again.

import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { TraceStates, TracedTx, Tracer, TxOutcome } from './tracer.js';

export function tracerPair<A, B>(a: Tracer<A>, b: Tracer<B>): Tracer<[A, B]> {
  return {
    wantsStates: a.wantsStates === true || b.wantsStates === true,
    step: a.step || b.step ? (s: InterpreterStep) => (a.step?.(s), b.step?.(s)) : undefined,
    enter: (m: Message) => (a.enter?.(m), b.enter?.(m)),
    exit: (r: EVMResult) => (a.exit?.(r), b.exit?.(r)),
    begin: (tx: TracedTx) => (a.begin?.(tx), b.begin?.(tx)),
    finish: async (outcome: TxOutcome, states?: TraceStates) =>
      [await a.finish(outcome, a.wantsStates ? states : undefined), await b.finish(outcome, b.wantsStates ? states : undefined)] as [A, B],
  };
}
