// debug_*: tracing (struct logger, callTracer, prestateTracer, 4byteTracer) and raw chain data.
// The tracers live in tracing/; this module decodes options, picks the blocks and formats.

import type { Block } from '../../chain/types.js';
import { encodeBlock, encodeHeader, encodeReceiptForRoot } from '../../chain/block.js';
import { bytesToHex, type BlockTag } from '../../encoding/hex.js';
import { formatDuration, parseDuration } from '../../encoding/duration.js';
import { notFound, unsupported } from '../../errors.js';
import type { TraceRunner } from '../../tracing/traceRunner.js';
import type { TraceLimits, Tracer } from '../../tracing/tracer.js';
import { StructLogger } from '../../tracing/structLogger.js';
import { CallTracer } from '../../tracing/callTracer.js';
import { PrestateTracer } from '../../tracing/prestateTracer.js';
import { FourByteTracer } from '../../tracing/fourByteTracer.js';
import { ParamError, blockTag, hash, method, objectParam, optional, type Codec } from '../params.js';
import type { RpcMethod } from '../types.js';
import { txRequest } from './mc/transactions.js';
import type { McBackend } from '../backend.js';
import { formatCallFrame, formatFourByte, formatPrestate, formatStructTrace } from './debugFormat.js';

export interface DebugContext {
  backend: McBackend;
  traces: TraceRunner;
  isPrecompile: (address: Uint8Array) => boolean;
  /** a trace's timeout when its options name none (rpc.evmTimeout, ms; 0: none) */
  defaultTimeoutMs: number;
}

/** A tracer with its formatter: what one traced transaction produces on the wire. */
interface TracerChoice {
  make: () => Tracer<unknown>;
  format: (result: never) => unknown;
  limits: TraceLimits;
}

/** The `timeout` option: a Go duration string ("5s", "300ms", "1m30s") in milliseconds. */
function timeoutMs(text: string, i: number): number {
  const ns = parseDuration(text);
  if (ns === undefined) throw new ParamError(i, `timeout: "${text}" is not a duration such as "5s" or "300ms"`);
  return ns / 1e6;
}

const flag = (o: Record<string, unknown>, key: string, i: number): boolean => {
  const v = o[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new ParamError(i, `field "${key}": expected a boolean`);
  return v;
};

function traceOptions(ctx: DebugContext, v: unknown, i: number): TracerChoice {
  const o = v === undefined || v === null ? {} : objectParam(v, i);
  if (typeof (o.timeout ?? '') !== 'string') throw new ParamError(i, `field "timeout": expected a duration string`);
  const given = o.timeout === undefined || o.timeout === null ? undefined : String(o.timeout);
  // Without the option: the node's evm timeout (0 there means none); a given "0s" has passed at once, as in geth.
  const limits: TraceLimits = given !== undefined ? { timeoutMs: timeoutMs(given, i), timeoutText: given }
    : ctx.defaultTimeoutMs > 0 ? { timeoutMs: ctx.defaultTimeoutMs, timeoutText: formatDuration(ctx.defaultTimeoutMs * 1e6) }
      : { timeoutMs: Infinity, timeoutText: 'no limit' };
  const config = o.tracerConfig === undefined || o.tracerConfig === null ? {} : objectParam(o.tracerConfig, i);
  const tracer = o.tracer ?? undefined;
  if (tracer !== undefined && typeof tracer !== 'string') throw new ParamError(i, `field "tracer": expected a string`);
  switch (tracer) {
    case undefined:
    case '': {
      const limit = o.limit ?? 0;
      if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0) throw new ParamError(i, `field "limit": expected a non-negative integer`);
      const opts = {
        disableStack: flag(o, 'disableStack', i), disableStorage: flag(o, 'disableStorage', i),
        enableMemory: flag(o, 'enableMemory', i), enableReturnData: flag(o, 'enableReturnData', i), limit,
      };
      return { make: () => new StructLogger(opts), format: formatStructTrace as (r: never) => unknown, limits };
    }
    case 'callTracer': {
      const opts = { onlyTopCall: flag(config, 'onlyTopCall', i), withLog: flag(config, 'withLog', i) };
      return { make: () => new CallTracer(opts), format: formatCallFrame as (r: never) => unknown, limits };
    }
    case 'prestateTracer': {
      const diff = flag(config, 'diffMode', i);
      return { make: () => new PrestateTracer(diff), format: formatPrestate as (r: never) => unknown, limits };
    }
    case '4byteTracer':
      return { make: () => new FourByteTracer(ctx.isPrecompile), format: formatFourByte as (r: never) => unknown, limits };
    default:
      throw notFound(`tracer not found: ${tracer} (available: callTracer, prestateTracer, 4byteTracer, or none for the struct logger)`);
  }
}

