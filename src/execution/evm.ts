// The EVM setup shared by block building, calls and app chains: one factory, so that the main
// chain and app chains run code under the same rules.

import type { EVM } from '@ethereumjs/evm';
import type { Common, StateManagerInterface } from '@ethereumjs/common';
import { ChainEvm } from './chainEvm.js';

/** Where BLOCKHASH looks (the main chain, or an app chain's own blocks). */
export interface BlockHashSource {
  getBlockByNumber(number: bigint): Promise<{ hash: Uint8Array } | undefined>;
}

export async function createChainEvm(common: Common, sm: StateManagerInterface, chain: BlockHashSource): Promise<EVM> {
  return new ChainEvm({
    // Each EVM subscribes to its Common's `hardforkChanged` event and never unsubscribes: on the
    // shared Common every EVM ever made (one per block and per call state) would stay reachable.
    common: common.copy(),
    stateManager: sm,
    blockchain: {
      async getBlock(number: number) {
        const block = await chain.getBlockByNumber(BigInt(number));
        return { hash: () => block?.hash ?? new Uint8Array(32) };
      },
      async putBlock() {},
      shallowCopy() {
        return this;
      },
    },
  });
}
