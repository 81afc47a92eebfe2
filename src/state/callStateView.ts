// The state a call (mc_call, mc_estimateGas) runs on: one stored state root, read through a
// state manager that is never written, with decoded accounts, code and storage kept as objects
// across calls. Writes go to in-memory layers that checkpoint / commit / revert push, merge and
// drop; `reset()` forgets them after each call. Nothing reaches the trie, so a call does no trie
// journal work and no RLP round trips (test/unit/state/callStateView.test.ts).

import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import { Account, Address, bytesToHex } from '@ethereumjs/util';
import { keccak256 } from '../encoding/bytes.js';

const EMPTY = new Uint8Array(0);
/** Entries kept per base cache before it starts over (a call view lives as long as its root is hot). */
const BASE_CACHE_LIMIT = 50_000;

interface Layer {
  accounts: Map<string, Account | undefined>;
  code: Map<string, Uint8Array>;
  storage: Map<string, Map<string, Uint8Array>>;
  /** accounts whose storage this layer wiped (deleted or cleared) */
  cleared: Set<string>;
}

const newLayer = (): Layer => ({ accounts: new Map(), code: new Map(), storage: new Map(), cleared: new Set() });

function copyAccount(a: Account | undefined): Account | undefined {
  return a === undefined ? undefined : new Account(a.nonce, a.balance, a.storageRoot, a.codeHash);
}

export class CallStateView implements StateManagerInterface {
  private layers: Layer[] = [newLayer()];
  private readonly baseAccounts = new Map<string, Account | undefined>();
  private readonly baseCode = new Map<string, Uint8Array>();
  private readonly baseStorage = new Map<string, Uint8Array>();

  /** `base` is read only; its root is the state every call starts from. */
  constructor(private readonly base: StateManagerInterface) {}

  /** Forgets every write: the next call starts from the base state again. */
  reset(): void {
    this.layers = [newLayer()];
  }

  readonly originalStorageCache = {
    // Each call starts at the base state, so the value before the call is the base value.
    get: (address: Address, key: Uint8Array): Promise<Uint8Array> => this.baseStorageAt(address, key),
    clear: (): void => undefined,
  };

  async getAccount(address: Address): Promise<Account | undefined> {
    const key = address.toString();
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const accounts = this.layers[i].accounts;
      if (accounts.has(key)) return copyAccount(accounts.get(key));
    }
    return copyAccount(await this.baseAccount(address, key));
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    this.top().accounts.set(address.toString(), copyAccount(account));
  }

  async deleteAccount(address: Address): Promise<void> {
    const key = address.toString();
    const top = this.top();
    top.accounts.set(key, undefined);
    top.code.set(key, EMPTY);
    top.cleared.add(key);
    top.storage.set(key, new Map());
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const account = (await this.getAccount(address)) ?? new Account();
    if (fields.nonce !== undefined) account.nonce = fields.nonce;
    if (fields.balance !== undefined) account.balance = fields.balance;
    if (fields.storageRoot !== undefined) account.storageRoot = fields.storageRoot;
    if (fields.codeHash !== undefined) account.codeHash = fields.codeHash;
    await this.putAccount(address, account);
  }

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.top().code.set(address.toString(), value);
    await this.modifyAccountFields(address, { codeHash: keccak256(value) });
  }

  async getCode(address: Address): Promise<Uint8Array> {
    const key = address.toString();
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const code = this.layers[i].code.get(key);
      if (code !== undefined) return code;
    }
    return this.readBaseCode(address);
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const account = address.toString();
    const slot = bytesToHex(key);
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const layer = this.layers[i];
      const value = layer.storage.get(account)?.get(slot);
      if (value !== undefined) return value;
      if (layer.cleared.has(account)) return EMPTY;
    }
    return this.baseStorageAt(address, key, account, slot);
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    const account = address.toString();
    const top = this.top();
    let slots = top.storage.get(account);
    if (slots === undefined) top.storage.set(account, (slots = new Map()));
    slots.set(bytesToHex(key), value);
  }

  async clearStorage(address: Address): Promise<void> {
    const account = address.toString();
    const top = this.top();
    top.cleared.add(account);
    top.storage.set(account, new Map());
  }

  async checkpoint(): Promise<void> {
    this.layers.push(newLayer());
  }

  async commit(): Promise<void> {
    if (this.layers.length < 2) return;
    const top = this.layers.pop()!;
    const below = this.top();
    for (const [k, v] of top.accounts) below.accounts.set(k, v);
    for (const [k, v] of top.code) below.code.set(k, v);
    for (const [account, slots] of top.storage) {
      if (top.cleared.has(account)) {
        below.cleared.add(account);
        below.storage.set(account, slots);
        continue;
      }
      let into = below.storage.get(account);
      if (into === undefined) below.storage.set(account, (into = new Map()));
      for (const [slot, value] of slots) into.set(slot, value);
    }
  }

  async revert(): Promise<void> {
    if (this.layers.length > 1) this.layers.pop();
    else this.reset();
  }

  getStateRoot(): Promise<Uint8Array> {
    return this.base.getStateRoot();
  }

  async setStateRoot(): Promise<void> {
    throw new Error('a call state view is fixed to one state root');
  }

  hasStateRoot(root: Uint8Array): Promise<boolean> {
    return this.base.hasStateRoot(root);
  }

  clearCaches(): void {
    this.baseAccounts.clear();
    this.baseCode.clear();
    this.baseStorage.clear();
  }

  shallowCopy(): StateManagerInterface {
    return new CallStateView(this.base);
  }

  // The base state without this view's writes, through the same caches: what a fast call
  // (src/execution/fastCall) loads into its own overlay.

  readBaseAccount(address: Address): Promise<Account | undefined> {
    return this.baseAccount(address, address.toString());
  }

  async readBaseCode(address: Address): Promise<Uint8Array> {
    const key = address.toString();
    let code = this.baseCode.get(key);
    if (code === undefined) {
      code = await this.base.getCode(address);
      this.remember(this.baseCode, key, code);
    }
    return code;
  }

  readBaseStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    return this.baseStorageAt(address, key);
  }

  private top(): Layer {
    return this.layers[this.layers.length - 1];
  }

  private async baseAccount(address: Address, key: string): Promise<Account | undefined> {
    if (this.baseAccounts.has(key)) return this.baseAccounts.get(key);
    const account = await this.base.getAccount(address);
    this.remember(this.baseAccounts, key, account);
    return account;
  }

  private async baseStorageAt(address: Address, key: Uint8Array, account = address.toString(), slot = bytesToHex(key)): Promise<Uint8Array> {
    const id = account + slot;
    let value = this.baseStorage.get(id);
    if (value === undefined) {
      value = (await this.baseAccount(address, account)) === undefined ? EMPTY : await this.base.getStorage(address, key);
      this.remember(this.baseStorage, id, value);
    }
    return value;
  }

  private remember<V>(cache: Map<string, V>, key: string, value: V): void {
    if (cache.size >= BASE_CACHE_LIMIT) cache.clear();
    cache.set(key, value);
  }
}
