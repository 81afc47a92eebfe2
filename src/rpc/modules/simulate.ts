// mc_simulateV1 / eth_simulateV1 (design.md §17, docs/methods.md#simulation): decode geth's
// request shape, run it on the simulator, answer with geth's block shape plus `calls`.

import type { BlockTag } from '../../encoding/hex.js';
import { bytesToHex, encodeQuantity } from '../../encoding/hex.js';
import { unsupported } from '../../errors.js';
import type { SimBlockRequest, SimOptions, Simulator, SimCallResult } from '../../execution/simulate.js';
import { gethError } from '../../tracing/tracer.js';
import { decodeRevertReason } from '../../execution/revertReason.js';
import { formatBlock, formatLog } from '../format.js';
import { blockOverrides, stateOverrides } from '../overrideParams.js';
import { ParamError, blockTag, boolean, member, method, objectParam, withDefault, type Codec } from '../params.js';
import type { RpcMethod } from '../types.js';
import type { McBackend } from '../backend.js';
import { txRequest } from './mc/transactions.js';

export interface SimulateContext {
  backend: McBackend;
  simulator: Simulator;
}

interface SimRequest extends SimOptions {
  blocks: SimBlockRequest[];
  fullTransactions: boolean;
}

const simRequest: Codec<SimRequest> = (v, i) => {
  const o = objectParam(v, i);
  const list = o.blockStateCalls;
  if (!Array.isArray(list)) throw new ParamError(i, 'field "blockStateCalls": expected an array');
  const blocks = list.map((entry: unknown, b): SimBlockRequest => {
    const e = objectParam(entry, i);
    const calls = e.calls ?? [];
    if (!Array.isArray(calls)) throw new ParamError(i, `blockStateCalls[${b}]: field "calls": expected an array`);
    return {
      blockOverrides: member(e, 'blockOverrides', blockOverrides, i),
      stateOverrides: member(e, 'stateOverrides', stateOverrides, i),
      calls: calls.map((c: unknown) => {
        const req = txRequest(c, i);
        return { from: req.from, to: req.to, gas: req.gas, gasPrice: req.gasPrice, value: req.value, data: req.data, nonce: req.nonce };
      }),
    };
  });
  return {
    blocks,
    validation: member(o, 'validation', boolean, i) ?? false,
    traceTransfers: member(o, 'traceTransfers', boolean, i) ?? false,
    fullTransactions: member(o, 'returnFullTransactions', boolean, i) ?? false,
  };
};

/** One call's result in geth's shape: a revert is -32000 with its data, another EVM error -32015. */
function formatCall(c: SimCallResult, logs: unknown[]) {
  const base = { returnData: bytesToHex(c.returnData), logs, gasUsed: encodeQuantity(c.gasUsed), status: encodeQuantity(BigInt(c.status)) };
  if (c.status === 1) return base;
  if (c.error === 'revert') {
    const reason = decodeRevertReason(c.returnData);
    return { ...base, error: { code: -32000, message: reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`, data: bytesToHex(c.returnData) } };
  }
  return { ...base, error: { code: -32015, message: gethError(c.error ?? 'execution failed') } };
}

export function simulateMethods(ctx: SimulateContext): Record<string, RpcMethod> {
  const { backend, simulator } = ctx;
  return {
    mc_simulateV1: method([simRequest, withDefault(blockTag, 'latest' as BlockTag)], async (req, tag) => {
      const resolved = await backend.blockAt(tag);
      if (resolved === undefined) throw new ParamError(1, 'header not found');
      if (resolved.kind === 'pending') throw unsupported('simulation builds on a mined block; name one (latest, a number)');
      const base = resolved.block;
      const blocks = await simulator.simulate(base, req.blocks, req);
      let td = (await backend.totalDifficulty(base.hash)) ?? 0n;
      return blocks.map(({ block, calls }) => {
        td += block.header.difficulty;
        let logIndex = 0;
        const formatted = calls.map((c, index) => formatCall(c, c.logs.map((log) => formatLog(log, {
          blockHash: block.hash, blockNumber: block.header.number, index, txHash: block.transactions[index].hash, logIndex: logIndex++,
        }))));
        return { ...formatBlock(block, td, req.fullTransactions), calls: formatted };
      });
    }),
  };
}
