// scs_* (docs/scs.md, the SCS `rpc` variant): positional params, integers as QUANTITY
// except where the real SCS writes plain numbers (nonce, Dapp state, record counts). The
// queries (scsQueries.ts) are shared with the rpcdebug variant (scsRpcMethod.ts).

import { bytesToHex, decodeBlockTag, type BlockTag } from '../../encoding/hex.js';
import { toChecksumAddress } from '../../encoding/address.js';
import { ParamError,
  address, count, data, decodeArg, hash, integer, member, method, objectParam, optional, withDefault, type Codec,
} from '../params.js';
import type { RpcMethod } from '../types.js';
import { Dispatcher, type StartGate } from '../dispatch.js';
import { HttpRpcServer } from '../http.js';
import type { FastPathCounts } from '../httpFastPath.js';
import { buildMethodTable } from './index.js';
import { scsRpcDebugMethods } from './scsRpcMethod.js';
import { poolShape, scsBlock, scsReceiptResult, scsTransactionResult, toRpc, type PageRequest } from './scsFormat.js';
import {
  blockAt, blockList, directCall, exchangeByAddress, exchangeInfo, infoOf, poolOf, splitCall, type ScsContext,
} from './scsQueries.js';

export const SCS_PROTOCOL_VERSION = '0x1';

/** A nonce as a JSON number or a QUANTITY (chain3 passes the user's value unformatted). */
export const nonce: Codec<bigint> = integer;

/** A block number (JSON number or QUANTITY) or earliest/latest; `pending` is refused. */
export const scsBlockTag: Codec<bigint | 'earliest' | 'latest'> = (v, i) => {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  const tag = decodeArg(i, () => decodeBlockTag(v));
  if (tag === 'pending') throw new ParamError(i, `app chains have no pending block; use a number, "earliest" or "latest"`);
  return tag;
};

/** Where a block value is optional and an invalid one means the head, as the real SCS does. */
const lenientTag = optional<BlockTag | undefined>((v, i) => {
  try {
    return scsBlockTag(v, i);
  } catch {
    return undefined;
  }
});

// --- the rpc variant ---------------------------------------------------------------------

const callObject: Codec<{ from?: Uint8Array; to: Uint8Array; data?: Uint8Array; dappAddr?: Uint8Array }> = (v, i) => {
  const o = objectParam(v, i);
  const to = member(o, 'to', address, i);
  if (!to) throw new ParamError(i, `missing "to" (the app chain address)`);
  return { from: member(o, 'from', address, i), to, data: member(o, 'data', data, i), dappAddr: member(o, 'dappAddr', address, i) };
};
const index = withDefault(count, 0);
const size = withDefault(count, 20);
const pageOf = (i: number, c: number): PageRequest => ({ index: i, count: c });

