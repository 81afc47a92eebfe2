// The EVM setup shared by block building, calls and app chains: one factory, so that the main
// chain and app chains run code under the same rules.

import type { EVM } from '@ethereumjs/evm';
import type { Common, StateManagerInterface } from '@ethereumjs/common';

// The EVM library loads with the first EVM, not at start-up (the first answers do not need it).
let library: typeof import('@ethereumjs/evm') | undefined;
let chainEvmModule: typeof import('./chainEvm.js') | undefined;

/** The precompiles active under `common`, by address (hex, no 0x). Valid once an EVM was made: tracers ask from inside one. */
export function activePrecompiles(common: Common): Map<string, unknown> {
  if (!library) throw new Error('activePrecompiles: no EVM was made yet');
  return library.getActivePrecompiles(common);
}

/** Where BLOCKHASH looks (the main chain, or an app chain's own blocks). */
export interface BlockHashSource {
  getBlockByNumber(number: bigint): Promise<{ hash: Uint8Array } | undefined>;
}

export async function createChainEvm(common: Common, sm: StateManagerInterface, chain: BlockHashSource): Promise<EVM> {
  library ??= await import('@ethereumjs/evm');
  const { ChainEvm } = (chainEvmModule ??= await import('./chainEvm.js'));
  const evm = new ChainEvm({
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
  await evm.prepare();
  return evm;
}
