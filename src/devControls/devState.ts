// State setters and impersonation for developers. Every change is a block: each setter seals one
// block holding one setter system transaction, and a transaction "from" an impersonated account
// is sealed at once as an impersonated system transaction. So the chain stays re-executable by
// `import` and by peers, and snapshots see the change as history. The impersonated addresses are
// stored, so they last across restarts until stopped, as the rest of a persistent chain does.

import type { Block, SignedTx, TxFields } from '../chain/types.js';
import { impersonatedTx, type DevSetter } from '../chain/systemTx.js';
import { bytesToHex, hexToBytes } from '../encoding/hex.js';
import type { Database } from '../store/database.js';
import { keys } from '../store/schema.js';
import type { WorldState } from '../state/worldState.js';
import type { TxPool } from '../txpool/txPool.js';
import type { Miner } from '../miner/miner.js';

export class DevState {
  private constructor(
    private readonly miner: Miner,
    private readonly world: WorldState,
    private readonly pool: TxPool,
    private readonly db: Database,
    private readonly impersonated: Set<string>,
  ) {}

  /** The dev state with the impersonated addresses a previous run left. */
  static async open(miner: Miner, world: WorldState, pool: TxPool, db: Database): Promise<DevState> {
    const stored = (await db.get(keys.impersonated)) ?? new Uint8Array();
    const addresses = new Set<string>();
    for (let i = 0; i + 20 <= stored.length; i += 20) addresses.add(bytesToHex(stored.subarray(i, i + 20)));
    return new DevState(miner, world, pool, db, addresses);
  }

  /** Seals the setter's block; a new coinbase also becomes the miner's beneficiary. */
  async set(setter: DevSetter): Promise<Block> {
    const block = await this.miner.sealSetter(setter);
    if (setter.op === 'setCoinbase') this.miner.coinbase = setter.address;
    return block;
  }

  async impersonate(address: Uint8Array): Promise<void> {
    this.impersonated.add(bytesToHex(address));
    await this.storeImpersonated();
  }

  async stopImpersonating(address: Uint8Array): Promise<void> {
    this.impersonated.delete(bytesToHex(address));
    await this.storeImpersonated();
  }

  private storeImpersonated(): Promise<void> {
    const all = new Uint8Array(this.impersonated.size * 20);
    let i = 0;
    for (const hex of this.impersonated) all.set(hexToBytes(hex), 20 * i++);
    return this.db.put(keys.impersonated, all);
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
