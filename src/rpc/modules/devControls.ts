// Developer controls under three names (evm_*, anvil_*, hardhat_*), so that Hardhat's network
// helpers and viem's test client in either mode work. Served only on chains whose genesis has
// `config.devControls: true` (README "Developer controls").

import type { DevMining } from '../../miner/devMining.js';
import type { DevSnapshots } from '../../miner/devSnapshots.js';
import { encodeQuantity } from '../../encoding/hex.js';
import { invalidParams } from '../../errors.js';
import { boolean, count, method, optional, quantity, uint64, type Codec } from '../params.js';
import type { RpcMethod } from '../types.js';

export const DEV_NAMESPACES = ['evm', 'anvil', 'hardhat'] as const;

/** Seconds or a timestamp: a JSON integer or a QUANTITY. */
const seconds: Codec<bigint> = (v, i) => {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0) throw invalidParams(`invalid argument ${i}: expected a non-negative integer`);
    return BigInt(v);
  }
  return BigInt(count(v, i));
};

export interface DevControls {
  mining: DevMining;
  snapshots: DevSnapshots;
}

/** Methods served under every one of the three names. */
function shared(dev: DevControls): Record<string, RpcMethod> {
  const { mining, snapshots } = dev;
  return {
    snapshot: method([], async () => encodeQuantity(await snapshots.take())),
    revert: method([quantity], (id) => snapshots.revert(id)),
    mine: method([optional(seconds), optional(seconds)], async (blocks, interval) => {
      await mining.mineMany(blocks ?? 1n, interval);
      return null;
    }),
    setAutomine: method([boolean], (on) => {
      mining.setAutomine(on);
      return true;
    }),
    getAutomine: method([], () => mining.automine),
    setIntervalMining: method([count], (ms) => {
      mining.setIntervalMining(ms);
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
  // debug_setHead moves the head back like a revert; served only where the controls are.
  out.debug_setHead = method([uint64], async (number) => {
    await dev.snapshots.setHead(number);
    return null;
  });
  return out;
}
