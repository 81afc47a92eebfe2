import t from 'tap';
import { DEFAULT_GAS_PRICE, GasPrices } from '../../../src/txpool/gasPrices.js';

t.test('the suggested price is the minimum, but at least 20 Gsha', async (t) => {
  const prices = new GasPrices(1_000_000_000n);
  t.equal(prices.minimum(), 1_000_000_000n);
  t.equal(prices.suggested(), DEFAULT_GAS_PRICE);
  prices.setMinimum(30_000_000_000n);
  t.equal(prices.minimum(), 30_000_000_000n);
  t.equal(prices.suggested(), 30_000_000_000n, 'miner_setGasPrice above 20 Gsha raises the suggestion');
});
