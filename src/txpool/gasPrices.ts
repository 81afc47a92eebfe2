// The gas-price policy: the minimum the pool accepts (--gasprice, moved by miner_setGasPrice)
// and the price suggested to senders (mc_gasPrice, the default of mc_sendTransaction).

/** The suggested price when the minimum accepted price is below it: 20 Gsha, as the real node. */
export const DEFAULT_GAS_PRICE = 20_000_000_000n;

export class GasPrices {
  constructor(private min: bigint) {}

  /** The lowest price the pool accepts. */
  minimum(): bigint {
    return this.min;
  }

  setMinimum(price: bigint): void {
    this.min = price;
  }

  /** What senders are told to pay: the minimum, but at least 20 Gsha. */
  suggested(): bigint {
    return this.min > DEFAULT_GAS_PRICE ? this.min : DEFAULT_GAS_PRICE;
  }
}
