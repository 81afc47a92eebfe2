// mc_* methods that send transactions, sign, and run calls.

import type { TxRequest } from '../../../accounts/signer.js';
import { bytesToHex, encodeQuantity } from '../../../encoding/hex.js';
import { invalidTransaction } from '../../../errors.js';
import {
  address, blockTag, data, decodeArg, member, method, objectParam, quantity, uint64, withDefault, type Codec,
} from '../../params.js';
import type { RpcMethod } from '../../types.js';
import type { McBackend } from '../../backend.js';

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

export function transactionMethods(backend: McBackend): Record<string, RpcMethod> {
  return {
    mc_sendTransaction: method([txRequest], async (req) => bytesToHex((await backend.sendTransaction(req)).hash)),
    mc_sendRawTransaction: method([data], async (raw) => {
      const tx = decodeArg(0, () => backend.decodeRawTransaction(raw));
      await backend.submit(tx);
      return bytesToHex(tx.hash);
    }),
    mc_sign: method([address, data], (addr, message) => bytesToHex(backend.signMessage(addr, message))),
    mc_call: method([txRequest, latest], async (req, tag) => bytesToHex(await backend.call(req, tag))),
    mc_estimateGas: method([txRequest, latest], async (req, tag) => encodeQuantity(await backend.estimateGas(req, tag))),
  };
}
