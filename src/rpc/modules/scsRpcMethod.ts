// ScsRPCMethod.* (docs/scs.md: the SCS `rpcdebug` variant on `/rpc`): one object of named
// params, names matched case-insensitively; results with integers as exact JSON numbers.
// Shapes the sources do not show are ours (docs/scs.md): GetBlock/GetBlocks `{Hash, Header, Txs}`,
// GetTxpool like scs_getTxpool, GetTxpoolCount `{pending, queued}`, GetDappState 0 or 1.

import { DecodeError, executionFailed, invalidParams, notFound } from '../../errors.js';
import { bytesToHex, decodeAddress, decodeData, decodeHash, decodeQuantity } from '../../encoding/hex.js';
import { ParamError, decodeArg, integer as paramInteger } from '../params.js';
import { AbiError, decodeAbi, encodeAbi, findFunction, type AbiType, type AbiValue } from '../../scs/abi.js';
import { concatBytes } from '../../encoding/bytes.js';
import { RawJson, exactJson } from '../rawJson.js';
import type { RpcMethod, RpcParams } from '../types.js';
import type { AppChain } from '../../scs/appChain.js';
import {
  blockAt, blockList, directCall, exchangeByAddress, exchangeInfo, infoOf, poolOf, type ScsContext,
} from './scsQueries.js';
import { debugBlock, poolShape, scsReceiptResult, scsTransactionResult, type Shape } from './scsFormat.js';

type Named<T> = (value: unknown, name: string) => T;
type Args = { get<T>(name: string, codec: Named<T>): T; opt<T>(name: string, codec: Named<T>, fallback: T): T };

const address: Named<Uint8Array> = (v, n) => decodeArg(n, () => decodeAddress(v));
const hash: Named<Uint8Array> = (v, n) => decodeArg(n, () => decodeHash(v));
/** An integer as a JSON number or a QUANTITY string. */
const integer: Named<bigint> = paramInteger;
const small: Named<number> = (v, n) => Number(integer(v, n));
const list: Named<unknown[]> = (v, n) => {
  if (!Array.isArray(v)) throw new ParamError(n, `expected an array`);
  return v;
};

/** Reads members by name, ignoring case; a missing required member is named in the error. */
function argsOf(params: RpcParams): Args {
  const members = new Map<string, unknown>();
  if (!Array.isArray(params)) {
    for (const [key, value] of Object.entries(params)) members.set(key.toLowerCase(), value);
  } else if (params.length > 0) {
    throw invalidParams('invalid params: ScsRPCMethod takes one object of named members');
  }
  const value = (name: string) => members.get(name.toLowerCase());
  return {
    get(name, codec) {
      const v = value(name);
      if (v === undefined || v === null) throw invalidParams(`missing value for required argument ${name}`);
      return codec(v, name);
    },
    opt(name, codec, fallback) {
      const v = value(name);
      return v === undefined || v === null ? fallback : codec(v, name);
    },
  };
}

/** A handler over named args whose result is written with exact numbers. */
const named = (handler: (a: Args) => Shape | Promise<Shape>): RpcMethod => ({
  handler: async (params) => new RawJson(exactJson(await handler(argsOf(params)))),
});

