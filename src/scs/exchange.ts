// Exchanges between the main chain and an app chain (docs/scs.md#deposits-withdrawals-flushes). A deposit is a main-chain call
// of buyMintToken() with value on the app chain address (the value stays in that address's
// balance); a withdrawal is a redeemFromMicroChain() call with value on the DappBase. Both wait
// as "-ing" records until the app chain's next flush, every `flushRound` main-chain blocks after
// its creation block, which settles them:
//   deposit:  app chain, DappBase → user, value × rate base units (a flush block carries it);
//   withdraw: main chain, app chain address → user, value / rate sha (a payout in the flush
//             block's settlement system transaction; see execution/systemTxs.ts).

import type { Block, Receipt } from '../chain/types.js';
import { equalBytes } from '../encoding/bytes.js';
import type { BalanceMove } from '../execution/blockParticipants.js';
import { isDeposit } from '../execution/systemTxs.js';
import type { ExchangeRecord } from './store.js';


export type RecordList = 'Deposit' | 'Depositing' | 'Withdraw' | 'Withdrawing';

/** Refers a withdrawal move back to its record. */
export interface WithdrawRef {
  chain: string;
  seq: number;
}

export function isFlushBlock(createdAt: bigint, flushRound: number, mainBlock: bigint): boolean {
  const distance = mainBlock - createdAt;
  return distance > 0n && distance % BigInt(flushRound) === 0n;
}

/** The deposits a main-chain block makes to the app chain at `address` (successful calls only). */
export function depositsIn(block: Block, receipts: Receipt[], address: Uint8Array): { user: Uint8Array; amount: bigint }[] {
  const out: { user: Uint8Array; amount: bigint }[] = [];
  block.transactions.forEach((tx, i) => {
    if (receipts[i] && isDeposit(tx, receipts[i]) && equalBytes(tx.to!, address)) out.push({ user: tx.from, amount: tx.value });
  });
  return out;
}

export function recordsIn(records: readonly ExchangeRecord[], list: RecordList, user?: Uint8Array): ExchangeRecord[] {
  const kind = list === 'Deposit' || list === 'Depositing' ? 'deposit' : 'withdraw';
  const settled = list === 'Deposit' || list === 'Withdraw';
  return records.filter(
    (r) => r.kind === kind && (r.settled !== undefined) === settled && (user === undefined || equalBytes(r.user, user)),
  );
}

/** A page of a list; an empty page is null (as the real SCS answers). */
export function page<T>(list: readonly T[], index: number, count: number): T[] | null {
  const items = list.slice(index, index + count);
  return items.length ? items : null;
}

/** What a flush at `mainBlock` credits on the app chain: deposits made in earlier blocks. */
export function depositCredits(records: readonly ExchangeRecord[], rate: bigint, mainBlock: bigint) {
  return recordsIn(records, 'Depositing')
    .filter((r) => r.requestBlock < mainBlock)
    .map((r) => ({ to: r.user, amount: r.amount * rate, ref: r.seq }));
}

/** What a flush pays on the main chain: every withdrawal waiting when the block is built. */
export function withdrawMoves(chain: Uint8Array, chainKey: string, records: readonly ExchangeRecord[], rate: bigint): BalanceMove[] {
  return recordsIn(records, 'Withdrawing').map((r) => withdrawMove(chain, chainKey, r, rate));
}

/** The moves a stored main-chain block made for this app chain (to re-execute that block). */
export function settledMoves(chain: Uint8Array, chainKey: string, records: readonly ExchangeRecord[], rate: bigint, mainBlock: bigint) {
  return recordsIn(records, 'Withdraw')
    .filter((r) => r.settled!.mainBlock === mainBlock)
    .map((r) => withdrawMove(chain, chainKey, r, rate));
}

function withdrawMove(chain: Uint8Array, chainKey: string, r: ExchangeRecord, rate: bigint): BalanceMove {
  const ref: WithdrawRef = { chain: chainKey, seq: r.seq };
  return { from: chain, to: r.user, amount: r.amount / rate, ref };
}

export function settle(r: ExchangeRecord, time: bigint, mainBlock: bigint): ExchangeRecord {
  return { ...r, settled: { time, mainBlock } };
}
