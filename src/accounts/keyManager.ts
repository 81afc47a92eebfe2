// The personal_* rules over the keystore and the wallet (docs/methods.md#accounts-and-keystore): new and imported accounts,
// unlocking for a while or until the node stops, one-shot use with a password, and geth's rule
// that nothing is unlocked while an HTTP endpoint runs unless insecure unlock is allowed.

import fs from 'node:fs';
import { ConfigError, ErrorKind, NodeError, outOfRange } from '../errors.js';
import { bytesToHex } from '../encoding/hex.js';
import type { Keystore } from './keystore.js';
import type { Wallet } from './wallet.js';

/** geth's bound: the duration must fit an int64 of nanoseconds. */
export const MAX_UNLOCK_SECONDS = 9_223_372_036;
export const DEFAULT_UNLOCK_SECONDS = 300;

export const unlockForbiddenError = (): NodeError => new NodeError(ErrorKind.Unauthorized, 'account unlock with HTTP access is forbidden');

export interface KeyManagerOptions {
  keystore: Keystore;
  wallet: Wallet;
  allowInsecureUnlock: boolean;
  /** true while an HTTP endpoint runs */
  httpRunning: () => boolean;
}

export class KeyManager {
  constructor(private readonly o: KeyManagerOptions) {}

  /** geth's rule: an unlocked account is usable over HTTP however it was unlocked. */
  private unlockForbidden(httpRunning = this.o.httpRunning()): boolean {
    return httpRunning && !this.o.allowInsecureUnlock;
  }

  /** Registers every keystore account with the wallet (locked). */
  async loadKeystore(): Promise<number> {
    const entries = await this.o.keystore.list();
    for (const e of entries) this.o.wallet.addLockedAddress(e.address);
    return entries.length;
  }

  accounts(): Uint8Array[] {
    return this.o.wallet.accounts();
  }

  async newAccount(password: string): Promise<Uint8Array> {
    const { address } = await this.o.keystore.newAccount(password);
    this.o.wallet.addLockedAddress(address);
    return address;
  }

  async importRawKey(privateKey: Uint8Array, password: string): Promise<Uint8Array> {
    const { address } = await this.o.keystore.importKey(privateKey, password);
    this.o.wallet.addLockedAddress(address);
    return address;
  }

  /** `seconds` 0 = until the node stops. Dev accounts are always unlocked: true, password unused. */
  async unlock(address: Uint8Array, password: string, seconds: number): Promise<boolean> {
    if (this.unlockForbidden()) throw unlockForbiddenError();
    if (seconds > MAX_UNLOCK_SECONDS) throw outOfRange('unlock duration too large');
    if (this.o.wallet.permanentKey(address) && !(await this.o.keystore.find(address))) return true;
    const key = await this.o.keystore.decrypt(address, password);
    this.o.wallet.unlock(address, key, seconds);
    return true;
  }

  /** geth answers true whether or not the account was unlocked. */
  lock(address: Uint8Array): boolean {
    this.o.wallet.lock(address);
    return true;
  }

  /** The key for one signature (personal_sign / personal_sendTransaction); nothing stays unlocked. */
  async keyWithPassword(address: Uint8Array, password: string): Promise<Uint8Array> {
    if (await this.o.keystore.find(address)) return this.o.keystore.decrypt(address, password);
    const dev = this.o.wallet.permanentKey(address);
    if (dev) return dev;
    return this.o.keystore.decrypt(address, password); // throws "no key for given address or file"
  }

  /**
   * `--unlock` with `--password`: the i-th account takes the i-th password (or the last one).
   * Runs before the endpoints start, so it is told whether HTTP is about to run.
   */
  async unlockAtStart(addresses: Uint8Array[], passwordFile: string | undefined, httpWillRun: boolean): Promise<void> {
    if (addresses.length === 0) return;
    if (this.unlockForbidden(httpWillRun)) throw new ConfigError('account unlock with HTTP access is forbidden (give --allow-insecure-unlock or --rpc=false)');
    if (passwordFile === undefined) throw new ConfigError('--unlock needs --password <file> (one password per line)');
    const passwords = readPasswordFile(passwordFile);
    for (const [i, address] of addresses.entries()) {
      const password = passwords[Math.min(i, passwords.length - 1)] ?? '';
      try {
        await this.unlock(address, password, 0);
      } catch (err) {
        throw new ConfigError(`cannot unlock ${bytesToHex(address)}: ${(err as Error).message}`);
      }
    }
  }
}

/** One password per line; DOS line ends tolerated; a final newline does not add an empty password. */
export function readPasswordFile(file: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read password file ${file}: ${(err as Error).message}`);
  }
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
