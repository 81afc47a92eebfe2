// Re-executes transactions with a tracer attached to the EVM's events: a mined transaction on
// its block's parent state (after the block's earlier transactions), or a call on a block's
// state. Everything runs on a scratch node store, so nothing reaches the database. A trace runs
// under a clock (execution/runClock.ts): its timeout stops it, and a long one lets the event loop
// turn, so the node answers other requests meanwhile.

import type { EVM, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address } from '@ethereumjs/util';
import type { Block, Header, SignedTx } from '../chain/types.js';
import { NodeError, ErrorKind } from '../errors.js';
import { applyTransaction, evmBlock, type ApplyResult, type BlockEnv } from '../execution/executor.js';
import { applySystemTx, recordDeposit, type ChainRules } from '../execution/systemTxs.js';
import { SYSCNT, isSystemTx } from '../chain/systemTx.js';
import { callGas, type CallRequest } from '../execution/call.js';
import { RunClock, withClock } from '../execution/runClock.js';
import { intrinsicGas } from '../execution/gas.js';
import { consoleOf } from '../execution/consoleLog.js';
import { invalidOpcodeMessage } from '../execution/laterOpcodes.js';
import { bytesToHex } from '../encoding/hex.js';
import type { TrieNodeStore } from '../state/trieNodeStore.js';
import type { WorldState } from '../state/worldState.js';
import { TraceLimit, gethError, type TraceLimits, type TracedTx, type Tracer, type TxOutcome } from './tracer.js';

export interface TraceRunnerDeps {
  world: WorldState;
  /** a fresh in-memory node store over the database (reads stored nodes, keeps writes) */
  scratchNodes: () => TrieNodeStore;
  makeEvm: (sm: MerkleStateManager) => Promise<EVM>;
  /** the chain's genesis rules (which system transactions are valid) */
  rules: ChainRules;
  /** most gas a traced call may use (rpc.gasCap; 0: no cap) */
  gasCap: bigint;
}

export class TraceRunner {
  constructor(private readonly deps: TraceRunnerDeps) {}

  /**
   * Replays `block` on `parent`'s state and traces the transactions at `indexes` (ascending),
   * each with its own tracer from `makeTracer`. `printConsole`: the traced transactions'
   * console.log lines are printed again (a trace that names one transaction).
   */
  async traceBlock<R>(
    parent: Header, block: Block, indexes: number[], makeTracer: () => Tracer<R>, limits: TraceLimits, printConsole = false,
  ): Promise<R[]> {
    const nodes = this.deps.scratchNodes();
    const sm = await this.deps.world.stateManagerAt(parent.stateRoot, nodes);
    const evm = await this.deps.makeEvm(sm);
    const clock = traceClock(limits);
    const h = block.header;
    const env: BlockEnv = { number: h.number, timestamp: h.timestamp, miner: h.miner, difficulty: h.difficulty, gasLimit: h.gasLimit };
    const wanted = new Set(indexes);
    const last = indexes.length ? Math.max(...indexes) : -1;
    const results: R[] = [];
    let gasUsed = 0n;
    for (let i = 0; i <= last; i++) {
      clock.check();
      const tx = block.transactions[i];
      if (!wanted.has(i)) {
        const applied = await withClock(evm, clock, () => this.apply(evm, sm, tx, env, gasUsed, false));
        consoleOf(evm)?.take(); // printed when it was mined; only traced transactions print again
        if (!applied.ok) throw replayFailed(i, applied.reason);
        gasUsed += applied.gasUsed;
        continue;
      }
      const tracer = makeTracer();
      const traced = txContext(tx, h.miner);
      const before = tracer.wantsStates ? await this.snapshot(sm, nodes) : undefined;
      tracer.begin?.(traced);
      const applied = await withTracer(evm, tracer, clock, () => this.apply(evm, sm, tx, env, gasUsed, true));
      if (printConsole) consoleOf(evm)?.flush(bytesToHex(tx.hash));
      else consoleOf(evm)?.take();
      if (!applied.ok) throw replayFailed(i, applied.reason);
      gasUsed += applied.gasUsed;
      const outcome: TxOutcome = {
        gasUsed: applied.gasUsed, returnValue: applied.returnValue, error: applied.error,
        createdAddress: applied.receipt.contractAddress ?? undefined,
      };
      results.push(await tracer.finish(outcome, before && { before, after: sm }));
    }
    return results;
  }

