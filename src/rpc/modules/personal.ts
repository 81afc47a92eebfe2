// personal_* (docs/methods.md#accounts-and-keystore): keystore accounts, unlocking, and one-shot
// signing with a password. The rules live in accounts/keyManager.ts.

import { hashMessage, recoverHashSigner } from '../../accounts/messages.js';
import type { KeyManager } from '../../accounts/keyManager.js';
import { DEFAULT_UNLOCK_SECONDS } from '../../accounts/keyManager.js';
import { bytesToHex, hexToBytes } from '../../encoding/hex.js';
import { ParamError, address, count, data, method, string, withDefault, type Codec } from '../params.js';
import type { RpcMethod } from '../types.js';
import type { McBackend } from '../backend.js';
import { txRequest } from './mc/transactions.js';

/** A raw private key, with or without 0x (chain3 documents it without). */
const rawKey: Codec<Uint8Array> = (v, i) => {
  if (typeof v !== 'string' || !/^(0x)?[0-9a-fA-F]{64}$/.test(v)) {
    throw new ParamError(i, `expected a 32-byte hex private key`);
  }
  return hexToBytes(v.startsWith('0x') ? v : '0x' + v);
};

export function personalMethods(keys: KeyManager, backend: McBackend): Record<string, RpcMethod> {
  return {
    personal_listAccounts: method([], () => keys.accounts().map(bytesToHex)),
    personal_newAccount: method([string], async (password) => bytesToHex(await keys.newAccount(password))),
    personal_importRawKey: method([rawKey, string], async (key, password) => {
      try {
        return bytesToHex(await keys.importRawKey(key, password));
      } catch (err) {
        if (err instanceof RangeError) throw new ParamError(0, 'not a valid secp256k1 private key');
        throw err;
      }
    }),
    personal_unlockAccount: method(
      [address, string, withDefault(count, DEFAULT_UNLOCK_SECONDS)],
      (addr, password, seconds) => keys.unlock(addr, password, seconds),
    ),
    personal_lockAccount: method([address], (addr) => keys.lock(addr)),
    personal_sign: method([data, address, string], async (message, addr, password) => {
      const key = await keys.keyWithPassword(addr, password);
      return bytesToHex(backend.signMessage(addr, message, key));
    }),
    personal_ecRecover: method([data, data], (message, signature) =>
      bytesToHex(recoverHashSigner(hashMessage(message), signature)),
    ),
    // Signs with the key the password opens, with mc_sendTransaction's defaults.
    personal_sendTransaction: method([txRequest, string], async (req, password) => {
      const key = req.from && (await keys.keyWithPassword(req.from, password));
      return bytesToHex((await backend.sendTransaction(req, key)).hash);
    }),
  };
}
