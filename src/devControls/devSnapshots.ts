// evm_snapshot / evm_revert: a snapshot records the head, the pool's transactions and the chain
// clock, in the database (it survives restarts). Reverting rewinds the chain to that head (the
// one rewind of the chain, so filters see the removed logs), puts the pool and the clock back,
// drops later snapshots and keeps this one for another revert.

import { RLP } from '@ethereumjs/rlp';
import type { Block, SignedTx } from '../chain/types.js';
import { bigintToFixed, bytesToBigint, equalBytes } from '../encoding/bytes.js';
import type { Database } from '../store/database.js';
import { keys } from '../store/schema.js';
import type { TxPool } from '../txpool/txPool.js';
import { decodeClock, encodeClock, type DevClock } from './devClock.js';
import type { MiningMode } from '../miner/miner.js';
import { wrongState } from '../errors.js';

/** What reverting needs from the chain. */
export interface RewindableChain {
  readonly head: Block;
  getHashByNumber(number: bigint): Promise<Uint8Array | undefined>;
  rewindTo(hash: Uint8Array): Promise<unknown>;
  reorgTo(hash: Uint8Array): Promise<unknown>;
  isCanonical(block: Block): Promise<boolean>;
  getBlockByHash(hash: Uint8Array): Promise<Block | undefined>;
}

/** The miner's mode switch: no block may be sealed from the pool while it is put back. */
export interface PausableMiner {
  readonly currentMode: MiningMode;
  setMode(mode: MiningMode): void;
}

export class DevSnapshots {
  constructor(
    private readonly db: Database,
    private readonly chain: RewindableChain,
    private readonly pool: TxPool,
    private readonly clock: DevClock,
    private readonly miner: PausableMiner,
    private readonly decodeTx: (raw: Uint8Array) => SignedTx,
  ) {}

  /** Records the present moment; returns its id (ids start at 1 and are never reused). */
  async take(): Promise<bigint> {
    const stored = await this.db.get(keys.snapshotNext);
    const id = stored ? bytesToBigint(stored) : 1n;
    const { pending, queued } = this.pool.content();
    const txs = [...pending.values(), ...queued.values()].flat().map((tx) => tx.raw);
    const record = RLP.encode([this.chain.head.hash, encodeClock(this.clock.snapshot()), txs]);
    await this.db.batch([
      { type: 'put', key: keys.snapshot(id), value: record },
      { type: 'put', key: keys.snapshotNext, value: bigintToFixed(id + 1n, 8) },
    ]);
    return id;
  }

  /** Goes back to snapshot `id`; false when there is no such snapshot. */
  async revert(id: bigint): Promise<boolean> {
    const record = await this.db.get(keys.snapshot(id));
    if (!record) return false;
    const [headHash, clockBytes, rawTxs] = RLP.decode(record) as unknown as [Uint8Array, Uint8Array, Uint8Array[]];
    await this.whilePaused(async () => {
      if (!equalBytes(this.chain.head.hash, headHash)) await this.moveHead(headHash);
      await this.clock.set(decodeClock(clockBytes));
      await this.restorePool(rawTxs);
    });
    const later: { type: 'del'; key: Uint8Array }[] = [];
    for await (const [key] of this.db.entries(keys.snapshotRange(id + 1n))) later.push({ type: 'del', key });
    if (later.length) await this.db.batch(later);
    return true;
  }

  /**
   * Back to the snapshot's head: a rewind when it is an ancestor of the head; when a later
   * debug_setHead took it off the canonical chain, its stored branch becomes canonical again.
   */
  private async moveHead(hash: Uint8Array): Promise<void> {
    const block = await this.chain.getBlockByHash(hash);
    if (block && !(await this.chain.isCanonical(block))) await this.chain.reorgTo(hash);
    else await this.chain.rewindTo(hash);
  }

  /** debug_setHead: the canonical block `number` becomes the head (the same rewind). */
  async setHead(number: bigint): Promise<void> {
    const hash = await this.chain.getHashByNumber(number);
    if (!hash) throw wrongState(`block ${number} is not on the canonical chain (head is ${this.chain.head.header.number})`);
    await this.whilePaused(() => this.chain.rewindTo(hash));
  }

  private async whilePaused<T>(job: () => Promise<T>): Promise<T> {
    const mode = this.miner.currentMode;
    this.miner.setMode('off');
    try {
      return await job();
    } finally {
      this.miner.setMode(mode);
    }
  }

  /** The pool holds exactly the snapshot's transactions again (those still valid on the restored head). */
  private async restorePool(rawTxs: Uint8Array[]): Promise<void> {
    await this.pool.settled(); // the rewind hands the removed blocks' transactions back first
    const { pending, queued } = this.pool.content();
    await this.pool.drop([...pending.values(), ...queued.values()].flat());
    const txs = rawTxs.map((raw) => this.decodeTx(raw)).sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0));
    for (const tx of txs) await this.pool.add(tx).catch(() => undefined);
  }
}
