// mc_call and mc_estimateGas: run a message against the state of a block without creating a
// transaction. Each state root keeps a warm call view + EVM pair; calls on it run one at a time
// and the view forgets their writes afterwards, so nothing leaks into the stored state.

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
import { Engine, type FastBlock, type FastOutcome } from './fastCall/engine.js';
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

/** The state a call runs on: a StateReader as resolved from a block tag, or just a stored header. */
export type CallState = Pick<StateReader, 'header' | 'pendingState'>;

interface Context {
  view: CallStateView;
  evm: EVM;
  /** our interpreter over the same view, when the chain's rules are ones it implements */
  fast: Engine | undefined;
  queue: Promise<unknown>;
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
  ) {}

  /** The last root asked for and its context: calls at the head skip the hex key and the LRU. */
  private last: { root: Uint8Array; ctx: Promise<Context> } | undefined;

  private context(root: Uint8Array): Promise<Context> {
    if (this.last?.root === root) return this.last.ctx;
    const ctx = this.lookup(root);
    this.last = { root, ctx };
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
    return { view, evm, fast, queue: Promise.resolve() };
  }

  /** Runs the message on `state`'s block; the pending block's state gets a fresh view, stored roots a warm one. */
  async run(req: CallRequest, state: CallState): Promise<CallOutcome> {
    const { header, pendingState } = state;
    let ctx: Context;
    if (pendingState) {
      ctx = await this.newContext(new CallStateView(pendingState));
    } else {
      ctx = await this.context(header.stateRoot);
    }
    const job = ctx.queue.then(() => this.execute(ctx, req, header));
    ctx.queue = job.catch(() => undefined);
    return job;
  }

  private async execute(ctx: Context, req: CallRequest, header: Header): Promise<CallOutcome> {
    const data = req.data ?? new Uint8Array();
    const isCreation = req.to === undefined;
    const intrinsic = intrinsicGas(data, isCreation);
    const gas = req.gas === undefined ? DEFAULT_CALL_GAS : req.gas < CALL_GAS_CAP ? req.gas : CALL_GAS_CAP;
    if (gas < intrinsic) return { returnValue: new Uint8Array(), gasUsed: gas, error: 'intrinsic gas too low' };
    const miner = isZero(header.miner) ? this.coinbase() : header.miner;
    if (ctx.fast !== undefined) {
      const out = await this.runFast(ctx.fast, req, header, data, gas - intrinsic, miner);
      if (out !== undefined) {
        this.stats.fast++;
        return { returnValue: out.returnValue, gasUsed: intrinsic + BigInt(out.gasUsed), error: out.error };
      }
    }
    this.stats.library++;
    const caller = new Address(req.from ?? ZERO_ADDRESS);
    const target = isCreation ? undefined : new Address(req.to!);
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
        block: evmBlock({
          number: header.number,
          timestamp: header.timestamp,
          miner,
          difficulty: header.difficulty,
          gasLimit: header.gasLimit,
        }),
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

  /**
   * The message on our interpreter; undefined when it has to run on the library (something the
   * engine does not implement, or an unexpected fault in it: a call has no side effects, so the
   * library simply runs it from the start).
   */
  private async runFast(fast: Engine, req: CallRequest, header: Header, data: Uint8Array, gas: bigint, miner: Uint8Array): Promise<FastOutcome | undefined> {
    try {
      return await fast.run(
        {
          caller: this.addresses.word(req.from ?? ZERO_ADDRESS), to: req.to === undefined ? undefined : this.addresses.word(req.to),
          value: req.value ?? 0n, data, gasLimit: Number(gas), gasPrice: req.gasPrice ?? 0n,
        },
        this.blockOf(header, miner),
      );
    } catch {
      this.stats.faults++;
      return undefined;
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