export function scsMethods(ctx: ScsContext): Record<string, RpcMethod> {
  const { scs } = ctx;
  const at = (a: Uint8Array) => scs.chain(a);
  const dappList = method([address], (c) => at(c).dapps.map((dapp) => bytesToHex(dapp.address)));
  const chainList = method([], () => scs.list().map((c) => c.key));
  const info = method([address], async (c) => toRpc(await infoOf(at(c), false)));
  const receiptByHash = method([address, hash], async (c, h) => toRpc(scsReceiptResult(await at(c).findTx(h))));

  return {
    scs_directCall: method([callObject, lenientTag], async (req, tag) => {
      const { dapp, data: input } = splitCall(req.dappAddr, req.data, 0);
      return bytesToHex(await directCall(at(req.to), req.from, dapp, input, tag));
    }),
    scs_getBalance: method([address, address, lenientTag], async (c, account, tag) => {
      const block = await blockAt(at(c), tag);
      return toRpc(block ? await at(c).balanceOf(account, block.header.stateRoot) : 0n);
    }),
    scs_getBlock: method([address, scsBlockTag], async (c, tag) => {
      const block = await blockAt(at(c), tag);
      return block ? toRpc(scsBlock(block)) : null;
    }),
    scs_getBlockList: method([address, scsBlockTag, scsBlockTag], async (c, start, end) => {
      const list = await blockList(at(c), start, end, scsBlock);
      return toRpc({ blockList: list.blocks, startBlk: list.from, endBlk: list.to, microchainAddress: toChecksumAddress(c) });
    }),
    scs_getBlockNumber: method([address], (c) => toRpc(at(c).head.header.number)),
    scs_getDappList: dappList,
    scs_getDappAddrList: dappList,
    scs_getDappState: method([address, optional(address)], (c) => at(c).dappState),
    scs_getMicroChainInfo: info,
    scs_getAppChainInfo: info,
    scs_getMicroChainList: chainList,
    scs_getAppChainList: chainList,
    scs_getNonce: method([address, address], async (c, account) => Number(await at(c).nextNonce(account))),
    scs_getSCSId: method([], () => bytesToHex(scs.scsId)),
    scs_getReceiptByHash: receiptByHash,
    scs_getTransactionReceipt: receiptByHash,
    scs_getReceiptByNonce: method([address, address, nonce], async (c, sender, n) =>
      toRpc(scsReceiptResult(await at(c).findTxByNonce(sender, n))),
    ),
    scs_getTransactionByHash: method([address, hash], async (c, h) => toRpc(scsTransactionResult(await at(c).findTx(h)))),
    scs_getTransactionByNonce: method([address, address, nonce], async (c, sender, n) =>
      toRpc(scsTransactionResult(await at(c).findTxByNonce(sender, n))),
    ),
    scs_getExchangeByAddress: method(
      [address, address, index, size, index, size, index, size, index, size],
      async (c, user, i1, c1, i2, c2, i3, c3, i4, c4) =>
        toRpc(await exchangeByAddress(at(c), user, [pageOf(i1, c1), pageOf(i2, c2), pageOf(i3, c3), pageOf(i4, c4)])),
    ),
    scs_getExchangeInfo: method([address, index, size, index, size], (c, i1, c1, i2, c2) =>
      toRpc(exchangeInfo(scs, at(c), pageOf(i1, c1), pageOf(i2, c2))),
    ),
    scs_getTxpool: method([address], async (c) => toRpc(poolShape(await poolOf(at(c))))),
    scs_listening: method([], () => true),
    scs_datadir: method([], () => ctx.datadir),
    scs_protocolVersion: method([], () => SCS_PROTOCOL_VERSION),
    scs_createAppChain: method([objectParam], async (spec) => bytesToHex(await scs.create(spec))),
  };
}

export interface ScsServerOptions {
  host: string;
  port: number;
  corsOrigins: string[];
  vhosts: string[];
  debug: boolean;
  onCall?: (method: string, ms: number, ok: boolean) => void;
  gate?: StartGate;
  fastPath?: boolean;
  fastPathCounts?: FastPathCounts;
}

/**
 * The SCS HTTP endpoint (docs/scs.md#endpoints): `/` serves the `rpc` variant; `/rpc` serves
 * `rpcdebug` and, as the official explorer sends both there, the `scs_*` methods too.
 */
export function createScsServer(ctx: ScsContext, o: ScsServerOptions): HttpRpcServer {
  const plain = new Dispatcher({ methods: buildMethodTable(scsMethods(ctx)), debug: o.debug, onCall: o.onCall, gate: o.gate });
  const both = new Dispatcher({
    methods: buildMethodTable(scsMethods(ctx), scsRpcDebugMethods(ctx)),
    caseInsensitive: true,
    debug: o.debug,
    onCall: o.onCall,
    gate: o.gate,
  });
  return new HttpRpcServer({
    host: o.host,
    port: o.port,
    corsOrigins: o.corsOrigins,
    vhosts: o.vhosts,
    route: (path) => (path === '/' ? plain : path === '/rpc' || path === '/rpc/' ? both : undefined),
    fastPath: o.fastPath,
    fastPathCounts: o.fastPathCounts,
  });
}
