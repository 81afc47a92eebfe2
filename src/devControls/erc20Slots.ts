// anvil_dealERC20 / anvil_setERC20Allowance find the storage slot a token keeps a balance or an
// allowance in as Anvil does: trace the token's own getter (balanceOf / allowance), take the
// slots it read from its storage, and keep the one that, written with a probe value, makes the
// getter return that value. No layout is assumed, so mappings at any slot, packed structs read
// whole and proxies (which read their own storage through DELEGATECALL) all work.

import type { InterpreterStep } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address } from '@ethereumjs/util';
import type { Header } from '../chain/types.js';
import { bigintToFixed, bytesToBigint, equalBytes } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import { wrongState } from '../errors.js';
import type { TraceRunner } from '../tracing/traceRunner.js';
import type { Tracer, TxOutcome } from '../tracing/tracer.js';

/** A value no real balance holds, so a getter returning it proves the slot. */
const PROBE = 0x5eed_0f_de41_5107n << 64n;
const TRACE_MS = 5_000;

/** Collects the storage slots `token` reads (SLOAD keys in its own storage context), in order. */
class SlotReads implements Tracer<bigint[]> {
  readonly slots: bigint[] = [];
  constructor(private readonly token: Uint8Array) {}
  step(step: InterpreterStep): void {
    if (step.opcode.name !== 'SLOAD' || !equalBytes(step.address.bytes, this.token)) return;
    const key = step.stack[step.stack.length - 1];
    if (!this.slots.includes(key)) this.slots.push(key);
  }
  finish(): bigint[] {
    return this.slots;
  }
}

class ReturnValue implements Tracer<TxOutcome> {
  finish(outcome: TxOutcome): TxOutcome {
    return outcome;
  }
}

export interface TokenCall {
  token: Uint8Array;
  /** the getter's calldata: balanceOf(holder) or allowance(owner, spender) */
  data: Uint8Array;
  /** what the error names: "balanceOf(0x…)" */
  what: string;
}

/** The slot of `token`'s storage that its getter returns, found on `header`'s state. */
export async function findTokenSlot(traces: TraceRunner, header: Header, call: TokenCall): Promise<Uint8Array> {
  const limits = () => ({ timeoutMs: TRACE_MS, timeoutText: `${TRACE_MS / 1000}s` });
  const req = { from: new Uint8Array(20), to: call.token, data: call.data };
  const reads = await traces.traceCall(req, header, new SlotReads(call.token), limits());
  // The value is usually the last word read (after a proxy's implementation slot, a pause flag…).
  for (const slot of [...reads].reverse()) {
    const key = bigintToFixed(slot, 32);
    const probe = async (sm: MerkleStateManager) => sm.putStorage(new Address(call.token), key, bigintToFixed(PROBE, 32));
    const outcome = await traces.traceCall(req, header, new ReturnValue(), limits(), probe);
    if (outcome.error === undefined && outcome.returnValue.length >= 32 && bytesToBigint(outcome.returnValue.subarray(0, 32)) === PROBE) return key;
  }
  throw wrongState(`no storage slot of ${bytesToHex(call.token)} holds ${call.what}: it read ${reads.length} slots and none returned a written value`);
}
