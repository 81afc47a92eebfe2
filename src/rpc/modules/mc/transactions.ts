// mc_* methods that send transactions, sign, and run calls.

import type { TxFields } from '../../../chain/types.js';
import { refused } from '../../../errors.js';
import { bytesToHex, encodeQuantity } from '../../../encoding/hex.js';
import type { CallRequest } from '../../../execution/call.js';
import {
  address, blockTag, data, decodeArg, member, method, objectParam, quantity, uint64, withDefault, type Codec,
} from '../../params.js';
import type { RpcMethod } from '../../types.js';
import { resolveState, type McContext } from './context.js';

/** mc_sendTransaction's default gas (interface §2.8). */
export const DEFAULT_SEND_GAS = 90_000n;

/** The transaction / call object of interface §2.8 (plus MOAC's shardingFlag, via, dappAddr). */
export interface TxRequest extends CallRequest {
  nonce?: bigint;
  shardingFlag?: bigint;
  via?: Uint8Array;
  dappAddr?: Uint8Array;
}

export const txRequest: Codec<TxRequest> = (v, i) => {
  const o = objectParam(v, i);
  const input = member(o, 'data', data, i) ?? member(o, 'input', data, i);
  return {
    from: member(o, 'from', address, i),
    to: member(o, 'to', address, i),
    gas: member(o, 'gas', uint64, i),
    gasPrice: member(o, 'gasPrice', quantity, i),
    value: member(o, 'value', quantity, i),
    data: input,
    nonce: member(o, 'nonce', uint64, i),
    shardingFlag: member(o, 'shardingFlag', quantity, i),
    via: member(o, 'via', address, i) ?? member(o, 'Via', address, i),
    dappAddr: member(o, 'dappAddr', address, i),
  };
};

const latest = withDefault(blockTag, 'latest' as const);

export function transactionMethods(ctx: McContext): Record<string, RpcMethod> {
  /** Fills defaults the way the real node does, then signs with the unlocked `from` key. */
  async function fill(req: TxRequest): Promise<TxFields> {
    if (!req.from) throw refused('missing from address');
    let nonce = req.nonce;
    const appChainTx = req.shardingFlag !== undefined && req.shardingFlag !== 0n;
    if (nonce === undefined && appChainTx) {
      if (!req.to) throw refused('an app-chain transaction needs `to` (the app chain address)');
      nonce = await ctx.appChainNonce(req.to, req.from);
    } else if (nonce === undefined) {
      const account = await ctx.world.getAccount(ctx.chain.head.header.stateRoot, req.from);
      nonce = ctx.pool.pendingNonce(req.from, account?.nonce ?? 0n);
    }
    let payload = req.data ?? new Uint8Array();
    if (req.dappAddr) payload = new Uint8Array([...req.dappAddr, ...payload]);
    return {
      nonce,
      syscnt: 0n,
      gasPrice: req.gasPrice ?? ctx.gasPrice(),
      // App-chain transactions pay no gas (design §9); the real tools send 0.
      gas: req.gas ?? (appChainTx ? 0n : DEFAULT_SEND_GAS),
      to: req.to ?? null,
      value: req.value ?? 0n,
      data: payload,
      shardingFlag: req.shardingFlag ?? 0n,
      via: req.via ?? null,
    };
  }

  const send = async (req: TxRequest, key?: Uint8Array) => {
    if (!req.from) throw refused('missing from address');
    if (req.shardingFlag !== undefined && req.shardingFlag >= 4n) throw refused('shardingFlag error');
    const signingKey = key ?? ctx.wallet.keyOf(req.from);
    const tx = ctx.wallet.signTransaction(await fill(req), req.from, signingKey);
    await ctx.submit(tx);
    return bytesToHex(tx.hash);
  };

  return {
    mc_sendTransaction: method([txRequest], (req) => send(req)),
    mc_sendRawTransaction: method([data], async (raw) => {
      const tx = decodeArg(0, () => ctx.decodeRaw(raw));
      await ctx.submit(tx);
      return bytesToHex(tx.hash);
    }),
    mc_sign: method([address, data], (addr, message) => bytesToHex(ctx.wallet.signMessage(addr, message))),
    mc_call: method([txRequest, latest], async (req, tag) => {
      const at = await resolveState(ctx, tag);
      return bytesToHex(await ctx.calls.call(withDefaultFrom(ctx, req), at.header, at.pendingState));
    }),
    mc_estimateGas: method([txRequest, latest], async (req, tag) => {
      const at = await resolveState(ctx, 'pending' === tag ? 'pending' : tag);
      const cap = req.gas ?? (await ctx.pending.get()).header.gasLimit;
      return encodeQuantity(await ctx.calls.estimateGas(withDefaultFrom(ctx, req), at.header, cap, at.pendingState));
    }),
  };
}

/** Calls without `from` run as the first owned account, as the real node does. */
function withDefaultFrom(ctx: McContext, req: TxRequest): CallRequest {
  const from = req.from ?? ctx.wallet.accounts()[0];
  let payload = req.data;
  if (req.dappAddr) payload = new Uint8Array([...req.dappAddr, ...(payload ?? [])]);
  return { from, to: req.to, gas: req.gas, gasPrice: req.gasPrice, value: req.value, data: payload };
}
