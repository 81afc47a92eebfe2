// The state a fast call reads and writes: accounts, code and storage of one state root, keyed by
// bigint address and slot, read synchronously. A read that is not cached yet returns undefined
// and names what is missing (`needKind`, `needAddress`, `needSlot`); the engine loads it with
// `load()` and runs the op again. Writes go to a per-call overlay with an undo journal, so a
// failed frame reverts exactly what it did, and `reset()` forgets the whole call.

import { Account, Address, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';
import { bytesToBigint, equalBytes, keccak256 } from '../../encoding/bytes.js';

/** Where the base values come from (a CallStateView: decoded and cached per state root). */
export interface BaseSource {
  readBaseAccount(address: Address): Promise<Account | undefined>;
  readBaseCode(address: Address): Promise<Uint8Array>;
  readBaseStorage(address: Address, key: Uint8Array): Promise<Uint8Array>;
}

export const NEED_ACCOUNT = 1;
export const NEED_CODE = 2;
export const NEED_STORAGE = 3;

const EMPTY = new Uint8Array(0);
/** Cached base entries (accounts + storage slots) before the cache starts over. */
const BASE_LIMIT = 50_000;

/** An account as stored under the root. */
export class BaseAccount {
  /** undefined until loaded */
  code: Uint8Array | undefined;
  /** the code hash is the empty code's */
  readonly noCode: boolean;
  readonly storage = new Map<bigint, bigint>();
  constructor(
    readonly exists: boolean,
    readonly nonce: bigint,
    readonly balance: bigint,
    readonly codeHash: Uint8Array,
    /** storage root is the empty trie's */
    readonly noStorage: boolean,
  ) {
    this.noCode = equalBytes(codeHash, KECCAK256_NULL);
    this.code = this.noCode ? EMPTY : undefined;
  }
}

const ABSENT = (): BaseAccount => new BaseAccount(false, 0n, 0n, KECCAK256_NULL, true);

/** An account as this call left it so far. */
export class CallAccount {
  exists: boolean;
  nonce: bigint;
  balance: bigint;
  /** set when this call deployed code */
  code: Uint8Array | undefined = undefined;
  /** slots written by this call */
  slots: Map<bigint, bigint> | undefined = undefined;
  /** storage cleared by a creation at this address */
  cleared = false;
  constructor(readonly base: BaseAccount) {
    this.exists = base.exists;
    this.nonce = base.nonce;
    this.balance = base.balance;
  }
}

// Journal entry kinds.
const J_EXISTS = 0;
const J_NONCE = 1;
const J_BALANCE = 2;
const J_CODE = 3;
const J_SLOT = 4;
const J_CLEAR = 5;
const J_WARM = 6;
const J_WARM_SLOT = 7;

interface Entry { kind: number; account: CallAccount | undefined; key: bigint; prev: unknown }

export class CallWorld {
  private readonly bases = new Map<bigint, BaseAccount>();
  private baseEntries = 0;
  private readonly overlay = new Map<bigint, CallAccount>();
  private readonly journal: Entry[] = [];
  /** addresses and slots accessed (EIP-2929) */
  private readonly warm = new Set<bigint>();
  private readonly warmSlots = new Map<bigint, Set<bigint>>();
  /** writes at depth 0 are never undone: only frames below it revert into the journal */
  journaling = false;

  needKind = 0;
  needAddress = 0n;
  needSlot = 0n;

  constructor(
    private readonly source: BaseSource,
    /** cached base entries (accounts and slots) before the cache starts over */
    private readonly limit = BASE_LIMIT,
  ) {}

  /** Forgets the call: overlay, journal, accessed sets. */
  reset(): void {
    // Map.clear() allocates a fresh table: a call touches a few accounts, deleted one by one.
    if (this.overlay.size > 16) this.overlay.clear();
    else for (const key of this.overlay.keys()) this.overlay.delete(key);
    if (this.journal.length !== 0) this.journal.length = 0;
    if (this.warm.size !== 0) this.warm.clear();
    if (this.warmSlots.size !== 0) this.warmSlots.clear();
    this.journaling = false;
    this.needKind = 0;
  }

  // --- reads: undefined when not cached yet (the need fields say what to load) ---

  /** The account as the call sees it, or undefined while its base is not loaded. */
  account(address: bigint): CallAccount | BaseAccount | undefined {
    if (this.overlay.size !== 0) {
      const a = this.overlay.get(address);
      if (a !== undefined) return a;
    }
    const base = this.bases.get(address);
    if (base === undefined) return this.miss(NEED_ACCOUNT, address, 0n);
    return base;
  }

  code(address: bigint): Uint8Array | undefined {
    const a = this.account(address);
    if (a === undefined) return undefined;
    if (a instanceof CallAccount) {
      if (a.code !== undefined) return a.code;
      const code = a.base.code;
      return code === undefined ? this.miss(NEED_CODE, address, 0n) : code;
    }
    return a.code === undefined ? this.miss(NEED_CODE, address, 0n) : a.code;
  }

  /** keccak of the code, as EXTCODEHASH reads it from the account. */
  codeHash(address: bigint): Uint8Array | undefined {
    const a = this.account(address);
    if (a === undefined) return undefined;
    if (a instanceof CallAccount) return a.code !== undefined ? keccak256(a.code) : a.base.codeHash;
    return a.codeHash;
  }

  storage(address: bigint, slot: bigint): bigint | undefined {
    let base: BaseAccount | undefined;
    const a = this.overlay.size !== 0 ? this.overlay.get(address) : undefined;
    if (a !== undefined) {
      if (a.slots !== undefined) {
        const v = a.slots.get(slot);
        if (v !== undefined) return v;
      }
      if (a.cleared) return 0n;
      base = a.base;
    } else {
      base = this.bases.get(address);
      if (base === undefined) return this.miss(NEED_ACCOUNT, address, 0n);
    }
    if (!base.exists) return 0n;
    const v = base.storage.get(slot);
    return v === undefined ? this.miss(NEED_STORAGE, address, slot) : v;
  }

  /** The value at the start of the call (what net gas metering calls the original value). */
  originalStorage(address: bigint, slot: bigint): bigint | undefined {
    const base = this.baseOf(address);
    if (base === undefined) return this.miss(NEED_ACCOUNT, address, 0n);
    if (!base.exists) return 0n;
    const v = base.storage.get(slot);
    return v === undefined ? this.miss(NEED_STORAGE, address, slot) : v;
  }

  /** The base entry a read of `address` uses (the overlay's, which outlives an eviction of the cache). */
  private baseOf(address: bigint): BaseAccount | undefined {
    return this.overlay.get(address)?.base ?? this.bases.get(address);
  }

  private miss(kind: number, address: bigint, slot: bigint): undefined {
    this.needKind = kind;
    this.needAddress = address;
    this.needSlot = slot;
    return undefined;
  }

  /** Loads what the last miss named. */
  async load(): Promise<void> {
    const kind = this.needKind;
    const address = this.needAddress;
    this.needKind = 0;
    if (this.baseEntries >= this.limit) {
      this.bases.clear();
      this.baseEntries = 0;
    }
    if (kind === NEED_ACCOUNT) {
      const account = await this.source.readBaseAccount(toAddress(address));
      this.bases.set(
        address,
        account === undefined
          ? ABSENT()
          : new BaseAccount(true, account.nonce, account.balance, account.codeHash, equalBytes(account.storageRoot, KECCAK256_RLP)),
      );
      this.baseEntries++;
      return;
    }
    const base = this.baseOf(address);
    if (base === undefined) return; // evicted meanwhile: the op misses again and loads the account
    if (kind === NEED_CODE) {
      base.code = await this.source.readBaseCode(toAddress(address));
    } else if (kind === NEED_STORAGE) {
      const slot = this.needSlot;
      const value = await this.source.readBaseStorage(toAddress(address), toWord(slot));
      base.storage.set(slot, bytesToBigint(value));
      this.baseEntries++;
    }
  }

  // --- writes (the account must have been read in this call first) ---

  private mutable(address: bigint): CallAccount {
    let a = this.overlay.get(address);
    if (a === undefined) {
      const base = this.bases.get(address);
      if (base === undefined) throw new Error('fast call: write to an account that was not read');
      a = new CallAccount(base);
      this.overlay.set(address, a);
    }
    return a;
  }

  private record(kind: number, account: CallAccount | undefined, key: bigint, prev: unknown): void {
    if (this.journaling) this.journal.push({ kind, account, key, prev });
  }

  /** Marks the account present, as the library's putAccount does. */
  touch(address: bigint): CallAccount {
    const a = this.mutable(address);
    if (!a.exists) {
      this.record(J_EXISTS, a, 0n, false);
      a.exists = true;
    }
    return a;
  }

  setBalance(address: bigint, balance: bigint): void {
    const a = this.touch(address);
    this.record(J_BALANCE, a, 0n, a.balance);
    a.balance = balance;
  }

  setNonce(address: bigint, nonce: bigint): void {
    const a = this.touch(address);
    this.record(J_NONCE, a, 0n, a.nonce);
    a.nonce = nonce;
  }

  setCode(address: bigint, code: Uint8Array): void {
    const a = this.touch(address);
    this.record(J_CODE, a, 0n, a.code);
    a.code = code;
  }

  setStorage(address: bigint, slot: bigint, value: bigint): void {
    const a = this.touch(address);
    if (a.slots === undefined) a.slots = new Map();
    this.record(J_SLOT, a, slot, a.slots.get(slot));
    a.slots.set(slot, value);
  }

  /** A creation at this address starts from empty storage. */
  clearStorage(address: bigint): void {
    const a = this.touch(address);
    this.record(J_CLEAR, a, 0n, { slots: a.slots, cleared: a.cleared });
    a.slots = undefined;
    a.cleared = true;
  }

  // --- EIP-2929 accessed sets ---

  isWarm(address: bigint): boolean {
    return this.warm.has(address);
  }

  warmAddress(address: bigint): void {
    if (this.warm.has(address)) return;
    this.warm.add(address);
    this.record(J_WARM, undefined, address, undefined);
  }

  /** Marks the slot accessed; true if it was already. */
  warmSlot(address: bigint, slot: bigint): boolean {
    let slots = this.warmSlots.get(address);
    if (slots === undefined) {
      this.warmAddress(address);
      this.warmSlots.set(address, (slots = new Set()));
    }
    if (slots.has(slot)) return true;
    slots.add(slot);
    this.record(J_WARM_SLOT, undefined, address, slot);
    return false;
  }

  isWarmSlot(address: bigint, slot: bigint): boolean {
    return this.warmSlots.get(address)?.has(slot) === true;
  }

  // --- frames ---

  checkpoint(): number {
    return this.journal.length;
  }

  /** Undoes every write since `mark`. */
  revert(mark: number): void {
    const journal = this.journal;
    for (let i = journal.length - 1; i >= mark; i--) {
      const e = journal[i];
      const a = e.account!;
      switch (e.kind) {
        case J_EXISTS: a.exists = e.prev as boolean; break;
        case J_NONCE: a.nonce = e.prev as bigint; break;
        case J_BALANCE: a.balance = e.prev as bigint; break;
        case J_CODE: a.code = e.prev as Uint8Array | undefined; break;
        case J_SLOT:
          if (e.prev === undefined) a.slots!.delete(e.key);
          else a.slots!.set(e.key, e.prev as bigint);
          break;
        case J_CLEAR: {
          const prev = e.prev as { slots: Map<bigint, bigint> | undefined; cleared: boolean };
          a.slots = prev.slots;
          a.cleared = prev.cleared;
          break;
        }
        case J_WARM: this.warm.delete(e.key); break;
        case J_WARM_SLOT: this.warmSlots.get(e.key)?.delete(e.prev as bigint); break;
      }
    }
    journal.length = mark;
  }
}

/** The library's Account.isEmpty(): no nonce, no balance, no code. */
export function isEmptyAccount(a: CallAccount | BaseAccount): boolean {
  if (a.nonce !== 0n || a.balance !== 0n) return false;
  if (a instanceof CallAccount) return a.code !== undefined ? a.code.length === 0 : a.base.noCode;
  return a.noCode;
}

export function toAddress(address: bigint): Address {
  return new Address(toBytes(address, 20));
}

export function toWord(value: bigint): Uint8Array {
  return toBytes(value, 32);
}

function toBytes(value: bigint, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let v = value;
  for (let i = length - 1; i >= 0 && v !== 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}
