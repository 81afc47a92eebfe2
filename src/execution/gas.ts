// MOAC's gas numbers (docs/chain-rules.md#blocks-transactions-gas).

import type { Common } from '@ethereumjs/common';

export const TX_GAS = 1000n;
export const TX_GAS_CONTRACT_CREATION = 53_000n;
export const TX_DATA_ZERO_GAS = 4n;
export const TX_DATA_NONZERO_GAS = 68n;
/** The lowest block gas limit (geth's MinGasLimit): import refuses less, evm_setBlockGasLimit too. */
export const MIN_GAS_LIMIT = 5000n;

/**
 * What a transaction pays before its first instruction. MOAC's chain uses its own base for a call
 * (`MOAC_TX_GAS`); the Ethereum state tests (tools/conformance/) run the same executor with
 * Ethereum's (`ethereumTxGas`), so the two differ only in this table.
 */
export interface TxGasRules {
  readonly call: bigint;
  readonly creation: bigint;
  readonly dataZero: bigint;
  readonly dataNonZero: bigint;
}

export const MOAC_TX_GAS: TxGasRules = {
  call: TX_GAS, creation: TX_GAS_CONTRACT_CREATION, dataZero: TX_DATA_ZERO_GAS, dataNonZero: TX_DATA_NONZERO_GAS,
};

/**
 * Ethereum's intrinsic gas under `common`'s hardfork: 21,000 a transaction, 32,000 more for a
 * creation from Homestead (EIP-2), 16 per non-zero data byte from Istanbul (EIP-2028).
 */
export function ethereumTxGas(common: Pick<Common, 'gteHardfork'>): TxGasRules {
  return {
    call: 21_000n,
    creation: common.gteHardfork('homestead') ? 53_000n : 21_000n,
    dataZero: 4n,
    dataNonZero: common.gteHardfork('istanbul') ? 16n : 68n,
  };
}

export function intrinsicGas(data: Uint8Array, isCreation: boolean, rules: TxGasRules = MOAC_TX_GAS): bigint {
  let nonZero = 0;
  for (let i = 0; i < data.length; i++) if (data[i] !== 0) nonZero++;
  // In a Number (exact: data is at most megabytes), one BigInt at the end.
  const gas = Number(isCreation ? rules.creation : rules.call) +
    nonZero * Number(rules.dataNonZero) + (data.length - nonZero) * Number(rules.dataZero);
  return BigInt(gas);
}

/** MOAC's reward schedule: 2 mc, halving every 12.5 M blocks down to 0.125, then 0.1 mc. */
export function blockReward(number: bigint): bigint {
  const mc = 10n ** 18n;
  const era = number === 0n ? 0n : (number - 1n) / 12_500_000n;
  if (era >= 5n) return mc / 10n;
  return (2n * mc) >> era;
}

/** Gas limit of a child block: moves toward the target by at most parent/1024 (minus one). */
export function nextGasLimit(parentLimit: bigint, target: bigint): bigint {
  const step = parentLimit / 1024n - 1n;
  if (parentLimit < target) return parentLimit + step < target ? parentLimit + step : target;
  if (parentLimit > target) return parentLimit - step > target ? parentLimit - step : target;
  return parentLimit;
}
