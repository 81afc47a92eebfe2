// The chain's clock for block timestamps: wall time plus an offset that evm_increaseTime moves,
// and a one-shot timestamp for the next block (evm_setNextBlockTimestamp). Both are stored in
// the database so that a restart keeps the chain's notion of "now".

import type { Database } from '../store/database.js';
import { keys } from '../store/schema.js';

export interface ClockState {
  /** seconds added to wall time */
  offset: bigint;
  /** timestamp of the next block, when set */
  next: bigint | undefined;
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

  snapshot(): ClockState {
    return { ...this.state };
  }

  /** The chain's current time in seconds. */
  now(): bigint {
    return this.wall() + this.state.offset;
  }

  /** Timestamp of a block built on a parent with `parentTimestamp`: never below the parent's. */
  timestampFor(parentTimestamp: bigint): bigint {
    const t = this.state.next ?? this.now();
    return t > parentTimestamp ? t : parentTimestamp;
  }

  /** A block with `timestamp` was stored: a pending next timestamp is used up and time continues from it. */
  async blockSealed(timestamp: bigint): Promise<void> {
    if (this.state.next === undefined) return;
    await this.set({ offset: timestamp - this.wall(), next: undefined });
  }

  /** Moves the clock forward; returns the total offset. */
  async increase(seconds: bigint): Promise<bigint> {
    await this.set({ offset: this.state.offset + seconds, next: this.state.next });
    return this.state.offset;
  }

  async setNext(timestamp: bigint): Promise<void> {
    await this.set({ offset: this.state.offset, next: timestamp });
  }

  async set(state: ClockState): Promise<void> {
    await this.db.put(keys.devClock, encodeClock(state));
    this.state = { ...state };
  }
}

export function encodeClock(state: ClockState): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ offset: state.offset.toString(), next: state.next?.toString() }));
}

export function decodeClock(bytes: Uint8Array): ClockState {
  const json = JSON.parse(new TextDecoder().decode(bytes)) as { offset: string; next?: string };
  return { offset: BigInt(json.offset), next: json.next === undefined ? undefined : BigInt(json.next) };
}
