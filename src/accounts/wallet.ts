// Keys the node signs with: the dev accounts (unlocked by design: their keys are public test
// keys) and any account unlocked at run time. The keystore files live in keystore.ts.

import type { SignedTx, TxFields } from '../chain/types.js';
import { signTransaction } from '../chain/transaction.js';
import { NodeError, ErrorKind } from '../errors.js';
import { bytesToHex } from '../encoding/hex.js';
import { hashMessage, signHash } from './messages.js';
import { privateKeyToAddress } from './keys.js';

export const authenticationNeeded = (): NodeError =>
  new NodeError(ErrorKind.Unauthorized, 'authentication needed: password or unlock');

interface Unlocked {
  key: Uint8Array;
  /** ms since epoch; undefined = until the node stops */
  until?: number;
  /** a dev account or extra key: no keystore file, never locked */
  permanent?: boolean;
}

export class Wallet {
  private readonly unlocked = new Map<string, Unlocked>();
  /** Accounts the node owns, in the order mc_accounts lists them. */
  private readonly owned: Uint8Array[] = [];

  constructor(private readonly chainId: bigint) {}

  /** Adds an owned account; `unlocked` keeps its key usable without a password. */
  /** `address`, when the caller has it, must be the key's (the dev accounts' table). */
  addAccount(key: Uint8Array, unlocked: boolean, address = privateKeyToAddress(key)): Uint8Array {
    const hex = bytesToHex(address);
    if (!this.owned.some((a) => bytesToHex(a) === hex)) this.owned.push(address);
    if (unlocked) this.unlocked.set(hex, { key, permanent: true });
    return address;
  }

  /** Registers an owned account whose key is on disk only (locked). */
  addLockedAddress(address: Uint8Array): void {
    const hex = bytesToHex(address);
    if (!this.owned.some((a) => bytesToHex(a) === hex)) this.owned.push(address);
  }

  accounts(): Uint8Array[] {
    return [...this.owned];
  }

  /** The first owned account (calls without `from` run as it), without copying the list. */
  firstAccount(): Uint8Array | undefined {
    return this.owned[0];
  }

  owns(address: Uint8Array): boolean {
    const hex = bytesToHex(address);
    return this.owned.some((a) => bytesToHex(a) === hex);
  }

  /** The key of a dev account (always unlocked, no password), if `address` is one. */
  permanentKey(address: Uint8Array): Uint8Array | undefined {
    const entry = this.unlocked.get(bytesToHex(address));
    return entry?.permanent ? entry.key : undefined;
  }

  /** `seconds` 0 or undefined: until the node stops. A dev account stays as it is. */
  unlock(address: Uint8Array, key: Uint8Array, seconds: number | undefined): void {
    const hex = bytesToHex(address);
    if (this.unlocked.get(hex)?.permanent) return;
    this.unlocked.set(hex, { key, until: seconds ? Date.now() + seconds * 1000 : undefined });
  }

  /** Forgets an unlocked key; dev accounts stay unlocked by design. */
  lock(address: Uint8Array): boolean {
    const hex = bytesToHex(address);
    if (this.unlocked.get(hex)?.permanent) return false;
    return this.unlocked.delete(hex);
  }

  /** Whether an unlocked key of `address` is held now. */
  canSign(address: Uint8Array): boolean {
    const entry = this.unlocked.get(bytesToHex(address));
    return entry !== undefined && (entry.until === undefined || entry.until >= Date.now());
  }

  /** The key of an unlocked account, or an Unauthorized error. */
  keyOf(address: Uint8Array): Uint8Array {
    const hex = bytesToHex(address);
    const entry = this.unlocked.get(hex);
    if (!entry) throw authenticationNeeded();
    if (entry.until !== undefined && entry.until < Date.now()) {
      this.unlocked.delete(hex);
      throw authenticationNeeded();
    }
    return entry.key;
  }

  signTransaction(fields: TxFields, from: Uint8Array, key = this.keyOf(from)): SignedTx {
    return signTransaction(fields, key, this.chainId);
  }

  /** mc_sign: r‖s‖v over the MoacNode-prefixed message hash. */
  signMessage(address: Uint8Array, message: Uint8Array, key = this.keyOf(address)): Uint8Array {
    return signHash(hashMessage(message), key);
  }

  /** eth_signTypedData_v4: r‖s‖v over a digest the caller computed (EIP-712), no prefix added. */
  signDigest(address: Uint8Array, digest: Uint8Array, key = this.keyOf(address)): Uint8Array {
    return signHash(digest, key);
  }
}
