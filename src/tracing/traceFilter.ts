// OpenEthereum's flat traces: a transaction's frames in the order they ran, each with its path
// in the tree (`traceAddress`) and its number of children, and trace_filter's walk over a block
// range: every frame whose sender and recipient match, and the blocks' rewards.

import type { Block } from '../chain/types.js';
import { bytesToHex } from '../encoding/hex.js';
import { limitExceeded } from '../errors.js';
import type { ChainTraces } from './chainTraces.js';
import { FlatCallTracer, type FlatCallTrace, type TraceFrame } from './flatCallTracer.js';

export interface FlatEntry {
  frame: TraceFrame;
  traceAddress: number[];
  subtraces: number;
}

/** The frames of a trace, each before its children. */
export function flattenFrames(root: TraceFrame | undefined): FlatEntry[] {
  const out: FlatEntry[] = [];
  const visit = (frame: TraceFrame, path: number[]) => {
    out.push({ frame, traceAddress: path, subtraces: frame.calls.length });
    frame.calls.forEach((child, i) => visit(child, [...path, i]));
  };
  if (root) visit(root, []);
  return out;
}

/** The frame a transaction without EVM frames (a plain system transaction) is traced as. */
export function rootOf(trace: FlatCallTrace): TraceFrame | undefined {
  if (trace.root || !trace.tx) return trace.root;
  const { tx } = trace;
  return {
    type: tx.to ? 'CALL' : 'CREATE', from: tx.from, to: tx.to ?? trace.outcome.createdAddress, value: tx.value, gas: 0n, gasUsed: 0n,
    input: tx.data, output: trace.outcome.returnValue, error: trace.outcome.error, depth: 0, calls: [],
  };
}

export interface TraceFilterQuery {
  /** mined blocks from..to, inclusive (the caller bounds the range) */
  from: bigint;
  to: bigint;
  /** senders to match (empty: any) */
  fromAddresses: Uint8Array[];
  /** recipients to match (empty: any) */
  toAddresses: Uint8Array[];
  /** matches skipped first */
  after: number;
  /** matches returned at most (undefined: all, up to the limit) */
  count: number | undefined;
}

export type FilteredTrace =
  | { kind: 'frame'; block: Block; txIndex: number; entry: FlatEntry }
  | { kind: 'reward'; block: Block; author: Uint8Array };

export interface TraceFilterSource {
  traces: ChainTraces;
  getBlockByNumber(number: bigint): Promise<Block | undefined>;
  /** the most traces one answer carries */
  maxTraces: number;
}

/** The matching traces of the range, in block and execution order, the block reward last in each block. */
export async function filterTraces(src: TraceFilterSource, q: TraceFilterQuery): Promise<FilteredTrace[]> {
  const senders = new Set(q.fromAddresses.map(bytesToHex));
  const recipients = new Set(q.toAddresses.map(bytesToHex));
  const matches = (from: Uint8Array, to: Uint8Array | undefined) =>
    (senders.size === 0 || senders.has(bytesToHex(from))) && (recipients.size === 0 || (to !== undefined && recipients.has(bytesToHex(to))));
  const out: FilteredTrace[] = [];
  let skip = q.after;
  const take = (t: FilteredTrace): boolean => {
    if (skip > 0) {
      skip--;
      return true;
    }
    if (q.count !== undefined && out.length >= q.count) return false;
    if (out.length >= src.maxTraces) throw limitExceeded(`traces (max ${src.maxTraces} per answer)`);
    out.push(t);
    return true;
  };
  for (let n = q.from < 1n ? 1n : q.from; n <= q.to; n++) {
    const block = await src.getBlockByNumber(n);
    if (!block) break;
    const traces = await src.traces.block(block, () => new FlatCallTracer());
    for (const [txIndex, trace] of traces.entries()) {
      for (const entry of flattenFrames(rootOf(trace))) {
        if (matches(entry.frame.from, entry.frame.to) && !take({ kind: 'frame', block, txIndex, entry })) return out;
      }
    }
    // A reward has no sender: it matches only a filter without senders.
    const rewardMatches = senders.size === 0 && (recipients.size === 0 || recipients.has(bytesToHex(block.header.miner)));
    if (rewardMatches && !take({ kind: 'reward', block, author: block.header.miner })) return out;
  }
  return out;
}
