// Components whose data moves with main-chain blocks (the SCS: deposits, flushes). While a block
// is built, a participant may add system balance moves, applied after the block's transactions
// and before the reward; when the sealed block is committed, it adds its own writes to the
// block's batch, so the block and their effects land together or not at all.

import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address } from '@ethereumjs/util';
import type { Block, Receipt } from '../chain/types.js';
import type { BatchOp } from '../store/database.js';

/** A transfer the protocol makes inside a block (no transaction, no gas). */
export interface BalanceMove {
  from: Uint8Array;
  to: Uint8Array;
  amount: bigint;
  /** the participant's own reference (which record the move settles) */
  ref: unknown;
}

export interface CommitHook {
  ops: BatchOp[];
  /** after the batch was written (true) or abandoned (false) */
  done(written: boolean): void;
}

export interface BlockParticipant {
  /** The moves block `number` carries, in order; the same stored inputs give the same list. */
  balanceMoves(number: bigint): Promise<BalanceMove[]>;
  /** Writes for the sealed block's batch; `applied` are this participant's moves the block made. */
  beforeCommit(block: Block, receipts: Receipt[], applied: BalanceMove[]): Promise<CommitHook>;
}

/** Each participant's moves that a built block applied. */
export type AppliedMoves = ReadonlyMap<BlockParticipant, BalanceMove[]>;

const NO_HOOK: CommitHook = { ops: [], done: () => undefined };

export class BlockParticipants {
  private readonly list: BlockParticipant[] = [];

  add(participant: BlockParticipant): void {
    this.list.push(participant);
  }

  /**
   * Applies every participant's moves to the block's state in registration order. A move whose
   * payer cannot cover it is skipped (it stays with its participant for a later block); the
   * outcome depends only on the state and the list, so re-executing the block repeats it.
   */
  async applyMoves(sm: MerkleStateManager, number: bigint): Promise<AppliedMoves> {
    const applied = new Map<BlockParticipant, BalanceMove[]>();
    for (const participant of this.list) {
      const done: BalanceMove[] = [];
      for (const move of await participant.balanceMoves(number)) {
        const from = new Address(move.from);
        const payer = (await sm.getAccount(from)) ?? new Account();
        if (payer.balance < move.amount) continue;
        payer.balance -= move.amount;
        await sm.putAccount(from, payer);
        const to = new Address(move.to);
        const payee = (await sm.getAccount(to)) ?? new Account();
        payee.balance += move.amount;
        await sm.putAccount(to, payee);
        done.push(move);
      }
      if (done.length) applied.set(participant, done);
    }
    return applied;
  }

  /** Collects every participant's writes for the block; one `done` reports to them all. */
  async beforeCommit(block: Block, receipts: Receipt[], applied: AppliedMoves): Promise<CommitHook> {
    if (this.list.length === 0) return NO_HOOK;
    const hooks: CommitHook[] = [];
    try {
      for (const participant of this.list) hooks.push(await participant.beforeCommit(block, receipts, applied.get(participant) ?? []));
    } catch (err) {
      for (const hook of hooks) hook.done(false);
      throw err;
    }
    return {
      ops: hooks.flatMap((h) => h.ops),
      done: (written) => hooks.forEach((h) => h.done(written)),
    };
  }
}
