// txpool_* (docs/methods.md#transaction-pool): outer keys are checksummed senders, inner
// keys decimal nonces; pool transactions show a null blockNumber and the zero blockHash.

import type { SignedTx } from '../../chain/types.js';
import { toChecksumAddress } from '../../encoding/address.js';
import { encodeQuantity } from '../../encoding/hex.js';
import type { TxPool } from '../../txpool/txPool.js';
import { formatTransaction } from '../format.js';
import { method } from '../params.js';
import type { RpcMethod } from '../types.js';

/** `<to>: <value> sha + <gas> × <gasPrice> gas`, or `contract creation: …`. */
export function inspectSummary(tx: SignedTx): string {
  const to = tx.to ? toChecksumAddress(tx.to) : 'contract creation';
  return `${to}: ${tx.value} sha + ${tx.gas} × ${tx.gasPrice} gas`;
}

function bySender<T>(groups: Map<string, SignedTx[]>, leaf: (tx: SignedTx) => T): Record<string, Record<string, T>> {
  const out: Record<string, Record<string, T>> = {};
  for (const txs of groups.values()) {
    const nonces: Record<string, T> = {};
    for (const tx of txs) nonces[tx.nonce.toString()] = leaf(tx);
    out[toChecksumAddress(txs[0].from)] = nonces;
  }
  return out;
}

export function txpoolMethods(pool: TxPool): Record<string, RpcMethod> {
  return {
    txpool_content: method([], () => {
      const { pending, queued } = pool.content();
      const leaf = (tx: SignedTx) => formatTransaction(tx, undefined, true);
      return { pending: bySender(pending, leaf), queued: bySender(queued, leaf) };
    }),
    txpool_inspect: method([], () => {
      const { pending, queued } = pool.content();
      return { pending: bySender(pending, inspectSummary), queued: bySender(queued, inspectSummary) };
    }),
    txpool_status: method([], () => {
      const { pending, queued } = pool.counts();
      return { pending: encodeQuantity(BigInt(pending)), queued: encodeQuantity(BigInt(queued)) };
    }),
  };
}
