// Components whose data moves with main-chain blocks (the SCS: deposits, flushes). While a block
// is built, a participant may propose payouts (app-chain withdrawals); the builder pays those the
// payer can cover in the block's settlement system transaction (execution/systemTxs.ts). When a
// block comes from outside, a participant checks the payouts of the payers it serves against
// its own proposals. When the sealed block is committed, each participant adds its own writes to
// the block's batch, so the block and their effects land together or not at all.

import type { Block, Receipt } from '../chain/types.js';
import type { Payout } from '../chain/systemTx.js';
import { equalBytes } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import type { BatchOp } from '../store/database.js';

/** A payout a participant proposes, with its own reference (which record it settles). */
export interface BalanceMove extends Payout {
  ref: unknown;
}

export interface CommitHook {
  ops: BatchOp[];
  /** after the batch was written (true) or abandoned (false) */
  done(written: boolean): void;
}

export interface BlockParticipant {
  /** The payouts block `number` should make, in order; the same stored inputs give the same list. */
  balanceMoves(number: bigint): Promise<BalanceMove[]>;
  /** Whether this participant answers for payouts from `payer` (an app chain it serves). */
  servesPayer(payer: Uint8Array): boolean;
  /** Writes for the sealed block's batch; `applied` are this participant's payouts the block made. */
  beforeCommit(block: Block, receipts: Receipt[], applied: BalanceMove[]): Promise<CommitHook>;
}

/** Each participant's payouts that a block made. */
export type AppliedMoves = ReadonlyMap<BlockParticipant, BalanceMove[]>;

const samePayout = (a: Payout, b: Payout) => equalBytes(a.from, b.from) && equalBytes(a.to, b.to) && a.amount === b.amount;

const NO_HOOK: CommitHook = { ops: [], done: () => undefined };

export class BlockParticipants {
  private readonly list: BlockParticipant[] = [];
  /** who proposed each payout (weakly held: proposals live as long as one block's build) */
  private readonly owners = new WeakMap<BalanceMove, BlockParticipant>();

  add(participant: BlockParticipant): void {
    this.list.push(participant);
  }

  /** Every participant's proposed payouts for block `number`, in registration order. */
  async proposals(number: bigint): Promise<BalanceMove[]> {
    const all: BalanceMove[] = [];
    for (const participant of this.list) {
      for (const move of await participant.balanceMoves(number)) {
        this.owners.set(move, participant);
        all.push(move);
      }
    }
    return all;
  }

  /** Groups payouts made (proposals returned by `proposals`) by participant. */
  attribute(paid: readonly BalanceMove[]): AppliedMoves {
    const applied = new Map<BlockParticipant, BalanceMove[]>();
    for (const move of paid) {
      const owner = this.owners.get(move);
      if (!owner) continue;
      const list = applied.get(owner) ?? [];
      list.push(move);
      applied.set(owner, list);
    }
    return applied;
  }

  /**
   * Checks a settlement from outside against `expected` (what the proposals pay on the same
   * state). For each payer a participant serves, the block pays exactly the expected payouts
   * of that payer, or none of them (a node that does not serve the app chain built the block;
   * the records keep waiting). Payers nobody here serves are checked by the rules alone.
   * Returns the expected moves the block made, or why it is refused.
   */
  matchSettlement(payouts: readonly Payout[], expected: readonly BalanceMove[]): { applied: AppliedMoves } | { problem: string } {
    const payers = new Map<string, Uint8Array>();
    for (const p of payouts) payers.set(bytesToHex(p.from), p.from);
    const made: BalanceMove[] = [];
    for (const [hex, payer] of payers) {
      if (!this.list.some((participant) => participant.servesPayer(payer))) continue;
      const given = payouts.filter((p) => equalBytes(p.from, payer));
      const want = expected.filter((p) => equalBytes(p.from, payer));
      if (given.length !== want.length || given.some((p, i) => !samePayout(p, want[i]))) {
        return { problem: `settlement payouts of app chain ${hex} differ from its records (${want.length} payouts due here, block has ${given.length})` };
      }
      made.push(...want);
    }
    return { applied: this.attribute(made) };
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
