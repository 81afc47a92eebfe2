// miner_*: switch local mining at run time (the real node's console `miner` object).

import { MINING_MODES, type Miner, type MiningMode } from '../../miner/miner.js';
import { ParamError, address, count, method, optional, quantity, string } from '../params.js';
import type { RpcMethod } from '../types.js';

export interface MinerControl {
  miner: Miner;
  /** the local mode miner_start returns to (the configured one, or instant) */
  localMode: MiningMode;
  setThreads: (threads: number) => void;
  setGasPrice: (price: bigint) => void;
}

const MAX_EXTRA = 32;
/** Most worker threads miner_start may ask for: each is a V8 isolate, and a huge count exhausts memory. */
export const MAX_RPC_MINER_THREADS = 64;

export function minerMethods(ctl: MinerControl): Record<string, RpcMethod> {
  return {
    miner_start: method([optional(count)], async (threads) => {
      if (threads !== undefined && threads > MAX_RPC_MINER_THREADS) {
        throw new ParamError(0, `at most ${MAX_RPC_MINER_THREADS} threads`);
      }
      if (threads !== undefined && threads > 0) ctl.setThreads(threads);
      await ctl.miner.setMode(ctl.localMode);
      return true;
    }),
    miner_stop: method([], async () => {
      await ctl.miner.setMode('off');
      return true;
    }),
    miner_setMoacbase: method([address], (addr) => {
      ctl.miner.coinbase = addr;
      return true;
    }),
    miner_setGasPrice: method([quantity], (price) => {
      ctl.setGasPrice(price);
      return true;
    }),
    miner_setExtra: method([string], (extra) => {
      const bytes = new TextEncoder().encode(extra);
      if (bytes.length > MAX_EXTRA) throw new ParamError(0, `extra data is ${bytes.length} bytes, at most ${MAX_EXTRA}`);
      ctl.miner.extraData = bytes;
      return true;
    }),
    // An emulator extension: any mining mode at run time (instant, interval, mixed, remote, off).
    miner_setMode: method([string], async (mode) => {
      if (!(MINING_MODES as readonly string[]).includes(mode)) {
        throw new ParamError(0, `unknown mining mode "${mode}" (want ${MINING_MODES.join(', ')})`);
      }
      await ctl.miner.setMode(mode as MiningMode);
      return true;
    }),
  };
}
