// Traces of mined transactions and blocks by hash or number, and of calls: the blocks and their
// parents looked up, then the TraceRunner's replay with the tracer given. What the trace_* and
// ots_* modules ask for; they only format the results.

import type { Block, Header } from '../chain/types.js';
import { notFound, unsupported } from '../errors.js';
import type { CallRequest } from '../execution/call.js';
import type { TraceRunner } from './traceRunner.js';
import type { TraceLimits, Tracer } from './tracer.js';

/** The chain reads a trace needs. */
export interface TraceChain {
  getBlockByHash(hash: Uint8Array): Promise<Block | undefined>;
  findTransaction(txHash: Uint8Array): Promise<{ block: Block; index: number } | undefined>;
}

/** How long a trace of these modules may run (debug_* take a timeout option instead). */
const TRACE_TIMEOUT_MS = 30_000;

export class ChainTraces {
  constructor(
    private readonly chain: TraceChain,
    private readonly runner: TraceRunner,
  ) {}

  /**
   * A mined transaction's trace with its block and position; undefined when it is not in the
   * canonical chain. `printConsole`: its console.log lines are printed again (a user's trace).
   */
  async transaction<R>(
    txHash: Uint8Array, tracer: () => Tracer<R>, printConsole = false,
  ): Promise<{ result: R; block: Block; index: number } | undefined> {
    const found = await this.chain.findTransaction(txHash);
    if (!found) return undefined;
    const [result] = await this.runner.traceBlock(await this.parentOf(found.block), found.block, [found.index], tracer, limits(), printConsole);
    return { result, block: found.block, index: found.index };
  }

  /** Every transaction of a block, in order. */
  async block<R>(block: Block, tracer: () => Tracer<R>): Promise<R[]> {
    if (block.header.number === 0n) throw unsupported('genesis is not traceable');
    if (block.transactions.length === 0) return [];
    const indexes = block.transactions.map((_, i) => i);
    return this.runner.traceBlock(await this.parentOf(block), block, indexes, tracer, limits());
  }

  /** A call on `header`'s state, as mc_call runs it. */
  call<R>(req: CallRequest, header: Header, tracer: Tracer<R>): Promise<R> {
    return this.runner.traceCall(req, header, tracer, limits());
  }

  private async parentOf(block: Block): Promise<Header> {
    const parent = await this.chain.getBlockByHash(block.header.parentHash);
    if (!parent) throw notFound(`parent of block ${block.header.number} not found`);
    return parent.header;
  }
}

function limits(): TraceLimits {
  return { timeoutMs: TRACE_TIMEOUT_MS, timeoutText: `${TRACE_TIMEOUT_MS / 1000}s` };
}
