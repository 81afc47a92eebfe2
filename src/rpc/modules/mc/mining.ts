// Proof-of-work methods: mc_getWork / mc_submitWork for remote miners, hash rates.

import { bytesToHex, encodeQuantity } from '../../../encoding/hex.js';
import type { WorkPackages } from '../../../miner/workPackages.js';
import { data, decodeArg, hash, method, quantity, type Codec } from '../../params.js';
import { decodeData } from '../../../encoding/hex.js';
import type { RpcMethod } from '../../types.js';

export interface MiningContext {
  work: WorkPackages;
  /** hashes/s measured by the local workers */
  localHashrate: () => number;
}

const nonce8: Codec<Uint8Array> = (v, i) => decodeArg(i, () => decodeData(v, 8));

export function miningMethods(ctx: MiningContext): Record<string, RpcMethod> {
  return {
    // A failure to build the package is a bug or a closing database, reported as such (not as "no work").
    mc_getWork: method([], async () => {
      const work = await ctx.work.getWork();
      return [bytesToHex(work.sealHash), bytesToHex(work.seedHash), bytesToHex(work.target)];
    }),
    mc_submitWork: method([nonce8, hash, hash], (nonce, sealHash, mix) => ctx.work.submitWork(nonce, sealHash, mix)),
    mc_submitHashrate: method([quantity, data], (rate, id) => {
      ctx.work.submitHashrate(rate, id);
      return true;
    }),
    mc_hashrate: method([], () => encodeQuantity(BigInt(Math.round(ctx.localHashrate())) + ctx.work.remoteHashrate())),
  };
}