const options = (ctx: DebugContext): Codec<TracerChoice> => (v, i) => traceOptions(ctx, v, i);

export function debugMethods(ctx: DebugContext): Record<string, RpcMethod> {
  const { backend } = ctx;
  const opts = optional(options(ctx));
  const defaults = (choice: TracerChoice | undefined) => choice ?? traceOptions(ctx, undefined, 1);

  const parentOf = async (block: Block) => {
    const parent = await backend.blockByHash(block.header.parentHash);
    if (!parent) throw notFound(`parent of block ${block.header.number} not found`);
    return parent;
  };

  const traceBlock = async (block: Block | undefined, choice: TracerChoice) => {
    if (!block) throw notFound('block not found');
    if (block.header.number === 0n) throw unsupported('genesis is not traceable');
    const indexes = block.transactions.map((_, i) => i);
    const results = await ctx.traces.traceBlock((await parentOf(block)).header, block, indexes, choice.make, choice.limits);
    return results.map((result, i) => ({ txHash: bytesToHex(block.transactions[i].hash), result: choice.format(result as never) }));
  };

  const minedBlock = async (tag: BlockTag) => {
    const resolved = await backend.blockAt(tag);
    if (resolved?.kind === 'pending') throw unsupported('the pending block cannot be read here; name a mined block');
    return resolved?.block;
  };

  return {
    debug_traceTransaction: method([hash, opts], async (txHash, choice) => {
      const c = defaults(choice);
      const found = await backend.findTransaction(txHash);
      if (!found) throw notFound(`transaction ${bytesToHex(txHash)} not found`);
      const [result] = await ctx.traces.traceBlock((await parentOf(found.block)).header, found.block, [found.index], c.make, c.limits);
      return c.format(result as never);
    }),
    debug_traceCall: method([txRequest, optional(blockTag), opts], async (req, tag, choice) => {
      const c = defaults(choice);
      const block = await minedBlock(tag ?? 'latest');
      if (!block) throw notFound('header not found');
      const from = req.from ?? backend.accounts()[0];
      const result = await ctx.traces.traceCall({ ...req, from }, block.header, c.make(), c.limits);
      return c.format(result as never);
    }),
    debug_traceBlockByNumber: method([blockTag, opts], async (tag, choice) => traceBlock(await minedBlock(tag), defaults(choice))),
    debug_traceBlockByHash: method([hash, opts], async (h, choice) => traceBlock(await backend.blockByHash(h), defaults(choice))),
    debug_getRawTransaction: method([hash], async (txHash) => {
      const found = await backend.findTransaction(txHash);
      const tx = found ? found.block.transactions[found.index] : backend.poolTransaction(txHash);
      return tx ? bytesToHex(tx.raw) : null;
    }),
    debug_getRawBlock: method([blockTag], async (tag) => {
      const block = await minedBlock(tag);
      if (!block) throw notFound('block not found');
      return bytesToHex(encodeBlock(block.header, block.transactions));
    }),
    debug_getRawHeader: method([blockTag], async (tag) => {
      const block = await minedBlock(tag);
      if (!block) throw notFound('block not found');
      return bytesToHex(encodeHeader(block.header));
    }),
    debug_getRawReceipts: method([blockTag], async (tag) => {
      const block = await minedBlock(tag);
      if (!block) throw notFound('block not found');
      const receipts = (await backend.receipts(block.hash)) ?? [];
      return receipts.map((r) => bytesToHex(encodeReceiptForRoot(r)));
    }),
  };
}

