// The SCS id: the account in `<datadir>/scskeystore`, created on first start (a Web3 Secret
// Storage v3 file, readable by the real scsserver's tools), stable across restarts.

import path from 'node:path';
import { Keystore, LIGHT_SCRYPT } from '../accounts/keystore.js';

/** The real scsserver's default keystore password. */
export const SCS_KEYSTORE_PASSWORD = 'moacscsofflineaccountpwd';

export interface ScsId {
  id: Uint8Array;
  /**
   * Writes a new key file on the first call (an existing one is there already); resolves once it
   * is on disk, rejects if it cannot be written. Every call answers the same promise.
   */
  stored: () => Promise<void>;
}

/**
 * The SCS id of `datadir`, reading its key file or creating one. A new key file is written when
 * first needed, after the main endpoint opens (its scrypt takes ~30-50 ms of a core): nothing may
 * name the id outside the process (app-chain data, the SCS endpoint) before `stored()` resolves,
 * so a restart finds the same id.
 */
export async function openScsId(datadir: string): Promise<ScsId> {
  const keystore = new Keystore(path.join(datadir, 'scskeystore'), LIGHT_SCRYPT);
  const [first] = await keystore.list();
  if (first) return { id: first.address, stored: () => Promise.resolve() };
  const { address, store } = keystore.createAccount(SCS_KEYSTORE_PASSWORD);
  let writing: Promise<void> | undefined;
  return { id: address, stored: () => (writing ??= store().then(() => undefined)) };
}
