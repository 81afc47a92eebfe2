// Admission checks that need nothing but the transaction and the pool's settings, with geth's
// words for each refusal (pool refusals are -32000 with geth's message; docs/methods.md#sending-transactions).

import type { SignedTx } from '../chain/types.js';
import { txRejected } from '../errors.js';
import { intrinsicGas } from '../execution/gas.js';

/** geth's txMaxSize: bigger transactions are refused before anything else is looked at. */
export const MAX_TX_SIZE = 128 * 1024;

export interface StaticLimits {
  minGasPrice: bigint;
  blockGasLimit: bigint;
}

export function checkStatic(tx: SignedTx, limits: StaticLimits): void {
  if (tx.raw.length > MAX_TX_SIZE) throw txRejected('oversized data');
  if (tx.gas > limits.blockGasLimit) throw txRejected('exceeds block gas limit');
  if (tx.gas < intrinsicGas(tx.data, tx.to === null)) throw txRejected('intrinsic gas too low');
  if (tx.gasPrice < limits.minGasPrice) throw txRejected('transaction underpriced');
}

/** The most a transaction can take from its sender's balance. */
export const txCost = (tx: SignedTx): bigint => tx.gas * tx.gasPrice + tx.value;

export function checkAccount(tx: SignedTx, nonce: bigint, balance: bigint): void {
  if (tx.nonce < nonce) throw txRejected('nonce too low');
  if (balance < txCost(tx)) throw txRejected('insufficient funds for gas * price + value');
}

/** A replacement must pay at least `bump` percent more (and strictly more) than the original. */
export function checkReplacement(existing: SignedTx, tx: SignedTx, bump: bigint): void {
  const threshold = existing.gasPrice + (existing.gasPrice * bump) / 100n;
  if (tx.gasPrice < threshold || tx.gasPrice <= existing.gasPrice) throw txRejected('replacement transaction underpriced');
}
