// The one way in for a signed transaction, wherever it came from (raw, signed by the node, or
// later impersonated): shardingFlag 0 goes to the main pool, 1–3 to the SCS's app-chain pools.

import type { SignedTx } from '../chain/types.js';
import { unsupported } from '../errors.js';

/** What the submitter needs of the SCS (ScsService is one). */
export interface AppChainIntake {
  submit(tx: SignedTx): Promise<void>;
  chain(address: Uint8Array): { nextNonce(from: Uint8Array): Promise<bigint> };
}

const NO_SCS = 'app-chain transactions (shardingFlag 1-3) need the SCS service';

export class TxSubmitter {
  constructor(
    private readonly pool: { add(tx: SignedTx): Promise<unknown> },
    /** the SCS when it runs (it opens after the pool) */
    private readonly appChains: () => AppChainIntake | undefined,
  ) {}

  /** Resolves once the transaction is journaled by the pool that takes it. */
  async submit(tx: SignedTx): Promise<void> {
    if (tx.shardingFlag === 0n) {
      await this.pool.add(tx);
      return;
    }
    const scs = this.appChains();
    if (!scs) throw unsupported(NO_SCS);
    await scs.submit(tx);
  }

  /** Next nonce of `from` on app chain `appChain`. */
  appChainNonce(appChain: Uint8Array, from: Uint8Array): Promise<bigint> {
    const scs = this.appChains();
    if (!scs) return Promise.reject(unsupported(NO_SCS));
    return scs.chain(appChain).nextNonce(from);
  }
}
