// The SCS id: the account in `<datadir>/scskeystore`, created on first start (a Web3 Secret
// Storage v3 file, readable by the real scsserver's tools), stable across restarts.

import path from 'node:path';
import { Keystore, LIGHT_SCRYPT } from '../accounts/keystore.js';

/** The real scsserver's default keystore password. */
export const SCS_KEYSTORE_PASSWORD = 'moacscsofflineaccountpwd';

export interface ScsId {
  id: Uint8Array;
  /** resolves once the key file is on disk (at once for an existing one); rejects if it cannot be written */
  stored: Promise<void>;
}

/**
 * The SCS id of `datadir`, reading its key file or creating one. A new key file is written in the
 * background (its scrypt takes tens of milliseconds): nothing may name the id outside the process
 * (app-chain data, the SCS endpoint) before `stored` resolves, so a restart finds the same id.
 */
export async function openScsId(datadir: string): Promise<ScsId> {
  const keystore = new Keystore(path.join(datadir, 'scskeystore'), LIGHT_SCRYPT);
  const [first] = await keystore.list();
  if (first) return { id: first.address, stored: Promise.resolve() };
  const { address, stored } = keystore.createAccount(SCS_KEYSTORE_PASSWORD);
  const done = stored.then(() => undefined);
  done.catch(() => undefined); // the waiters see a failure; it is not an unhandled rejection meanwhile
  return { id: address, stored: done };
}
