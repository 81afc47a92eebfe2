// The call-shaped cases (a transaction to an account that has code) on the two engines behind
// mc_call: CallExecutor on our interpreter (src/execution/fastCall/) and CallExecutor on the
// library EVM alone, both over the test's pre-state as the library's trie reads it back. A call
// shows no state and no logs, so what is compared is what mc_call answers: the return data,
// the error (none, revert, out of gas, ...) and the gas used, under Ethereum's intrinsic gas.
// The block executor's run of the same case is checked against the vectors; this checks that
// our interpreter agrees with the library on the same programs.

import type { Common } from '@ethereumjs/common';
import type { Header } from '../../src/chain/types.js';
import { bytesToHex } from '../../src/encoding/hex.js';
import { CallExecutor, type CallOutcome } from '../../src/execution/call.js';
import { createChainEvm } from '../../src/execution/evm.js';
import { ethereumTxGas } from '../../src/execution/gas.js';
import { WorldState } from '../../src/state/worldState.js';
import { testBlockHashes, transactionOf, type PreState } from './blockExecutor.js';
import type { StateCase, StateTest } from './corpus.js';

/** What one engine answered, as text (a thrown error included) so two answers compare with ===. */
export interface CallAnswer {
  returnValue: string;
  gasUsed: string;
  error: string | undefined;
}

export interface CallComparison {
  /** ours: our interpreter ran it to the end; library: it handed the message to the library */
  ran: 'ours' | 'library';
  /** our interpreter threw (CallExecutor counted a fault and used the library) */
  fault: boolean;
  agree: boolean;
  ours: CallAnswer | { threw: string };
  library: CallAnswer | { threw: string };
}

/** True for a transaction to an account that has code in the pre-state. */
export function isCallShaped(test: StateTest): boolean {
  const to = test.tx.to;
  if (to === undefined) return false;
  return (test.pre.get(bytesToHex(to))?.code.length ?? 0) > 0;
}

/** The two executors for one test and hardfork, over its pre-state. */
export class CallEnginePair {
  private readonly ours: CallExecutor;
  private readonly library: CallExecutor;
  private readonly header: Header;

  constructor(test: StateTest, pre: PreState, common: Common) {
    const world = new WorldState(pre.nodes, common);
    const makeEvm = (sm: Parameters<typeof createChainEvm>[1]) => createChainEvm(common, sm, testBlockHashes);
    const gasRules = ethereumTxGas(common);
    this.ours = new CallExecutor(world, makeEvm, { fastCall: true, gasRules });
    this.library = new CallExecutor(world, makeEvm, { fastCall: false, gasRules });
    const env = test.env;
    this.header = {
      stateRoot: pre.root, number: env.number, timestamp: env.timestamp, miner: env.coinbase,
      difficulty: env.difficulty, gasLimit: env.gasLimit,
    } as Header;
  }

  async compare(test: StateTest, c: StateCase): Promise<CallComparison> {
    const tx = transactionOf(test, c);
    const req = { from: tx.from, to: tx.to ?? undefined, gas: tx.gas, gasPrice: tx.gasPrice, value: tx.value, data: tx.data };
    const before = { fast: this.ours.stats.fast, faults: this.ours.monitor.counters.faults };
    const state = { header: this.header };
    const ours = await answer(() => this.ours.run(req, state));
    const library = await answer(() => this.library.run(req, state));
    return {
      ran: this.ours.stats.fast > before.fast ? 'ours' : 'library',
      fault: this.ours.monitor.counters.faults > before.faults,
      agree: JSON.stringify(ours) === JSON.stringify(library),
      ours,
      library,
    };
  }
}

async function answer(run: () => Promise<CallOutcome>): Promise<CallAnswer | { threw: string }> {
  try {
    const o = await run();
    return { returnValue: bytesToHex(o.returnValue), gasUsed: o.gasUsed.toString(), error: o.error };
  } catch (e) {
    return { threw: (e as Error).message };
  }
}
