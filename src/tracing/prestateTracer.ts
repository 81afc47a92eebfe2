// geth's prestateTracer: the accounts a transaction touched as they were before it (balance,
// nonce, code, the storage slots it read or wrote); in diffMode, `pre` and `post` hold only what
// changed.

import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address } from '@ethereumjs/util';
import { bytesToHex, hexToBytes } from '../encoding/hex.js';
import { bigintToFixed, bytesToBigint } from '../encoding/bytes.js';
import type { TraceStates, TracedTx, Tracer, TxOutcome } from './tracer.js';

export interface AccountState {
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  /** slot → value (32-byte words as bigint) */
  storage: Map<bigint, bigint>;
}

/** address (0x hex) → state */
export type StateMap = Map<string, AccountState>;

export type PrestateResult = { diff: false; pre: StateMap } | { diff: true; pre: StateMap; post: StateMap };

const ADDRESS_ARG_OPS = new Set(['BALANCE', 'EXTCODESIZE', 'EXTCODECOPY', 'EXTCODEHASH', 'SELFDESTRUCT']);
const CALL_OPS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL']);

export class PrestateTracer implements Tracer<PrestateResult> {
  readonly wantsStates = true;
  private readonly touched = new Map<string, Set<bigint>>();
  private readonly created = new Set<string>();
  private tx: TracedTx | undefined;

  constructor(private readonly diffMode: boolean) {}

  private touch(address: string): Set<bigint> {
    let slots = this.touched.get(address);
    if (!slots) this.touched.set(address, (slots = new Set()));
    return slots;
  }

  begin(tx: TracedTx): void {
    this.tx = tx;
    this.touch(bytesToHex(tx.from));
    if (tx.to) this.touch(bytesToHex(tx.to));
    this.touch(bytesToHex(tx.coinbase));
  }

  step(step: InterpreterStep): void {
    const op = step.opcode.name;
    const s = step.stack;
    if ((op === 'SLOAD' || op === 'SSTORE') && s.length > 0) this.touch(step.address.toString()).add(s[s.length - 1]);
    else if (ADDRESS_ARG_OPS.has(op) && s.length > 0) this.touch(addressOf(s[s.length - 1]));
    else if (CALL_OPS.has(op) && s.length > 1) this.touch(addressOf(s[s.length - 2]));
  }

  enter(message: Message): void {
    if (message.to) this.touch(message.to.toString());
  }

  exit(result: EVMResult): void {
    if (result.createdAddress && !result.execResult.exceptionError) {
      const hex = result.createdAddress.toString();
      this.touch(hex);
      this.created.add(hex);
    }
  }

  async finish(_outcome: TxOutcome, states?: TraceStates): Promise<PrestateResult> {
    if (!states) throw new Error('prestate tracer needs the states');
    const pre: StateMap = new Map();
    for (const [address, slots] of this.touched) {
      const state = await readAccount(states.before, address, slots);
      if (state) pre.set(address, state);
    }
    if (!this.diffMode) {
      // Contracts the transaction created had no state before it.
      const keep = new Set([this.tx && bytesToHex(this.tx.from), this.tx?.to && bytesToHex(this.tx.to)]);
      for (const address of this.created) if (!keep.has(address)) pre.delete(address);
      return { diff: false, pre };
    }
    const post: StateMap = new Map();
    for (const [address, slots] of this.touched) {
      const before = pre.get(address);
      const after = await readAccount(states.after, address, slots);
      if (!after) continue; // removed: it stays in pre only
      if (!before) {
        post.set(address, after);
        continue;
      }
      const changed: AccountState = { balance: -1n, nonce: -1n, code: new Uint8Array(), storage: new Map() };
      let modified = false;
      if (after.balance !== before.balance) (changed.balance = after.balance), (modified = true);
      if (after.nonce !== before.nonce) (changed.nonce = after.nonce), (modified = true);
      if (bytesToHex(after.code) !== bytesToHex(before.code)) (changed.code = after.code), (modified = true);
      for (const slot of slots) {
        const a = after.storage.get(slot) ?? 0n;
        const b = before.storage.get(slot) ?? 0n;
        if (a === b) {
          before.storage.delete(slot);
          continue;
        }
        modified = true;
        if (a !== 0n) changed.storage.set(slot, a);
      }
      if (modified) post.set(address, changed);
      else pre.delete(address);
    }
    return { diff: true, pre, post };
  }
}

/** The account's state with the given slots (non-zero ones only); undefined when it does not exist. */
async function readAccount(sm: MerkleStateManager, address: string, slots: Set<bigint>): Promise<AccountState | undefined> {
  const addr = new Address(hexToBytes(address));
  const account = await sm.getAccount(addr);
  if (!account) return undefined;
  const storage = new Map<bigint, bigint>();
  for (const slot of slots) {
    const value = bytesToBigint(await sm.getStorage(addr, bigintToFixed(slot, 32)));
    if (value !== 0n) storage.set(slot, value);
  }
  return { balance: account.balance, nonce: account.nonce, code: await sm.getCode(addr), storage };
}

function addressOf(value: bigint): string {
  return bytesToHex(bigintToFixed(value & ((1n << 160n) - 1n), 20));
}
