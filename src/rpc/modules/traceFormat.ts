// OpenEthereum's trace shapes as Anvil serves them: localized traces (`trace_transaction`,
// `trace_block`, `trace_filter`), replay results (`output`, `trace`, `stateDiff`, `vmTrace`).

import type { Block } from '../../chain/types.js';
import { bytesToHex, encodeQuantity } from '../../encoding/hex.js';
import type { FlatCallTrace, TraceFrame } from '../../tracing/flatCallTracer.js';
import type { AccountState, PrestateResult } from '../../tracing/prestateTracer.js';
import { flattenFrames, rootOf, type FlatEntry } from '../../tracing/traceFilter.js';

const q = encodeQuantity;
const d = bytesToHex;

/** OpenEthereum's error texts for the EVM's error words. */
function parityError(error: string): string {
  switch (error) {
    case 'revert':
      return 'Reverted';
    case 'out of gas':
    case 'code store out of gas':
      return 'Out of gas';
    case 'invalid JUMP':
      return 'Bad jump destination';
    case 'invalid opcode':
      return 'Bad instruction';
    case 'stack underflow':
      return 'Stack underflow';
    case 'stack overflow':
      return 'Out of stack';
    case 'static state change':
      return 'Mutable Call In Static Context';
    case 'create collision':
      return 'Contract address collision';
    default:
      return error.charAt(0).toUpperCase() + error.slice(1);
  }
}

/** One frame's `type`, `action`, `result` and `error` (no `result` for a failure other than a revert, as OpenEthereum). */
function frameFields(f: TraceFrame): Record<string, unknown> {
  if (f.type === 'SELFDESTRUCT') {
    return { type: 'suicide', action: { address: d(f.from), balance: q(f.value), refundAddress: d(f.to!) }, result: null };
  }
  const out: Record<string, unknown> = {};
  if (f.type === 'CREATE' || f.type === 'CREATE2') {
    out.type = 'create';
    out.action = { from: d(f.from), gas: q(f.gas), init: d(f.input), value: q(f.value), creationMethod: f.type.toLowerCase() };
    if (f.error === undefined) out.result = { address: d(f.to!), code: d(f.output), gasUsed: q(f.gasUsed) };
  } else {
    out.type = 'call';
    out.action = { from: d(f.from), callType: f.type.toLowerCase(), gas: q(f.gas), input: d(f.input), to: d(f.to!), value: q(f.value) };
    if (f.error === undefined || f.error === 'revert') out.result = { gasUsed: q(f.gasUsed), output: d(f.output) };
  }
  if (f.error !== undefined) out.error = parityError(f.error);
  return out;
}

/** A frame without its block: what replay results list. */
export function formatTraceEntry(e: FlatEntry) {
  return { ...frameFields(e.frame), subtraces: e.subtraces, traceAddress: e.traceAddress };
}

/** A frame of a mined transaction, with its block and position. */
export function formatLocalized(e: FlatEntry, block: Block, txIndex: number) {
  return {
    ...formatTraceEntry(e),
    blockHash: d(block.hash),
    blockNumber: Number(block.header.number),
    transactionHash: d(block.transactions[txIndex].hash),
    transactionPosition: txIndex,
  };
}

/** Every frame of a mined transaction. */
export function formatTransactionTraces(trace: FlatCallTrace, block: Block, txIndex: number) {
  return flattenFrames(rootOf(trace)).map((e) => formatLocalized(e, block, txIndex));
}

/** The block's reward to its miner. */
export function formatReward(block: Block, author: Uint8Array, value: bigint) {
  return {
    action: { author: d(author), rewardType: 'block', value: q(value) },
    blockHash: d(block.hash),
    blockNumber: Number(block.header.number),
    result: null,
    subtraces: 0,
    traceAddress: [],
    transactionHash: null,
    transactionPosition: null,
    type: 'reward',
  };
}

type Diff = '=' | { '+': string } | { '-': string } | { '*': { from: string; to: string } };

function change(before: string | undefined, after: string | undefined): Diff {
  if (before === after) return '=';
  if (before === undefined) return { '+': after! };
  if (after === undefined) return { '-': before };
  return { '*': { from: before, to: after } };
}

const slot = (k: bigint) => '0x' + k.toString(16).padStart(64, '0');

/** OpenEthereum's stateDiff from the prestate tracer's diff: born (+), died (-) and changed (*) accounts and slots. */
export function formatStateDiff(result: PrestateResult): Record<string, unknown> {
  if (!result.diff) return {};
  const out: Record<string, unknown> = {};
  const addresses = new Set([...result.pre.keys(), ...result.post.keys()]);
  for (const address of addresses) {
    const before = result.pre.get(address);
    const after = result.post.get(address);
    out[address] = before && after ? changedAccount(before, after) : wholeAccount(before ?? after!, before ? '-' : '+');
  }
  return out;
}

function wholeAccount(a: AccountState, sign: '+' | '-') {
  const storage: Record<string, Diff> = {};
  for (const [k, v] of a.storage) storage[slot(k)] = { [sign]: slot(v) } as Diff;
  return {
    balance: { [sign]: q(a.balance) },
    code: { [sign]: d(a.code) },
    nonce: { [sign]: q(a.nonce) },
    storage,
  };
}

/** `after` holds only what changed (balance and nonce -1 when unchanged, code empty when unchanged). */
function changedAccount(before: AccountState, after: AccountState) {
  const storage: Record<string, Diff> = {};
  for (const k of new Set([...before.storage.keys(), ...after.storage.keys()])) {
    storage[slot(k)] = change(slot(before.storage.get(k) ?? 0n), slot(after.storage.get(k) ?? 0n));
  }
  return {
    balance: after.balance < 0n ? '=' : change(q(before.balance), q(after.balance)),
    code: after.code.length === 0 ? '=' : change(d(before.code), d(after.code)),
    nonce: after.nonce < 0n ? '=' : change(q(before.nonce), q(after.nonce)),
    storage,
  };
}

