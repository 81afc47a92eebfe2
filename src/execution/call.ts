// mc_call and mc_estimateGas: run a message against the state of a block without creating a
// transaction. Each state root keeps a warm context: a call view, the library EVM over it and our
// own interpreter (fastCall/) over the same view. A message runs on ours where it implements the
// chain's rules, on the library otherwise; calls on a context run one at a time, and their writes
// are forgotten afterwards, so nothing leaks into the stored state. Every call and every estimate
// runs under a clock (runClock.ts) and the gas cap; one request in `verifyEvery` is also answered
// by the library, which is the reference (docs/design/call-interpreter.md).

import type { StateManagerInterface } from '@ethereumjs/common';
import type { EVM } from '@ethereumjs/evm';
import { CallStateView } from '../state/callStateView.js';
import { Address } from '@ethereumjs/util';
import type { Header } from '../chain/types.js';
import { NodeError, ErrorKind, executionFailed } from '../errors.js';
import { bytesToHex } from '../encoding/hex.js';
import { Lru } from '../store/lru.js';
import type { WorldState } from '../state/worldState.js';
import type { StateReader } from '../state/stateReader.js';
import { evmBlock } from './executor.js';
import { intrinsicGas } from './gas.js';
import { decodeRevertReason } from './revertReason.js';
import { CallMonitor } from './callMonitor.js';
import { RunClock, withClock } from './runClock.js';
import { Engine, type FastBlock, type FastOutcome } from './fastCall/engine.js';
import { S_ABORT, S_HALT, S_NEED } from './fastCall/frame.js';
import { callRules } from './fastCall/rules.js';
import { CallWorld } from './fastCall/world.js';
import { bytesToBigint, equalBytes } from '../encoding/bytes.js';

export interface CallRequest {
  from?: Uint8Array;
  to?: Uint8Array;
  gas?: bigint;
  gasPrice?: bigint;
  value?: bigint;
  data?: Uint8Array;
}

export interface CallOutcome {
  returnValue: Uint8Array;
  /** intrinsic + execution gas */
  gasUsed: bigint;
  /** EVM error text (e.g. "revert", "out of gas"); undefined on success */
  error?: string;
  /** which engine answered */
  engine?: 'interpreter' | 'library';
}

/** How calls run: the interpreter's switch and verification, and the bounds of one call or estimate. */
export interface CallOptions {
  /** run messages on our interpreter where it implements the chain's rules (default true; false: always the library) */
  fastCall?: boolean;
  /** re-run one interpreter answer in N on the library EVM, compare, and answer with the library's (0: never) */
  verifyEvery?: number;
  /** milliseconds one call or one whole estimate may run (0 or absent: no limit) */
  timeoutMs?: number;
  /** most gas a message may use; more is lowered to it (geth's RPCGasCap; default CALL_GAS_CAP; 0: no cap) */
  gasCap?: bigint;
  /** counters and log of the interpreter's faults, fallbacks and disagreements (shared by a node's executors) */
  monitor?: CallMonitor;
}

/** The gas a call gets when it names none and no cap applies (the real node's 50,000,000). */
export const DEFAULT_CALL_GAS = 50_000_000n;
/**
 * The most gas a call may use by default, whatever it asks for (geth's RPCGasCap): without it one
 * mc_call with a huge gas value can expand EVM memory to gigabytes and take the node down.
 */
export const CALL_GAS_CAP = 50_000_000n;

/** The gas a message runs with: what it asks for, lowered to `cap` (0: none); the cap when it asks for none. */
export function callGas(requested: bigint | undefined, cap: bigint): bigint {
  if (requested === undefined) return cap > 0n ? cap : DEFAULT_CALL_GAS;
  return cap > 0n && requested > cap ? cap : requested;
}

const ZERO_ADDRESS = new Uint8Array(20);
const EMPTY = new Uint8Array(0);

/** The state a call runs on: a StateReader as resolved from a block tag, or just a stored header. */
export type CallState = Pick<StateReader, 'header' | 'pendingState'>;

interface Context {
  view: CallStateView;
  evm: EVM;
  /** our interpreter over the same view, when the chain's rules are ones it implements */
  fast: Engine | undefined;
  /** calls on this context run one at a time: the last one queued, and how many are unfinished */
  queue: Promise<unknown>;
  busy: number;
}

/** The EVM's blockchain as the library calls it for BLOCKHASH. */
interface BlockSource {
  getBlock(number: number): Promise<{ hash(): Uint8Array }>;
}

