// State overrides (design.md §17, geth's eth_call semantics): a call, estimate or trace runs on a
// block's state with some accounts' balance, nonce, code or storage replaced. The overrides are
// one read-only layer under the call: `OverrideState` answers the state manager's reads from the
// overrides first and from a source state otherwise, and is the base of a call view of its own,
// so both engines (the interpreter loads through readBase*, the library EVM through the view)
// see the same overridden state and nothing reaches a cache that calls without overrides read.
// Traces run on a scratch state manager instead; `applyOverrides` writes the overrides into it.

import type { StateManagerInterface } from '@ethereumjs/common';
import { Account, Address, bytesToHex } from '@ethereumjs/util';
import { keccak256 } from '../encoding/bytes.js';
import { hexToBytes } from '../encoding/hex.js';

/** One account's override: each field given replaces the account's; `state` replaces all storage, `stateDiff` some slots. */
export interface AccountOverride {
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  /** the whole storage: slots not named read zero (keys and values 32 bytes) */
  state?: Map<string, Uint8Array>;
  /** slots changed, the others kept */
  stateDiff?: Map<string, Uint8Array>;
}

/** Overrides by account, keyed by the lower-case 0x address. */
export type StateOverrides = Map<string, AccountOverride>;

/** What an override state reads the rest of the state from (a call view's base reads). */
export interface BaseReads {
  readBaseAccount(address: Address): Promise<Account | undefined>;
  readBaseCode(address: Address): Promise<Uint8Array>;
  readBaseStorage(address: Address, key: Uint8Array): Promise<Uint8Array>;
  getStateRoot(): Promise<Uint8Array>;
  hasStateRoot(root: Uint8Array): Promise<boolean>;
}

const EMPTY = new Uint8Array(0);

/** A storage value as tries store it: no leading zero bytes, empty for zero. */
function trimmed(value: Uint8Array): Uint8Array {
  let i = 0;
  while (i < value.length && value[i] === 0) i++;
  return i === 0 ? value : value.subarray(i);
}

export class OverrideState implements StateManagerInterface {
  constructor(private readonly source: BaseReads, private readonly overrides: StateOverrides) {}

  readonly originalStorageCache = {
    get: (address: Address, key: Uint8Array): Promise<Uint8Array> => this.getStorage(address, key),
    clear: (): void => undefined,
  };

  async getAccount(address: Address): Promise<Account | undefined> {
    const o = this.overrides.get(address.toString());
    const base = await this.source.readBaseAccount(address);
    if (o === undefined) return base;
    // As in geth, an override makes the account exist even when it only sets storage.
    const account = base === undefined ? new Account() : new Account(base.nonce, base.balance, base.storageRoot, base.codeHash);
    if (o.balance !== undefined) account.balance = o.balance;
    if (o.nonce !== undefined) account.nonce = o.nonce;
    if (o.code !== undefined) account.codeHash = keccak256(o.code);
    return account;
  }

  async getCode(address: Address): Promise<Uint8Array> {
    return this.overrides.get(address.toString())?.code ?? this.source.readBaseCode(address);
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const o = this.overrides.get(address.toString());
    if (o?.state !== undefined) return trimmed(o.state.get(bytesToHex(key)) ?? EMPTY);
    const diff = o?.stateDiff?.get(bytesToHex(key));
    if (diff !== undefined) return trimmed(diff);
    return this.source.readBaseStorage(address, key);
  }

  getStateRoot(): Promise<Uint8Array> {
    return this.source.getStateRoot();
  }

  hasStateRoot(root: Uint8Array): Promise<boolean> {
    return this.source.hasStateRoot(root);
  }

  // Read only: the call view above keeps every write of a call.
  putAccount(): Promise<void> {
    return readOnly();
  }
  deleteAccount(): Promise<void> {
    return readOnly();
  }
  modifyAccountFields(): Promise<void> {
    return readOnly();
  }
  putCode(): Promise<void> {
    return readOnly();
  }
  putStorage(): Promise<void> {
    return readOnly();
  }
  clearStorage(): Promise<void> {
    return readOnly();
  }
  async checkpoint(): Promise<void> {}
  async commit(): Promise<void> {}
  async revert(): Promise<void> {}
  setStateRoot(): Promise<void> {
    return readOnly();
  }
  clearCaches(): void {}
  shallowCopy(): StateManagerInterface {
    return new OverrideState(this.source, this.overrides);
  }
}

function readOnly(): Promise<never> {
  return Promise.reject(new Error('an override state is read only: writes belong to the call view above it'));
}

/** Writes `overrides` into a scratch state manager (a trace's), as geth applies them to its state. */
export async function applyOverrides(sm: StateManagerInterface, overrides: StateOverrides): Promise<void> {
  for (const [key, o] of overrides) {
    const address = new Address(hexToBytes(key));
    if ((await sm.getAccount(address)) === undefined) await sm.putAccount(address, new Account());
    if (o.code !== undefined) await sm.putCode(address, o.code);
    if (o.balance !== undefined || o.nonce !== undefined) await sm.modifyAccountFields(address, { balance: o.balance, nonce: o.nonce });
    if (o.state !== undefined) {
      await sm.clearStorage(address);
      for (const [slot, value] of o.state) await sm.putStorage(address, hexToBytes(slot), trimmed(value));
    }
    if (o.stateDiff !== undefined) for (const [slot, value] of o.stateDiff) await sm.putStorage(address, hexToBytes(slot), trimmed(value));
  }
}
