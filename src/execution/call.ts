// mc_call and mc_estimateGas: run a message against the state of a block without creating a
// transaction. Each state root keeps a warm context: a call view, the library EVM over it and our
// own interpreter (fastCall/) over the same view. A message runs on ours where it implements the
// chain's rules, on the library otherwise; calls on a context run one at a time, and their writes
// are forgotten afterwards, so nothing leaks into the stored state.

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
import { MOAC_TX_GAS, intrinsicGas, type TxGasRules } from './gas.js';
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
}

/** The gas a call gets when it names none (the real node's 50,000,000). */
export const DEFAULT_CALL_GAS = 50_000_000n;
/**
 * The most gas a call may use, whatever it asks for (geth's RPCGasCap): without it one mc_call
 * with a huge gas value can expand EVM memory to gigabytes and take the node down.
 */
export const CALL_GAS_CAP = 50_000_000n;

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

export class CallExecutor {
  private readonly contexts = new Lru<string, Promise<Context>>(4);
  /** messages run on our interpreter / on the library EVM / sent to the library by a fault in ours */
  readonly stats = { fast: 0, library: 0, faults: 0 };

  constructor(
    private readonly world: WorldState,
    private readonly makeEvm: (sm: StateManagerInterface) => Promise<EVM>,
    private readonly coinbase: () => Uint8Array,
    /** run calls on our own interpreter where it implements the chain's rules (false: always the library) */
    private readonly fastCalls = true,
    /** the intrinsic gas table (Ethereum's when the conformance runner compares the two engines) */
    private readonly gasRules: TxGasRules = MOAC_TX_GAS,
  ) {}

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
  async run(req: CallRequest, state: CallState): Promise<CallOutcome> {
    const { header, pendingState } = state;
    let ctx: Context;
    if (pendingState) ctx = await this.newContext(new CallStateView(pendingState));
    else {
      const last = this.last;
      ctx = last !== undefined && last.root === header.stateRoot && last.ready !== undefined ? last.ready : await this.context(header.stateRoot);
    }
    // Nothing running on this context: a message that needs no loads finishes right here.
    if (ctx.busy === 0) {
      const out = this.execute(ctx, req, header);
      if (!(out instanceof Promise)) return out;
      return this.track(ctx, out);
    }
    return this.track(ctx, ctx.queue.then(() => this.execute(ctx, req, header)));
  }

  private track(ctx: Context, job: Promise<CallOutcome>): Promise<CallOutcome> {
    ctx.busy++;
    const done = job.finally(() => ctx.busy--);
    ctx.queue = done.catch(() => undefined);
    return done;
  }

  /** The message on our interpreter, or (when it cannot) on the library; synchronous when it needs no state loads. */
  private execute(ctx: Context, req: CallRequest, header: Header): CallOutcome | Promise<CallOutcome> {
    const data = req.data ?? EMPTY;
    const isCreation = req.to === undefined;
    const intrinsic = intrinsicGas(data, isCreation, this.gasRules);
    const gas = req.gas === undefined ? DEFAULT_CALL_GAS : req.gas < CALL_GAS_CAP ? req.gas : CALL_GAS_CAP;
    if (gas < intrinsic) return { returnValue: new Uint8Array(), gasUsed: gas, error: 'intrinsic gas too low' };
    const miner = isZero(header.miner) ? this.coinbase() : header.miner;
    const fast = ctx.fast;
    if (fast !== undefined) {
      let status = S_ABORT;
      try {
        status = fast.start(
          {
            caller: this.addresses.word(req.from ?? ZERO_ADDRESS), to: isCreation ? undefined : this.addresses.word(req.to!),
            value: req.value ?? 0n, data, gasLimit: Number(gas - intrinsic), gasPrice: req.gasPrice ?? 0n,
          },
          this.blockOf(header, miner),
        );
      } catch {
        this.stats.faults++;
      }
      if (status === S_HALT) return this.fastOutcome(fast.outcome!, intrinsic);
      if (status === S_NEED) return this.completeFast(ctx, fast, req, header, data, gas, intrinsic, miner);
    }
    return this.runLibrary(ctx, req, header, data, gas, intrinsic, miner);
  }

  /**
   * A fast message that waits for state: loaded and finished on our interpreter, or run on the
   * library when it meets something ours does not implement, or an unexpected fault (a call has
   * no side effects, so the library simply runs it from the start).
   */
  private async completeFast(
    ctx: Context, fast: Engine, req: CallRequest, header: Header, data: Uint8Array, gas: bigint, intrinsic: bigint, miner: Uint8Array,
  ): Promise<CallOutcome> {
    let out: FastOutcome | undefined;
    try {
      out = await fast.complete();
    } catch {
      this.stats.faults++;
    }
    if (out !== undefined) return this.fastOutcome(out, intrinsic);
    return this.runLibrary(ctx, req, header, data, gas, intrinsic, miner);
  }

  private fastOutcome(out: FastOutcome, intrinsic: bigint): CallOutcome {
    this.stats.fast++;
    return { returnValue: out.returnValue, gasUsed: intrinsic + BigInt(out.gasUsed), error: out.error };
  }

  private async runLibrary(
    ctx: Context, req: CallRequest, header: Header, data: Uint8Array, gas: bigint, intrinsic: bigint, miner: Uint8Array,
  ): Promise<CallOutcome> {
    this.stats.library++;
    const caller = new Address(req.from ?? ZERO_ADDRESS);
    const target = req.to === undefined ? undefined : new Address(req.to);
    try {
      const result = await ctx.evm.runCall({
        caller,
        origin: caller,
        to: target,
        value: req.value ?? 0n,
        data,
        gasLimit: gas - intrinsic,
        gasPrice: req.gasPrice ?? 0n,
        skipBalance: true,
        block: evmBlock({ number: header.number, timestamp: header.timestamp, miner, difficulty: header.difficulty, gasLimit: header.gasLimit }),
      });
      const exec = result.execResult;
      return {
        returnValue: exec.returnValue,
        gasUsed: intrinsic + exec.executionGasUsed,
        error: exec.exceptionError?.error,
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

  /** mc_call: the return data, or a Reverted / Refused error. */
  async call(req: CallRequest, state: CallState): Promise<Uint8Array> {
    const out = await this.run(req, state);
    if (out.error) throw callError(out);
    return out.returnValue;
  }

  /** Smallest gas that lets the message succeed, searched between intrinsic gas and `cap`. */
  async estimateGas(req: CallRequest, state: CallState, cap: bigint): Promise<bigint> {
    const attempt = (gas: bigint) => this.run({ ...req, gas }, state);
    const top = await attempt(cap);
    if (top.error) {
      if (top.error === 'revert') throw callError(top);
      throw executionFailed(top.error === 'out of gas' ? `gas required exceeds allowance (${cap})` : top.error);
    }
    let lo = intrinsicGas(req.data ?? new Uint8Array(), req.to === undefined, this.gasRules) - 1n;
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

function isZero(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

function callError(out: CallOutcome): NodeError {
  if (out.error === 'revert') {
    const reason = decodeRevertReason(out.returnValue);
    return new NodeError(ErrorKind.Reverted, reason ?? '', bytesToHex(out.returnValue));
  }
  return executionFailed(out.error ?? 'execution failed');
}

/** Error(string) revert data → the string. */
function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 68 || bytesToHex(data.subarray(0, 4)) !== '0x08c379a0') return undefined;
  const length = Number(BigInt(bytesToHex(data.subarray(36, 68))));
  if (68 + length > data.length) return undefined;
  return new TextDecoder().decode(data.subarray(68, 68 + length));
}