export function scsRpcDebugMethods(ctx: ScsContext): Record<string, RpcMethod> {
  const { scs } = ctx;
  const chainOf = (a: Args) => scs.chain(a.get('SubChainAddr', address));
  const page = (a: Args, indexName: string, sizeName: string) => ({ index: a.opt(indexName, small, 0), count: a.opt(sizeName, small, 20) });

  const methods: Record<string, RpcMethod> = {
    GetScsId: named(() => bytesToHex(scs.scsId)),
    GetNonce: named(async (a) => Number(await chainOf(a).nextNonce(a.get('Sender', address)))),
    GetBalance: named((a) => chainOf(a).balanceOf(a.get('Sender', address))),
    GetBlockNumber: named((a) => Number(chainOf(a).head.header.number)),
    GetBlock: named(async (a) => {
      const block = await blockAt(chainOf(a), a.get('number', integer));
      return block ? debugBlock(block) : null;
    }),
    GetBlocks: named(async (a) => (await blockList(chainOf(a), a.get('Start', integer), a.get('End', integer), debugBlock)).blocks),
    GetSubChainInfo: named((a) => infoOf(chainOf(a), true)),
    GetTxpool: named(async (a) => poolShape(await poolOf(chainOf(a)))),
    GetTxpoolCount: named(async (a) => {
      const content = await poolOf(chainOf(a));
      const total = (m: Map<string, unknown[]>) => [...m.values()].reduce((n, txs) => n + txs.length, 0);
      return { pending: total(content.pending), queued: total(content.queued) };
    }),
    GetDappState: named((a) => chainOf(a).dappState),
    GetDappAddrList: named((a) => chainOf(a).dapps.map((d) => bytesToHex(d.address))),
    GetExchangeInfo: named((a) =>
      exchangeInfo(scs, chainOf(a), page(a, 'EnteringRecordIndex', 'EnteringRecordSize'), page(a, 'RedeemingRecordIndex', 'RedeemingRecordSize')),
    ),
    GetExchangeByAddress: named((a) =>
      exchangeByAddress(chainOf(a), a.get('Sender', address), [
        page(a, 'EnterRecordIndex', 'EnterRecordSize'),
        page(a, 'EnteringRecordIndex', 'EnteringRecordSize'),
        page(a, 'RedeemRecordIndex', 'RedeemRecordSize'),
        page(a, 'RedeemingRecordIndex', 'RedeemingRecordSize'),
      ]),
    ),
    GetTransactionByNonce: named(async (a) =>
      scsTransactionResult(await chainOf(a).findTxByNonce(a.get('Sender', address), a.get('Nonce', integer))),
    ),
    GetTransactionByHash: named(async (a) => scsTransactionResult(await chainOf(a).findTx(a.get('Hash', hash)))),
    GetReceiptByNonce: named(async (a) =>
      scsReceiptResult(await chainOf(a).findTxByNonce(a.get('Sender', address), a.get('Nonce', integer))),
    ),
    GetReceiptByHash: named(async (a) => scsReceiptResult(await chainOf(a).findTx(a.get('Hash', hash)))),
    AnyCall: named((a) =>
      anyCall(chainOf(a), a.get('DappAddr', address), a.opt('Sender', address, undefined), a.get('Params', list)),
    ),
  };
  return Object.fromEntries(Object.entries(methods).map(([name, m]) => [`ScsRPCMethod.${name}`, m]));
}

/** Calls a registered Dapp's function by name with JSON arguments; decodes what it returns. */
async function anyCall(chain: AppChain, dapp: Uint8Array, sender: Uint8Array | undefined, params: unknown[]): Promise<Shape> {
  const [fn, ...args] = params;
  if (typeof fn !== 'string') throw new ParamError('Params', 'the first element must be the function name');
  const entry = chain.registeredDapp(dapp);
  if (!entry) throw notFound(`Dapp ${bytesToHex(dapp)} is not registered in the DappBase of app chain ${chain.key}`);
  // An AbiError here is a bad Params member: toRpcError says so.
  const abi = findFunction(entry.abi, fn, args.length);
  const values = args.map((arg, i) => fromJson(abi.inputs[i], arg));
  const input = concatBytes(abi.selector, encodeAbi(abi.inputs, values));
  const output = await directCall(chain, sender, dapp, input);
  let decoded: AbiValue[];
  try {
    decoded = decodeAbi(abi.outputs, output);
  } catch (err) {
    throw executionFailed(`cannot decode the output of ${fn}: ${(err as Error).message}`);
  }
  if (decoded.length === 0) return null;
  return decoded.length === 1 ? toJson(decoded[0]) : decoded.map(toJson);
}

/** A JSON argument as the ABI type wants it: integers from numbers or decimal/hex strings, bytes from hex. */
function fromJson(t: AbiType, v: unknown): AbiValue {
  const hex = <T>(decode: () => T): T => {
    try {
      return decode();
    } catch (err) {
      if (err instanceof DecodeError) throw new AbiError(`${t.name}: ${err.reason}`);
      throw err;
    }
  };
  switch (t.kind) {
    case 'uint':
    case 'int':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
      if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
      if (typeof v === 'string') return hex(() => decodeQuantity(v));
      throw new AbiError(`${t.name}: expected an integer (number, decimal or hex string)`);
    case 'bool':
      if (typeof v === 'boolean') return v;
      if (v === 'true' || v === 'false') return v === 'true';
      throw new AbiError('bool: expected true or false');
    case 'address':
      return hex(() => decodeAddress(v));
    case 'fixedBytes':
    case 'bytes':
      return hex(() => decodeData(v));
    case 'string':
      if (typeof v !== 'string') throw new AbiError('string: expected a string');
      return v;
    case 'array':
      if (!Array.isArray(v)) throw new AbiError(`${t.name}: expected an array`);
      return v.map((item) => fromJson(t.item, item));
  }
}

/** Outputs: integers as decimal strings, addresses and bytes as 0x hex. */
function toJson(v: AbiValue): Shape {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return bytesToHex(v);
  if (Array.isArray(v)) return v.map(toJson);
  return v;
}