/** How one message runs: under this clock (a new one when absent), on the library only or as chosen. */
interface RunMode {
  clock?: RunClock;
  library?: boolean;
}

export class CallExecutor {
  private readonly contexts = new Lru<string, Promise<Context>>(4);
  /** messages this executor ran on our interpreter / on the library EVM */
  readonly stats = { fast: 0, library: 0 };
  readonly monitor: CallMonitor;
  private readonly fastCalls: boolean;
  private readonly verifyEvery: number;
  private readonly timeoutMs: number;
  private readonly gasCap: bigint;
  /** requests seen, for verifying one in `verifyEvery` */
  private requests = 0;

  constructor(
    private readonly world: WorldState,
    private readonly makeEvm: (sm: StateManagerInterface) => Promise<EVM>,
    options: CallOptions = {},
  ) {
    this.fastCalls = options.fastCall ?? true;
    this.verifyEvery = options.verifyEvery ?? 0;
    this.timeoutMs = options.timeoutMs !== undefined && options.timeoutMs > 0 ? options.timeoutMs : Infinity;
    this.gasCap = options.gasCap ?? CALL_GAS_CAP;
    this.monitor = options.monitor ?? new CallMonitor();
  }

  /** The last root asked for and its context (once made): calls at the head skip the hex key, the LRU and an await. */
  private last: { root: Uint8Array; ctx: Promise<Context>; ready?: Context } | undefined;

  private context(root: Uint8Array): Promise<Context> {
    if (this.last?.root === root) return this.last.ctx;
    const ctx = this.lookup(root);
    const last: { root: Uint8Array; ctx: Promise<Context>; ready?: Context } = { root, ctx };
    ctx.then((ready) => (last.ready = ready), () => undefined);
    this.last = last;
    return ctx;
  }

  private lookup(root: Uint8Array): Promise<Context> {
    const key = bytesToHex(root);
    let ctx = this.contexts.get(key);
    if (!ctx) {
      ctx = (async () => this.newContext(new CallStateView(await this.world.stateManagerAt(root))))();
      this.contexts.set(key, ctx);
    }
    return ctx;
  }

  private async newContext(view: CallStateView): Promise<Context> {
    const evm = await this.makeEvm(view);
    const rules = this.fastCalls ? callRules(evm) : undefined;
    const blocks = evm.blockchain as unknown as BlockSource;
    const fast = rules && new Engine(rules, new CallWorld(view), async (n) => (await blocks.getBlock(Number(n))).hash(), evm);
    return { view, evm, fast, queue: Promise.resolve(), busy: 0 };
  }

  /** Runs the message on `state`'s block; the pending block's state gets a fresh view, stored roots a warm one. */
  async run(req: CallRequest, state: CallState, mode: RunMode = {}): Promise<CallOutcome> {
    const { header, pendingState } = state;
    let ctx: Context;
    if (pendingState) ctx = await this.newContext(new CallStateView(pendingState));
    else {
      const last = this.last;
      ctx = last !== undefined && last.root === header.stateRoot && last.ready !== undefined ? last.ready : await this.context(header.stateRoot);
    }
    // Nothing running on this context: a message that needs no loads finishes right here.
    if (ctx.busy === 0) {
      const out = this.execute(ctx, req, header, mode);
      if (!(out instanceof Promise)) return out;
      return this.track(ctx, out);
    }
    return this.track(ctx, ctx.queue.then(() => this.execute(ctx, req, header, mode)));
  }

  private track(ctx: Context, job: Promise<CallOutcome>): Promise<CallOutcome> {
    ctx.busy++;
    const done = job.finally(() => ctx.busy--);
    ctx.queue = done.catch(() => undefined);
    return done;
  }

