// The time bound of one call, estimate or trace, shared by both engines. Each counts its steps
// down and looks at the clock only when the count runs out (a few thousand steps), so a short
// call never reads the time. A run past its deadline stops with the clock's error; a run that has
// held the event loop for a slice lets it turn (setImmediate) before going on, so that other
// requests are answered while a long call runs.

import { NodeError, ErrorKind } from '../errors.js';
import { formatDuration } from '../encoding/duration.js';

/** Interpreter steps between looks at the clock (~50 µs of work). */
export const CLOCK_STEPS = 2048;
/** What one library EVM step counts for: it is much slower (~5 µs), so it looks every 256 steps. */
export const LIBRARY_STEP = 8;
/** The longest stretch (ms) a run keeps the event loop before it lets other work in. */
export const SLICE_MS = 10;

/** geth's RPCEVMTimeout error: `execution aborted (timeout = 5s)`. */
export function executionAborted(timeoutMs: number): NodeError {
  return new NodeError(ErrorKind.Aborted, `execution aborted (timeout = ${formatDuration(timeoutMs * 1e6)})`);
}

export class RunClock {
  /** steps left before the next look at the clock; the engines count it down and call `tick` at 0 */
  steps = CLOCK_STEPS;
  /** set once the deadline has passed (the run's error is the clock's, not a fault of the engine) */
  expired = false;
  private readonly deadline: number;
  private sliceStart: number;

  /**
   * `timeoutMs` Infinity: no deadline (the run still lets the event loop turn); 0: past it at once.
   * `error` makes the error a run past its deadline stops with.
   */
  constructor(timeoutMs: number, private readonly error: () => Error = () => executionAborted(timeoutMs)) {
    this.sliceStart = performance.now();
    this.deadline = this.sliceStart + timeoutMs;
  }

  /**
   * The engines' look at the clock: throws past the deadline; once the run has held the event loop
   * for a slice, a promise that resolves after the loop has turned; otherwise undefined (go on).
   */
  tick(): Promise<void> | undefined {
    this.steps = CLOCK_STEPS;
    const now = this.check();
    if (now - this.sliceStart < SLICE_MS) return undefined;
    return new Promise((resolve) =>
      setImmediate(() => {
        this.sliceStart = performance.now();
        resolve();
      }),
    );
  }

  /** Throws past the deadline (between the runs of an estimate, the transactions of a trace); the time now. */
  check(): number {
    const now = performance.now();
    if (now >= this.deadline) {
      this.expired = true;
      throw this.error();
    }
    return now;
  }
}

/** Where the library EVM finds the clock of the run it executes (set around one run). */
export interface ClockedEvm {
  runClock?: RunClock;
}

/** Runs `run` on `evm` under `clock`: the library's interpreter steps look at it (execution/chainEvm.ts). */
export async function withClock<T>(evm: object, clock: RunClock, run: () => Promise<T>): Promise<T> {
  const target = evm as ClockedEvm;
  const outer = target.runClock;
  target.runClock = clock;
  try {
    return await run();
  } finally {
    target.runClock = outer;
  }
}
