import t from 'tap';
import { blockReward, ethereumTxGas, intrinsicGas, nextGasLimit } from '../../../src/execution/gas.js';
import { commonFor } from '../../../src/node/chainCore.js';

const MC = 10n ** 18n;

t.test('MOAC intrinsic gas', async (t) => {
  t.equal(intrinsicGas(new Uint8Array(), false), 1000n);
  t.equal(intrinsicGas(new Uint8Array(), true), 53_000n);
  t.equal(intrinsicGas(Uint8Array.of(0, 1, 0, 2), false), 1000n + 2n * 4n + 2n * 68n);
});

t.test('Ethereum intrinsic gas by hardfork (the conformance runner\'s table)', async (t) => {
  const data = Uint8Array.of(0, 1, 0, 2);
  const gas = (fork: Parameters<typeof commonFor>[1], creation: boolean) => intrinsicGas(data, creation, ethereumTxGas(commonFor(1n, fork)));
  t.equal(gas('chainstart', false), 21_000n + 8n + 136n);
  t.equal(gas('chainstart', true), 21_000n + 8n + 136n, 'a creation costs no more before Homestead');
  t.equal(gas('homestead', true), 53_000n + 8n + 136n, 'EIP-2');
  t.equal(gas('petersburg', false), 21_000n + 8n + 136n);
  t.equal(gas('istanbul', false), 21_000n + 8n + 32n, 'EIP-2028: 16 per non-zero byte');
});

t.test('reward halving schedule', async (t) => {
  t.equal(blockReward(1n), 2n * MC);
  t.equal(blockReward(12_500_000n), 2n * MC);
  t.equal(blockReward(12_500_001n), MC);
  t.equal(blockReward(25_000_001n), MC / 2n);
  t.equal(blockReward(37_500_001n), MC / 4n);
  t.equal(blockReward(50_000_001n), MC / 8n);
  t.equal(blockReward(62_500_001n), MC / 10n);
  t.equal(blockReward(100_000_000n), MC / 10n);
});

t.test('gas limit moves toward the target by at most 1/1024', async (t) => {
  t.equal(nextGasLimit(9_000_000n, 9_000_000n), 9_000_000n);
  t.equal(nextGasLimit(9_000_000n, 18_000_000n), 9_000_000n + 9_000_000n / 1024n - 1n);
  t.equal(nextGasLimit(9_000_000n, 5_000_000n), 9_000_000n - 9_000_000n / 1024n + 1n);
  t.equal(nextGasLimit(9_000_000n, 9_000_100n), 9_000_100n, 'reaches a close target exactly');
});
