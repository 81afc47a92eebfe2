// trace_* (OpenEthereum's trace module, as Anvil serves it): traces of mined transactions and
// blocks, trace_filter over a bounded block range, and replays with `trace` and `stateDiff`.
// The frames come from tracing/flatCallTracer.ts, the state diff from the prestate tracer.

import type { Block } from '../../chain/types.js';
import { bytesToHex, type BlockTag } from '../../encoding/hex.js';
import { notFound, unsupported } from '../../errors.js';
import type { CallRequest } from '../../execution/call.js';
import { resolveRange, type LogLimits } from '../../filters/logQuery.js';
import type { ChainTraces } from '../../tracing/chainTraces.js';
import { FlatCallTracer, type FlatCallTrace } from '../../tracing/flatCallTracer.js';
import { PrestateTracer, type PrestateResult } from '../../tracing/prestateTracer.js';
import { filterTraces, flattenFrames, rootOf } from '../../tracing/traceFilter.js';
import { tracerPair } from '../../tracing/tracerPair.js';
import { ParamError, address, blockTag, count, hash, member, method, objectParam, optional, type Codec } from '../params.js';
import type { RpcMethod } from '../types.js';
import { txRequest } from './mc/transactions.js';
import { formatLocalized, formatReward, formatStateDiff, formatTraceEntry, formatTransactionTraces } from './traceFormat.js';

/** What the trace module reads. */
export interface TraceBackend {
  chain: {
    readonly head: Block;
    getBlockByNumber(number: bigint): Promise<Block | undefined>;
    getBlockByHash(hash: Uint8Array): Promise<Block | undefined>;
  };
  traces: ChainTraces;
  /** the miner's reward for block `number` */
  blockReward(number: bigint): bigint;
  /** a call's sender when it names none */
  defaultFrom(): Uint8Array | undefined;
  /** the range limit of mc_getLogs, which trace_filter shares */
  limits: LogLimits;
}

const TRACE_TYPES = ['trace', 'stateDiff', 'vmTrace'] as const;
type TraceType = (typeof TRACE_TYPES)[number];

const traceTypes: Codec<Set<TraceType>> = (v, i) => {
  if (!Array.isArray(v)) throw new ParamError(i, 'expected an array of trace types (trace, stateDiff, vmTrace)');
  for (const t of v) if (!(TRACE_TYPES as readonly unknown[]).includes(t)) throw new ParamError(i, `unknown trace type ${JSON.stringify(t)} (trace, stateDiff, vmTrace)`);
  return new Set(v as TraceType[]);
};

const addressList: Codec<Uint8Array[]> = (v, i) => {
  if (!Array.isArray(v)) throw new ParamError(i, 'expected an array of addresses');
  return v.map((a) => address(a, i));
};

interface FilterParams {
  fromBlock: BlockTag;
  toBlock: BlockTag;
  fromAddress: Uint8Array[];
  toAddress: Uint8Array[];
  after: number;
  count: number | undefined;
}

const filterParams: Codec<FilterParams> = (v, i) => {
  const o = objectParam(v, i);
  return {
    fromBlock: member(o, 'fromBlock', blockTag, i) ?? 'latest',
    toBlock: member(o, 'toBlock', blockTag, i) ?? 'latest',
    fromAddress: member(o, 'fromAddress', addressList, i) ?? [],
    toAddress: member(o, 'toAddress', addressList, i) ?? [],
    after: member(o, 'after', count, i) ?? 0,
    count: member(o, 'count', count, i),
  };
};

type Replay = [FlatCallTrace, PrestateResult | undefined];

/** trace_replay* results: the output, the frames without their block (when asked), the state diff (when asked). */
function formatReplay([trace, diff]: Replay, types: Set<TraceType>) {
  return {
    output: bytesToHex(trace.outcome.returnValue),
    stateDiff: types.has('stateDiff') && diff ? formatStateDiff(diff) : null,
    trace: types.has('trace') ? flattenFrames(rootOf(trace)).map(formatTraceEntry) : [],
    vmTrace: null,
  };
}

export function traceMethods(b: TraceBackend): Record<string, RpcMethod> {
  const { chain } = b;
  const replayTracer = (types: Set<TraceType>) => () =>
    tracerPair(new FlatCallTracer(), types.has('stateDiff') ? new PrestateTracer(true) : NO_DIFF);

  const blockOf = async (tag: BlockTag): Promise<Block> => {
    if (tag === 'pending') throw unsupported('the pending block cannot be traced; name a mined block');
    const block = tag === 'latest' ? chain.head : tag === 'earliest' ? await chain.getBlockByNumber(0n) : await chain.getBlockByNumber(tag);
    if (!block) throw notFound('block not found');
    return block;
  };

  const blockTraces = async (block: Block) => {
    const traces = await b.traces.block(block, () => new FlatCallTracer());
    const out: unknown[] = traces.flatMap((trace, i) => formatTransactionTraces(trace, block, i));
    out.push(formatReward(block, block.header.miner, b.blockReward(block.header.number)));
    return out;
  };

  return {
    trace_transaction: method([hash], async (h) => {
      const found = await b.traces.transaction(h, () => new FlatCallTracer(), true);
      return found ? formatTransactionTraces(found.result, found.block, found.index) : null;
    }),
    trace_block: method([blockTag], async (tag) => {
      const block = await blockOf(tag);
      return block.header.number === 0n ? [] : blockTraces(block);
    }),
    trace_filter: method([filterParams], async (p) => {
      const range = resolveRange(p.fromBlock, p.toBlock, chain.head.header.number, b.limits);
      const found = await filterTraces(
        { traces: b.traces, getBlockByNumber: (n) => chain.getBlockByNumber(n), maxTraces: b.limits.maxLogs },
        { from: range.from, to: range.to, fromAddresses: p.fromAddress, toAddresses: p.toAddress, after: p.after, count: p.count },
      );
      return found.map((t) => t.kind === 'reward'
        ? formatReward(t.block, t.author, b.blockReward(t.block.header.number))
        : formatLocalized(t.entry, t.block, t.txIndex));
    }),
    trace_call: method([txRequest, traceTypes, optional(blockTag)], async (req, types, tag) => {
      const block = await blockOf(tag ?? 'latest');
      const call: CallRequest = { from: req.from ?? b.defaultFrom(), to: req.to, gas: req.gas, gasPrice: req.gasPrice, value: req.value, data: req.data };
      return formatReplay(await b.traces.call(call, block.header, replayTracer(types)()) as Replay, types);
    }),
    trace_replayTransaction: method([hash, traceTypes], async (h, types) => {
      const found = await b.traces.transaction(h, replayTracer(types), true);
      if (!found) throw notFound(`transaction ${bytesToHex(h)} not found`);
      return formatReplay(found.result as Replay, types);
    }),
    trace_replayBlockTransactions: method([blockTag, traceTypes], async (tag, types) => {
      const block = await blockOf(tag);
      const results = await b.traces.block(block, replayTracer(types));
      return results.map((r, i) => ({ ...formatReplay(r as Replay, types), transactionHash: bytesToHex(block.transactions[i].hash) }));
    }),
  };
}

/** The second tracer of a replay that wants no state diff. */
const NO_DIFF = { finish: () => undefined };
