// Developer controls under three names (evm_*, anvil_*, hardhat_*), so that Hardhat's network
// helpers and viem's test client in either mode work. Served only on chains whose genesis has
// `config.devControls: true` (docs/developer-controls.md).

import { MAX_MINE_COUNT, type DevMining } from '../../devControls/devMining.js';
import type { DevSnapshots } from '../../devControls/devSnapshots.js';
import type { DevState } from '../../devControls/devState.js';
import { bytesToBigint } from '../../encoding/bytes.js';
import { bytesToHex, encodeQuantity } from '../../encoding/hex.js';
import { invalidTransaction, wrongState } from '../../errors.js';
import { DEFAULT_SEND_GAS } from '../../accounts/signer.js';
import { txRequest } from './mc/transactions.js';
import { ParamError, address, boolean, count, data, hash, method, optional, quantity, uint64, type Codec } from '../params.js';
import type { RpcMethod } from '../types.js';

export const DEV_NAMESPACES = ['evm', 'anvil', 'hardhat'] as const;

const MAX_INTERVAL_MS = 2 ** 31 - 1;

/** Seconds or a timestamp: a JSON integer or a QUANTITY. */
const seconds: Codec<bigint> = (v, i) => {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0) throw new ParamError(i, `expected a non-negative integer`);
    return BigInt(v);
  }
  return BigInt(count(v, i));
};

/** A block count for anvil_mine / hardhat_mine: at most MAX_MINE_COUNT per call. */
const blockCount: Codec<bigint> = (v, i) => {
  const n = seconds(v, i);
  if (n > BigInt(MAX_MINE_COUNT)) throw new ParamError(i, `at most ${MAX_MINE_COUNT} blocks per call`);
  return n;
};

export interface DevControls {
  mining: DevMining;
  snapshots: DevSnapshots;
  state: DevState;
  /** the default gas price of a sent transaction */
  gasPrice: () => bigint;
}

/** A storage slot: a QUANTITY or a 32-byte word (leading zeros allowed, as Hardhat sends them). */
const slot: Codec<bigint> = (v, i) => quantity(typeof v === 'string' ? v.replace(/^0x0+(?=[0-9a-f])/i, '0x') : v, i);

/** A storage value: a 32-byte word (Hardhat, viem) or a QUANTITY. */
const storageValue: Codec<bigint> = (v, i) => {
  const bytes = data(v, i);
  if (bytes.length > 32) throw new ParamError(i, `a storage value has at most 32 bytes`);
  return bytesToBigint(bytes);
};

/** Methods served under every one of the three names. */
function shared(dev: DevControls): Record<string, RpcMethod> {
  const { mining, snapshots, state } = dev;
  const setter = async (s: Parameters<DevState['set']>[0]) => {
    await state.set(s);
    return true;
  };
  return {
    setBalance: method([address, quantity], (a, value) => setter({ op: 'setBalance', address: a, value })),
    setCode: method([address, data], (a, code) => setter({ op: 'setCode', address: a, code })),
    setNonce: method([address, uint64], (a, nonce) => setter({ op: 'setNonce', address: a, nonce })),
    setStorageAt: method([address, slot, storageValue], (a, s, value) => setter({ op: 'setStorageAt', address: a, slot: s, value })),
    setCoinbase: method([address], (a) => setter({ op: 'setCoinbase', address: a })),
    impersonateAccount: method([address], async (a) => {
      await state.impersonate(a);
      return true;
    }),
    stopImpersonatingAccount: method([address], async (a) => {
      await state.stopImpersonating(a);
      return true;
    }),
    dropTransaction: method([hash], (h) => state.dropTransaction(h)),
    snapshot: method([], async () => encodeQuantity(await snapshots.take())),
    revert: method([uint64], (id) => snapshots.revert(id)),
    mine: method([optional(blockCount), optional(seconds)], async (blocks, interval) => {
      await mining.mineMany(blocks ?? 1n, interval);
      return null;
    }),
    setAutomine: method([boolean], async (on) => {
      await mining.setAutomine(on);
      return true;
    }),
    getAutomine: method([], () => mining.automine),
    setIntervalMining: method([count], async (ms) => {
      // Node's timers hold at most 2^31 - 1 ms; a longer one would fire at once.
      if (ms > MAX_INTERVAL_MS) throw new ParamError(0, `at most ${MAX_INTERVAL_MS} ms`);
      await mining.setIntervalMining(ms);
      return true;
    }),
    increaseTime: method([seconds], async (s) => encodeQuantity(await mining.increaseTime(s))),
    setNextBlockTimestamp: method([seconds], async (t) => {
      await mining.setNextBlockTimestamp(t);
      return true;
    }),
  };
}

export function devControlMethods(dev: DevControls): Record<string, RpcMethod> {
  const out: Record<string, RpcMethod> = {};
  const common = shared(dev);
  for (const ns of DEV_NAMESPACES) for (const [name, m] of Object.entries(common)) out[`${ns}_${name}`] = m;
  // evm_mine takes an optional timestamp, not a count (Ganache and Hardhat's form).
  out.evm_mine = method([optional(seconds)], async (timestamp) => {
    await dev.mining.mine(timestamp);
    return '0x0';
  });
  // Anvil's eth_sendUnsignedTransaction: a send from an impersonated account (no key, no signature).
  out.mc_sendUnsignedTransaction = method([txRequest], async (req) => {
    if (!req.from) throw invalidTransaction('missing from address');
    if (!dev.state.isImpersonated(req.from)) throw wrongState(`${bytesToHex(req.from)} is not impersonated (call anvil_impersonateAccount first)`);
    const tx = await dev.state.sendImpersonated(req.from, {
      nonce: 0n, syscnt: 0n, gasPrice: req.gasPrice ?? dev.gasPrice(), gas: req.gas ?? DEFAULT_SEND_GAS, to: req.to ?? null,
      value: req.value ?? 0n, data: req.data ?? new Uint8Array(), shardingFlag: 0n, via: null,
    });
    return bytesToHex(tx.hash);
  });
  // debug_setHead moves the head back like a revert; served only where the controls are.
  out.debug_setHead = method([uint64], async (number) => {
    await dev.snapshots.setHead(number);
    return null;
  });
  return out;
}
