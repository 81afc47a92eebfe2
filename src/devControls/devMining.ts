// Mining and time controls for developers (evm_mine, anvil_mine, evm_setAutomine,
// evm_setIntervalMining, evm_increaseTime, evm_setNextBlockTimestamp) over the miner's modes and
// the chain clock. Every mined block is a normal sealed block; only its timestamp is chosen here.

import type { Block } from '../chain/types.js';
import { aborted, outOfRange } from '../errors.js';
import type { Blockchain } from '../blockchain/blockchain.js';
import type { Miner, MiningMode } from '../miner/miner.js';
import type { DevClock } from './devClock.js';

/** The most blocks one anvil_mine / hardhat_mine call may seal. */
export const MAX_MINE_COUNT = 100_000;

/** Block timestamps are 64-bit; far below that, so that later blocks still fit. */
const MAX_TIMESTAMP = 2n ** 62n;

export class DevMining {
  constructor(
    private readonly miner: Miner,
    private readonly chain: Blockchain,
    readonly clock: DevClock,
  ) {}

  /** Instant sealing of pool transactions (modes instant and mixed). */
  get automine(): boolean {
    const mode = this.miner.currentMode;
    return mode === 'instant' || mode === 'mixed';
  }

  /** Milliseconds between interval blocks; 0 when off. */
  get intervalMs(): number {
    const mode = this.miner.currentMode;
    return mode === 'interval' || mode === 'mixed' ? this.miner.periodMilliseconds : 0;
  }

  /**
   * Automine on stops interval blocks (as Anvil's one mining mode); off keeps them. Resolves once
   * no round queued before the switch can seal: no interval block follows the answer.
   */
  setAutomine(on: boolean): Promise<void> {
    return this.apply(on, on ? 0 : this.intervalMs);
  }

  /** Interval blocks every `ms` beside automine (mode mixed), or alone; 0 stops them. */
  setIntervalMining(ms: number): Promise<void> {
    return this.apply(this.automine, ms);
  }

  private apply(automine: boolean, intervalMs: number): Promise<void> {
    const mode: MiningMode = automine ? (intervalMs > 0 ? 'mixed' : 'instant') : intervalMs > 0 ? 'interval' : 'off';
    if (intervalMs > 0) this.miner.setPeriod(intervalMs);
    return this.miner.setMode(mode);
  }

  async increaseTime(seconds: bigint): Promise<bigint> {
    if (this.clock.now() + seconds > MAX_TIMESTAMP) throw outOfRange(`the clock would pass ${MAX_TIMESTAMP}, the largest block timestamp`);
    return this.clock.increase(seconds);
  }

  async setNextBlockTimestamp(timestamp: bigint): Promise<void> {
    this.checkTimestamp(timestamp);
    await this.clock.setNext(timestamp);
  }

  /** Seals one block now (with the pool's transactions), at `timestamp` when given. */
  async mine(timestamp?: bigint): Promise<Block> {
    if (timestamp !== undefined) await this.setNextBlockTimestamp(timestamp);
    // A block arriving from elsewhere mid-search aborts the round; try again on the new head.
    for (let attempt = 0; attempt < 5; attempt++) {
      const [block] = await this.miner.mineBlocks(1);
      if (block) return block;
    }
    throw aborted('could not seal a block: the head kept moving');
  }

  /** Seals `count` blocks (at most MAX_MINE_COUNT, the RPC codec's bound); with an `interval` (> 0), each block's timestamp is the previous one's plus `interval` seconds. */
  async mineMany(count: bigint, interval: bigint | undefined): Promise<Block[]> {
    const blocks: Block[] = [];
    for (let i = 0n; i < count; i++) {
      const previous = blocks.at(-1);
      blocks.push(await this.mine(previous && interval ? previous.header.timestamp + interval : undefined));
    }
    return blocks;
  }

  private checkTimestamp(timestamp: bigint): void {
    if (timestamp > MAX_TIMESTAMP) throw outOfRange(`timestamp ${timestamp} is above ${MAX_TIMESTAMP}, the largest block timestamp`);
    const head = this.chain.head.header.timestamp;
    if (timestamp < head) throw outOfRange(`timestamp ${timestamp} is before the head block's timestamp ${head}`);
  }
}
