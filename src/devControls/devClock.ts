// The chain's clock for block timestamps: wall time plus an offset that evm_increaseTime and
// evm_setTime move, a one-shot timestamp for the next block (evm_setNextBlockTimestamp), and a
// fixed step between blocks (anvil_setBlockTimestampInterval). All are stored in the database so
// that a restart keeps the chain's notion of "now".

import type { Database } from '../store/database.js';
import { keys } from '../store/schema.js';

export interface ClockState {
  /** seconds added to wall time */
  offset: bigint;
  /** timestamp of the next block, when set */
  next: bigint | undefined;
  /** seconds from each block to the next, when set (instead of the clock) */
  interval?: bigint;
}

const wallSeconds = () => BigInt(Math.floor(Date.now() / 1000));

export class DevClock {
  private constructor(
    private readonly db: Database,
    private state: ClockState,
    private readonly wall: () => bigint,
  ) {}

  static async open(db: Database, wall: () => bigint = wallSeconds): Promise<DevClock> {
    const stored = await db.get(keys.devClock);
    return new DevClock(db, stored ? decodeClock(stored) : { offset: 0n, next: undefined }, wall);
  }

  get offset(): bigint {
    return this.state.offset;
  }

  get next(): bigint | undefined {
    return this.state.next;
  }

  get interval(): bigint | undefined {
    return this.state.interval;
  }

  snapshot(): ClockState {
    return { ...this.state };
  }

  /** The chain's current time in seconds. */
  now(): bigint {
    return this.wall() + this.state.offset;
  }

  /** Timestamp of a block built on a parent with `parentTimestamp`: never below the parent's. */
  timestampFor(parentTimestamp: bigint): bigint {
    const { next, interval } = this.state;
    const t = next ?? (interval !== undefined ? parentTimestamp + interval : this.now());
    return t > parentTimestamp ? t : parentTimestamp;
  }

  /** A block with `timestamp` was stored: a pending next timestamp (or an interval step) is used up and time continues from it. */
  async blockSealed(timestamp: bigint): Promise<void> {
    if (this.state.next === undefined && this.state.interval === undefined) return;
    await this.continueFrom(timestamp);
  }

  /** Time goes on from `timestamp` (a block's chosen one): a pending next timestamp is dropped, an interval kept. */
  async continueFrom(timestamp: bigint): Promise<void> {
    await this.set({ ...this.state, offset: timestamp - this.wall(), next: undefined });
  }

  /** Moves the clock forward; returns the total offset. */
  async increase(seconds: bigint): Promise<bigint> {
    await this.set({ ...this.state, offset: this.state.offset + seconds });
    return this.state.offset;
  }

  async setNext(timestamp: bigint): Promise<void> {
    await this.set({ ...this.state, next: timestamp });
  }

  /** The clock reads `timestamp` now (a pending next timestamp is dropped); returns how far it moved. */
  async setNow(timestamp: bigint): Promise<bigint> {
    const moved = timestamp - this.now();
    await this.set({ ...this.state, offset: timestamp - this.wall(), next: undefined });
    return moved;
  }

  /** Each block `seconds` after its parent (undefined: back to the clock). */
  async setInterval(seconds: bigint | undefined): Promise<void> {
    await this.set({ ...this.state, interval: seconds });
  }

  async set(state: ClockState): Promise<void> {
    await this.db.put(keys.devClock, encodeClock(state));
    this.state = { ...state };
  }
}

export function encodeClock(state: ClockState): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ offset: state.offset.toString(), next: state.next?.toString(), interval: state.interval?.toString() }));
}

export function decodeClock(bytes: Uint8Array): ClockState {
  const json = JSON.parse(new TextDecoder().decode(bytes)) as { offset: string; next?: string; interval?: string };
  const optional = (v: string | undefined) => (v === undefined ? undefined : BigInt(v));
  return { offset: BigInt(json.offset), next: optional(json.next), interval: optional(json.interval) };
}