  /** The message on our interpreter, or (when it cannot) on the library; synchronous when it needs no state loads. */
  private execute(ctx: Context, req: CallRequest, header: Header, mode: RunMode): CallOutcome | Promise<CallOutcome> {
    const data = req.data ?? EMPTY;
    const isCreation = req.to === undefined;
    const intrinsic = intrinsicGas(data, isCreation);
    const gas = callGas(req.gas, this.gasCap);
    if (gas < intrinsic) return { returnValue: new Uint8Array(), gasUsed: gas, error: 'intrinsic gas too low' };
    // The block's own beneficiary: the pending block's is the node's coinbase, block 0's is genesis's.
    const miner = header.miner;
    const clock = mode.clock ?? new RunClock(this.timeoutMs);
    const fast = mode.library === true ? undefined : ctx.fast;
    if (fast !== undefined) {
      this.monitor.counters.calls++;
      let status = S_ABORT;
      try {
        status = fast.start(
          {
            caller: this.addresses.word(req.from ?? ZERO_ADDRESS), to: isCreation ? undefined : this.addresses.word(req.to!),
            value: req.value ?? 0n, data, gasLimit: Number(gas - intrinsic), gasPrice: req.gasPrice ?? 0n,
          },
          this.blockOf(header, miner),
          clock,
        );
      } catch (err) {
        if (clock.expired) throw err;
        this.monitor.fault(err, req, header.number);
        return this.runLibrary(ctx, req, header, data, gas, intrinsic, clock);
      }
      if (status === S_HALT) return this.fastOutcome(fast.outcome!, intrinsic);
      if (status === S_NEED) return this.completeFast(ctx, fast, req, header, data, gas, intrinsic, clock);
      this.monitor.counters.fallbacks++;
    }
    return this.runLibrary(ctx, req, header, data, gas, intrinsic, clock);
  }

  /**
   * A fast message that waits for state or for its clock: finished on our interpreter, or run on
   * the library when it meets something ours does not implement, or an unexpected fault (a call
   * has no side effects, so the library simply runs it from the start, under the same clock).
   */
  private async completeFast(
    ctx: Context, fast: Engine, req: CallRequest, header: Header, data: Uint8Array, gas: bigint, intrinsic: bigint, clock: RunClock,
  ): Promise<CallOutcome> {
    let out: FastOutcome | undefined;
    try {
      out = await fast.complete();
    } catch (err) {
      if (clock.expired) throw err;
      this.monitor.fault(err, req, header.number);
      return this.runLibrary(ctx, req, header, data, gas, intrinsic, clock);
    }
    if (out !== undefined) return this.fastOutcome(out, intrinsic);
    this.monitor.counters.fallbacks++;
    return this.runLibrary(ctx, req, header, data, gas, intrinsic, clock);
  }

  private fastOutcome(out: FastOutcome, intrinsic: bigint): CallOutcome {
    this.stats.fast++;
    return { returnValue: out.returnValue, gasUsed: intrinsic + BigInt(out.gasUsed), error: out.error, engine: 'interpreter' };
  }

  private async runLibrary(
    ctx: Context, req: CallRequest, header: Header, data: Uint8Array, gas: bigint, intrinsic: bigint, clock: RunClock,
  ): Promise<CallOutcome> {
    this.stats.library++;
    const caller = new Address(req.from ?? ZERO_ADDRESS);
    const target = req.to === undefined ? undefined : new Address(req.to);
    try {
      const result = await withClock(ctx.evm, clock, () => ctx.evm.runCall({
        caller,
        origin: caller,
        to: target,
        value: req.value ?? 0n,
        data,
        gasLimit: gas - intrinsic,
        gasPrice: req.gasPrice ?? 0n,
        skipBalance: true,
        block: evmBlock({ number: header.number, timestamp: header.timestamp, miner: header.miner, difficulty: header.difficulty, gasLimit: header.gasLimit }),
      }));
      const exec = result.execResult;
      return {
        returnValue: exec.returnValue,
        gasUsed: intrinsic + exec.executionGasUsed,
        error: exec.exceptionError?.error,
        engine: 'library',
      };
    } finally {
      ctx.view.reset();
      ctx.evm.journal.cleanJournal();
    }
  }

  /** The block fields a fast call reads, kept for the last header (calls at the head share it). */
  private blockOf(header: Header, miner: Uint8Array): FastBlock {
    const last = this.lastBlock;
    if (last !== undefined && last.header === header && last.miner === miner) return last.block;
    const block = { number: header.number, timestamp: header.timestamp, coinbase: bytesToBigint(miner), difficulty: header.difficulty, gasLimit: header.gasLimit };
    this.lastBlock = { header, miner, block };
    return block;
  }

  private lastBlock: { header: Header; miner: Uint8Array; block: FastBlock } | undefined;
  private readonly addresses = new AddressWords();

  /** One request in `verifyEvery` is verified (none when the interpreter is off). */
  private sampled(): boolean {
    return this.fastCalls && this.verifyEvery > 0 && ++this.requests % this.verifyEvery === 0;
  }

