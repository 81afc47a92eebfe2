// The SCS id: the account in `<datadir>/scskeystore`, created on first start (a Web3 Secret
// Storage v3 file, readable by the real scsserver's tools), stable across restarts.

import path from 'node:path';
import { Keystore, LIGHT_SCRYPT } from '../accounts/keystore.js';

/** The real scsserver's default keystore password. */
export const SCS_KEYSTORE_PASSWORD = 'moacscsofflineaccountpwd';

export async function loadOrCreateScsId(datadir: string): Promise<Uint8Array> {
  const keystore = new Keystore(path.join(datadir, 'scskeystore'), LIGHT_SCRYPT);
  const [first] = await keystore.list();
  if (first) return first.address;
  return (await keystore.newAccount(SCS_KEYSTORE_PASSWORD)).address;
}
