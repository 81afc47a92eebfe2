// State setters and impersonation for developers. Every change is a block: each setter seals one
// block holding one setter system transaction, and a transaction "from" an impersonated account
// is sealed at once as an impersonated system transaction. So the chain stays re-executable by
// `import` and by peers, and snapshots see the change as history.

import type { Block, SignedTx, TxFields } from '../chain/types.js';
import { impersonatedTx, type DevSetter } from '../chain/systemTx.js';
import { bytesToHex } from '../encoding/hex.js';
import type { WorldState } from '../state/worldState.js';
import type { TxPool } from '../txpool/txPool.js';
import type { Miner } from './miner.js';

export class DevState {
  private readonly impersonated = new Set<string>();

  constructor(
    private readonly miner: Miner,
    private readonly world: WorldState,
    private readonly pool: TxPool,
  ) {}

  /** Seals the setter's block; a new coinbase also becomes the miner's beneficiary. */
  async set(setter: DevSetter): Promise<Block> {
    const block = await this.miner.sealSetter(setter);
    if (setter.op === 'setCoinbase') this.miner.coinbase = setter.address;
    return block;
  }

  impersonate(address: Uint8Array): void {
    this.impersonated.add(bytesToHex(address));
  }

  stopImpersonating(address: Uint8Array): void {
    this.impersonated.delete(bytesToHex(address));
  }

  isImpersonated(address: Uint8Array): boolean {
    return this.impersonated.has(bytesToHex(address));
  }

  /** Seals `fields` from the impersonated `from` in a block of its own; resolves with the transaction. */
  async sendImpersonated(from: Uint8Array, fields: TxFields): Promise<SignedTx> {
    let sent: SignedTx | undefined;
    await this.miner.sealTransaction(async (head) => {
      const account = await this.world.getAccount(head.header.stateRoot, from);
      sent = impersonatedTx({
        from, nonce: account?.nonce ?? 0n, to: fields.to, value: fields.value, data: fields.data, gas: fields.gas, gasPrice: fields.gasPrice,
      });
      return sent;
    });
    return sent!;
  }

  /** Removes a pool transaction; false when the pool does not hold it. */
  async dropTransaction(hash: Uint8Array): Promise<boolean> {
    const tx = this.pool.get(hash);
    if (!tx) return false;
    await this.pool.drop([tx]);
    return true;
  }
}