  /** mc_call: the return data, or a Reverted / Refused error. */
  async call(req: CallRequest, state: CallState): Promise<Uint8Array> {
    let out = await this.run(req, state);
    if (out.engine === 'interpreter' && this.sampled()) out = await this.verified(req, state, out);
    if (out.error) throw callError(out);
    return out.returnValue;
  }

  /** The library's answer to a message the interpreter answered, compared with it (the interpreter's when the library ran out of time). */
  private async verified(req: CallRequest, state: CallState, fast: CallOutcome): Promise<CallOutcome> {
    let reference: CallOutcome;
    try {
      reference = await this.run(req, state, { library: true });
    } catch (err) {
      this.monitor.unverified('mc_call', (err as Error).message);
      return fast;
    }
    const answer = (o: CallOutcome) => ({ returnValue: o.returnValue, gasUsed: o.gasUsed, error: o.error });
    this.monitor.compared('mc_call', req, state.header.number, answer(fast), answer(reference));
    return reference;
  }

  /**
   * mc_estimateGas: the smallest gas that lets the message succeed, searched between intrinsic gas
   * and `cap` (lowered to the gas cap). The whole search runs under one clock. A verified estimate
   * is searched again on the library alone, and the library's answer (or error) is returned.
   */
  async estimateGas(req: CallRequest, state: CallState, cap: bigint): Promise<bigint> {
    if (!this.sampled()) return this.search(req, state, cap, false);
    const settle = (p: Promise<bigint>) => p.then((value) => ({ value }), (error: Error) => ({ error }));
    const fast = await settle(this.search(req, state, cap, false));
    if ('error' in fast && isTimeout(fast.error)) throw fast.error;
    const library = await settle(this.search(req, state, cap, true));
    if ('error' in library && isTimeout(library.error)) {
      this.monitor.unverified('mc_estimateGas', library.error.message);
      return answerOf(fast);
    }
    const summary = (r: { value: bigint } | { error: Error }) =>
      ('value' in r ? { estimate: r.value } : { error: r.error.message, data: (r.error as NodeError).data });
    this.monitor.compared('mc_estimateGas', req, state.header.number, summary(fast), summary(library));
    return answerOf(library);
  }

  private async search(req: CallRequest, state: CallState, requestedCap: bigint, library: boolean): Promise<bigint> {
    const clock = new RunClock(this.timeoutMs);
    const cap = this.gasCap > 0n && requestedCap > this.gasCap ? this.gasCap : requestedCap;
    const attempt = (gas: bigint) => {
      clock.check();
      return this.run({ ...req, gas }, state, { clock, library });
    };
    const top = await attempt(cap);
    if (top.error) {
      if (top.error === 'revert') throw callError(top);
      throw executionFailed(top.error === 'out of gas' ? `gas required exceeds allowance (${cap})` : top.error);
    }
    let lo = intrinsicGas(req.data ?? new Uint8Array(), req.to === undefined) - 1n;
    let hi = cap;
    // Most messages succeed with exactly what they used; try that first.
    if (top.gasUsed > lo && top.gasUsed < hi) {
      if (!(await attempt(top.gasUsed)).error) hi = top.gasUsed;
      else lo = top.gasUsed;
    }
    while (lo + 1n < hi) {
      const mid = (lo + hi) / 2n;
      if ((await attempt(mid)).error) lo = mid;
      else hi = mid;
    }
    return hi;
  }
}

/** The clock's error (the run took too long): not an answer to compare. */
function isTimeout(err: Error): boolean {
  return err instanceof NodeError && err.kind === ErrorKind.Aborted;
}

function answerOf(r: { value: bigint } | { error: Error }): bigint {
  if ('error' in r) throw r.error;
  return r.value;
}

/** Addresses as bigints, remembered for the last few: calls name the same contract and caller again and again. */
class AddressWords {
  private readonly seen: { bytes: Uint8Array; word: bigint }[] = [];
  private next = 0;

  word(bytes: Uint8Array): bigint {
    for (const e of this.seen) if (equalBytes(e.bytes, bytes)) return e.word;
    const word = bytesToBigint(bytes);
    this.seen[this.next] = { bytes: bytes.slice(), word };
    this.next = (this.next + 1) % 4;
    return word;
  }
}

function callError(out: CallOutcome): NodeError {
  if (out.error === 'revert') {
    const reason = decodeRevertReason(out.returnValue);
    return new NodeError(ErrorKind.Reverted, reason ?? '', bytesToHex(out.returnValue));
  }
  return executionFailed(out.error ?? 'execution failed');
}

