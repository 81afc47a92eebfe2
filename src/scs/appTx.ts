// What an app-chain transaction (shardingFlag 1–3, docs/scs.md#transactions) asks for: a deploy
// (flag 3, data = code), a Dapp call (flag 1, data = 20-byte Dapp address ‖ call data) or a
// token transfer (flag 2, data = 20-byte recipient).

import type { SignedTx } from '../chain/types.js';
import { txRejected } from '../errors.js';

export const ShardingFlag = { DirectCall: 1n, DirectTransfer: 2n, DappCreate: 3n } as const;

export interface AppTxTarget {
  kind: 'deploy' | 'call' | 'transfer';
  /** undefined for a deploy */
  to: Uint8Array | undefined;
  data: Uint8Array;
}

/** Reads the target of a well-formed app-chain transaction (see checkAppTx). */
export function appTxTarget(tx: SignedTx): AppTxTarget {
  switch (tx.shardingFlag) {
    case ShardingFlag.DappCreate:
      return { kind: 'deploy', to: undefined, data: tx.data };
    case ShardingFlag.DirectCall:
      return { kind: 'call', to: tx.data.subarray(0, 20), data: tx.data.subarray(20) };
    default:
      return { kind: 'transfer', to: tx.data.subarray(0, 20), data: new Uint8Array() };
  }
}

/** Refuses what no app chain can run, with the reason. */
export function checkAppTx(tx: SignedTx): void {
  if (tx.shardingFlag < 1n || tx.shardingFlag > 3n) throw txRejected('shardingFlag error');
  if (tx.to === null) throw txRejected('app-chain transaction without `to` (the app chain address)');
  if (tx.shardingFlag === ShardingFlag.DappCreate && tx.data.length === 0) throw txRejected('Dapp deploy without code');
  if (tx.shardingFlag === ShardingFlag.DirectCall && tx.data.length < 20) {
    throw txRejected('app-chain call: data must start with the 20-byte Dapp address');
  }
  if (tx.shardingFlag === ShardingFlag.DirectTransfer && tx.data.length < 20) {
    throw txRejected('app-chain transfer: data must be the 20-byte recipient address');
  }
}
