// Private keys and the dev accounts derived from a mnemonic (README "Accounts and keystore": BIP-39 seed, BIP-32
// path m/44'/314'/0'/0/i — 314 is MOAC's SLIP-44 coin type).

import { webcrypto } from 'node:crypto';
import secp256k1 from 'secp256k1';
import { mnemonicToSeedSync, validateMnemonic } from 'ethereum-cryptography/bip39/index.js';
import { wordlist } from 'ethereum-cryptography/bip39/wordlists/english.js';
import { HDKey } from 'ethereum-cryptography/hdkey.js';
import { ConfigError } from '../errors.js';
import { publicKeyToAddress } from '../encoding/address.js';

export { publicKeyToAddress };

export const DEV_KEY_PATH = "m/44'/314'/0'/0";

export function privateKeyToAddress(privateKey: Uint8Array): Uint8Array {
  if (privateKey.length !== 32 || !secp256k1.privateKeyVerify(privateKey)) {
    throw new RangeError('invalid secp256k1 private key');
  }
  return publicKeyToAddress(secp256k1.publicKeyCreate(privateKey, false));
}

export function randomPrivateKey(): Uint8Array {
  for (;;) {
    const key = webcrypto.getRandomValues(new Uint8Array(32));
    // zero or ≥ the curve order: astronomically rare, but retry rather than fail
    if (secp256k1.privateKeyVerify(key)) return key;
  }
}

/** Keys at m/44'/314'/0'/0/0 … /count-1. Throws ConfigError for an invalid mnemonic. */
export function deriveDevKeys(mnemonic: string, count: number): Uint8Array[] {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`invalid dev account count: ${count}`);
  const words = mnemonic.trim().split(/\s+/);
  const phrase = words.join(' ');
  if (!validateMnemonic(phrase, wordlist)) {
    const unknown = words.find((w) => !wordlist.includes(w));
    const reason = unknown !== undefined
      ? `unknown word "${unknown}"`
      : ![12, 15, 18, 21, 24].includes(words.length)
        ? `${words.length} words (want 12, 15, 18, 21 or 24)`
        : 'checksum mismatch';
    throw new ConfigError(`invalid BIP-39 mnemonic (English word list): ${reason}`);
  }
  const parent = HDKey.fromMasterSeed(mnemonicToSeedSync(phrase)).derive(DEV_KEY_PATH);
  const keys: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const key = parent.deriveChild(i).privateKey;
    if (key === null) throw new Error(`no private key at ${DEV_KEY_PATH}/${i}`);
    keys.push(Uint8Array.from(key));
  }
  return keys;
}