  /**
   * Traces a message on `header`'s state, as mc_call runs it (no balance check for gas, the gas
   * cap, the block's own miner); `prepare` changes that scratch state first (state overrides,
   * anvil_dealERC20 trying a slot).
   */
  async traceCall<R>(
    req: CallRequest, header: Header, tracer: Tracer<R>, limits: TraceLimits,
    prepare?: (sm: MerkleStateManager) => Promise<void>,
  ): Promise<R> {
    const nodes = this.deps.scratchNodes();
    const sm = await this.deps.world.stateManagerAt(header.stateRoot, nodes);
    await prepare?.(sm);
    const evm = await this.deps.makeEvm(sm);
    const data = req.data ?? new Uint8Array();
    const gas = callGas(req.gas, this.deps.gasCap);
    const intrinsic = intrinsicGas(data, req.to === undefined);
    if (gas < intrinsic) throw new NodeError(ErrorKind.TxRejected, `intrinsic gas too low: have ${gas}, want ${intrinsic}`);
    const from = req.from ?? new Uint8Array(20);
    const miner = header.miner;
    const traced: TracedTx = { from, to: req.to, value: req.value ?? 0n, gas, gasPrice: req.gasPrice ?? 0n, data, coinbase: miner };
    const before = tracer.wantsStates ? (prepare ? await this.snapshot(sm, nodes) : await this.deps.world.stateManagerAt(header.stateRoot, nodes)) : undefined;
    tracer.begin?.(traced);
    const result = await withTracer(evm, tracer, traceClock(limits), () =>
      evm.runCall({
        caller: new Address(from),
        origin: new Address(from),
        to: req.to ? new Address(req.to) : undefined,
        value: traced.value,
        data,
        gasLimit: gas - intrinsic,
        gasPrice: traced.gasPrice,
        skipBalance: true,
        block: evmBlock({ number: header.number, timestamp: header.timestamp, miner, difficulty: header.difficulty, gasLimit: header.gasLimit }),
      }),
    );
    consoleOf(evm)?.flush('call');
    const exec = result.execResult;
    const outcome: TxOutcome = {
      gasUsed: intrinsic + exec.executionGasUsed,
      returnValue: exec.returnValue,
      error: exec.exceptionError?.error,
      createdAddress: exec.exceptionError ? undefined : result.createdAddress?.bytes,
    };
    return tracer.finish(outcome, before && { before, after: sm });
  }

  /** One transaction of a block, as block building applies it (system transactions, deposits). */
  private async apply(
    evm: EVM, sm: MerkleStateManager, tx: SignedTx, env: BlockEnv, gasUsed: bigint, viaEvm: boolean,
  ): Promise<ApplyResult | { ok: false; reason: string }> {
    // An impersonated call runs as a plain one (its rule check happened when the block was made).
    const result = isSystemTx(tx) && tx.syscnt !== SYSCNT.impersonated
      ? await applySystemTx(evm, sm, tx, env, gasUsed, this.deps.rules)
      : await applyTransaction(evm, sm, tx, env, gasUsed, viaEvm);
    if (result.ok) await recordDeposit(sm, tx, result.receipt);
    return result;
  }

  /** The state as it is now, readable after `sm` moves on. */
  private async snapshot(sm: MerkleStateManager, nodes: TrieNodeStore): Promise<MerkleStateManager> {
    return this.deps.world.stateManagerAt(await sm.getStateRoot(), nodes);
  }
}

function txContext(tx: SignedTx, coinbase: Uint8Array): TracedTx {
  return { from: tx.from, to: tx.to ?? undefined, value: tx.value, gas: tx.gas, gasPrice: tx.gasPrice, data: tx.data, coinbase };
}

/** The trace's clock: past its timeout (0: none) the trace stops with an error naming it. */
function traceClock(limits: TraceLimits): RunClock {
  return new RunClock(limits.timeoutMs, () => new TraceLimit(`execution timeout: the trace took longer than ${limits.timeoutText}`));
}

function replayFailed(index: number, reason: string): NodeError {
  return new NodeError(ErrorKind.Internal, `re-executing transaction ${index} of the block failed: ${reason}`);
}

/** A frame's error as geth words it; an opcode a later hardfork defines is named with the chain's hardfork. */
function frameError(result: EVMResult, message: Message | undefined, evm: EVM): string | undefined {
  const error = result.execResult.exceptionError?.error;
  if (error === undefined) return undefined;
  const code = message?.code;
  if (error === 'invalid opcode' && code instanceof Uint8Array) return invalidOpcodeMessage(code, evm.common);
  return gethError(error);
}

/** Runs `run` with the tracer's listeners on the EVM, under the trace's clock. */
async function withTracer<T>(evm: EVM, tracer: Tracer<unknown>, clock: RunClock, run: () => Promise<T>): Promise<T> {
  const onStep = (step: InterpreterStep) => tracer.step?.(step);
  // The open frames' messages: by a frame's end its code is loaded, which names an invalid opcode.
  const open: Message[] = [];
  const onEnter = (message: Message) => {
    open.push(message);
    tracer.enter?.(message);
  };
  const onExit = (result: EVMResult) => {
    const message = open.pop();
    tracer.exit?.(result, { error: frameError(result, message, evm) });
  };
  const events = evm.events!;
  events.on('step', onStep);
  events.on('beforeMessage', onEnter);
  events.on('afterMessage', onExit);
  try {
    return await withClock(evm, clock, run);
  } finally {
    events.off('step', onStep);
    events.off('beforeMessage', onEnter);
    events.off('afterMessage', onExit);
  }
}
