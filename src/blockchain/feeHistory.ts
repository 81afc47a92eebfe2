// mc_feeHistory's numbers: per block, the share of the gas limit used and the gas prices paid at
// given percentiles of the block's gas (weighted by each transaction's gas, cheapest first).
// MOAC has no base fee, so the whole price is the reward.

import type { ChainReader } from './chainHistory.js';

/** The most blocks one request may cover. */
export const MAX_FEE_HISTORY_BLOCKS = 1024;

export interface FeeHistory {
  oldestBlock: bigint;
  gasUsedRatio: number[];
  /** per block, one price per percentile; undefined when no percentiles were asked */
  reward: bigint[][] | undefined;
}

export async function feeHistory(chain: ChainReader, count: number, newest: bigint, percentiles: number[] | undefined): Promise<FeeHistory> {
  const last = newest > chain.head.header.number ? chain.head.header.number : newest;
  const wanted = BigInt(Math.min(count, MAX_FEE_HISTORY_BLOCKS));
  const oldest = last + 1n - wanted < 0n ? 0n : last + 1n - wanted;
  const gasUsedRatio: number[] = [];
  const reward: bigint[][] = [];
  for (let n = oldest; n <= last && count > 0; n++) {
    const block = await chain.getBlockByNumber(n);
    if (!block) break;
    const { gasUsed, gasLimit } = block.header;
    gasUsedRatio.push(gasLimit === 0n ? 0 : Number(gasUsed) / Number(gasLimit));
    if (!percentiles) continue;
    const receipts = (await chain.getReceipts(block.hash)) ?? [];
    const paid = block.transactions
      .map((tx, i) => ({ price: tx.gasPrice, gas: receipts[i]?.gasUsed ?? 0n }))
      .sort((a, b) => (a.price < b.price ? -1 : a.price > b.price ? 1 : 0));
    reward.push(percentiles.map((p) => priceAt(paid, gasUsed, p)));
  }
  return { oldestBlock: oldest, gasUsedRatio, reward: percentiles ? reward : undefined };
}

/** The price of the transaction in which `p` percent of the block's gas is reached. */
function priceAt(paid: { price: bigint; gas: bigint }[], blockGas: bigint, p: number): bigint {
  if (paid.length === 0) return 0n;
  const threshold = (Number(blockGas) * p) / 100;
  let sum = 0;
  for (const tx of paid) {
    sum += Number(tx.gas);
    if (sum >= threshold) return tx.price;
  }
  return paid[paid.length - 1].price;
}
