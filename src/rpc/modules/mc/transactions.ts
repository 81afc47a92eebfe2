// mc_* methods that send transactions, sign, and run calls.

import { payloadOf, type TxRequest } from '../../../accounts/signer.js';
import { bytesToHex, encodeQuantity } from '../../../encoding/hex.js';
import { invalidTransaction } from '../../../errors.js';
import type { CallRequest } from '../../../execution/call.js';
import {
  address, blockTag, data, decodeArg, member, method, objectParam, quantity, uint64, withDefault, type Codec,
} from '../../params.js';
import type { RpcMethod } from '../../types.js';
import { resolveState, type McContext } from './context.js';

/** The transaction / call object (docs/methods.md#sending-transactions; MOAC adds shardingFlag, via, dappAddr). */
export const txRequest: Codec<TxRequest> = (v, i) => {
  const o = objectParam(v, i);
  const input = member(o, 'data', data, i) ?? member(o, 'input', data, i);
  ethereumMembers(o, i);
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

/**
 * Members Ethereum libraries add to a request: legacy `type` (0, or 1 with an empty access
 * list), `chainId`, an empty `accessList`. They change nothing here; anything else is refused.
 */
function ethereumMembers(o: Record<string, unknown>, i: number): void {
  const type = member(o, 'type', quantity, i);
  if (type !== undefined && type > 1n) throw invalidTransaction('transaction type not supported');
  member(o, 'chainId', quantity, i);
  const list = o.accessList;
  if (list != null && !(Array.isArray(list) && list.length === 0)) throw invalidTransaction('transaction type not supported: access lists are not accepted');
}

const latest = withDefault(blockTag, 'latest' as const);

export function transactionMethods(ctx: McContext): Record<string, RpcMethod> {
  return {
    mc_sendTransaction: method([txRequest], async (req) => {
      // An impersonated account sends without a key: sealed at once as a system transaction.
      if (req.from && ctx.impersonation?.isImpersonated(req.from)) {
        return bytesToHex((await ctx.impersonation.sendImpersonated(req.from, await ctx.signer.fill(req))).hash);
      }
      const tx = await ctx.signer.sign(req);
      await ctx.submitter.submit(tx);
      return bytesToHex(tx.hash);
    }),
    mc_sendRawTransaction: method([data], async (raw) => {
      const tx = decodeArg(0, () => ctx.decodeRaw(raw));
      await ctx.submitter.submit(tx);
      return bytesToHex(tx.hash);
    }),
    mc_sign: method([address, data], (addr, message) => bytesToHex(ctx.wallet.signMessage(addr, message))),
    mc_call: method([txRequest, latest], async (req, tag) => {
      const at = tag === 'latest' ? { header: ctx.chain.head.header } : await resolveState(ctx, tag);
      return bytesToHex(await ctx.calls.call(withDefaultFrom(ctx, req), at));
    }),
    mc_estimateGas: method([txRequest, latest], async (req, tag) => {
      const at = await resolveState(ctx, 'pending' === tag ? 'pending' : tag);
      const cap = req.gas ?? (await ctx.pending.get()).header.gasLimit;
      return encodeQuantity(await ctx.calls.estimateGas(withDefaultFrom(ctx, req), at, cap));
    }),
  };
}

/** Calls without `from` run as the first owned account, as the real node does. */
function withDefaultFrom(ctx: McContext, req: TxRequest): CallRequest {
  const from = req.from ?? ctx.wallet.firstAccount();
  return { from, to: req.to, gas: req.gas, gasPrice: req.gasPrice, value: req.value, data: payloadOf(req) };
}
