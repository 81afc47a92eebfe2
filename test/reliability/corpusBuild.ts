// Request builders of the corpus rows: JSON-RPC bodies, and one typed value placed in the
// equivalent parameter of each endpoint's method.

import type { CorpusEnv, Target } from './corpus.js';

export const body = (o: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', ...o });
export const call = (method: string, params?: unknown, id: unknown = 1) =>
  JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
export const note = (method: string, params: unknown = []) => JSON.stringify({ jsonrpc: '2.0', method, params });

/** The same text everywhere. */
export const same = (text: string | Buffer | (() => string | Buffer)) => () => (typeof text === 'function' ? text() : text);

/** Text per target; IPC takes the VNODE text unless given its own; a missing target is skipped. */
export function per(map: Partial<Record<Target, string | (() => string)>>) {
  return (t: Target) => {
    const v = map[t] ?? (t === 'ipc' ? map.vnode : undefined);
    return typeof v === 'function' ? v() : v;
  };
}

/** One call per endpoint: VNODE (and IPC), SCS `rpc`, rpcdebug. */
export function zeroArg(id: unknown = 1) {
  return per({
    vnode: call('mc_blockNumber', [], id),
    scs: call('scs_getMicroChainList', [], id),
    scsdebug: call('ScsRPCMethod.GetScsId', {}, id),
  });
}

/** A JSON value of a given encoding in the equivalent parameter of each endpoint. */
export function typed(env: CorpusEnv) {
  const c = env.chain;
  return {
    address: (v: unknown) =>
      per({
        vnode: call('mc_getBalance', [v, 'latest']),
        scs: call('scs_getNonce', [c, v]),
        scsdebug: call('ScsRPCMethod.GetNonce', { SubChainAddr: c, Sender: v }),
      }),
    hash: (v: unknown) =>
      per({
        vnode: call('mc_getTransactionByHash', [v]),
        scs: call('scs_getTransactionByHash', [c, v]),
        scsdebug: call('ScsRPCMethod.GetTransactionByHash', { SubChainAddr: c, Hash: v }),
      }),
    /** a block number; rpcdebug's `number` takes JSON numbers and QUANTITY strings */
    number: (v: unknown) =>
      per({
        vnode: call('mc_getBlockByNumber', [v, false]),
        scs: call('scs_getBlock', [c, v]),
        scsdebug: call('ScsRPCMethod.GetBlock', { SubChainAddr: c, number: v }),
      }),
    /** a block TAG (rpcdebug has no tags: its block number takes the value) */
    tag: (v: unknown) =>
      per({
        vnode: call('mc_getBalance', [env.account, v]),
        scs: call('scs_getBlock', [c, v]),
        scsdebug: call('ScsRPCMethod.GetBlock', { SubChainAddr: c, number: v }),
      }),
    /** free-form DATA; rpcdebug has none, so its transaction hash (same decoder) takes the value */
    data: (v: unknown) =>
      per({
        vnode: call('libx_sha3', [v]),
        scs: call('scs_directCall', [{ to: c, data: v }]),
        scsdebug: call('ScsRPCMethod.GetReceiptByHash', { SubChainAddr: c, Hash: v }),
      }),
    /** an index (non-negative integer) */
    index: (v: unknown) =>
      per({
        vnode: call('mc_getTransactionByBlockNumberAndIndex', ['latest', v]),
        scs: call('scs_getExchangeInfo', [c, v, 1, 0, 1]),
        scsdebug: call('ScsRPCMethod.GetExchangeInfo', { SubChainAddr: c, EnteringRecordIndex: v }),
      }),
  };
}

