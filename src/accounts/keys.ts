// Private keys and the dev accounts derived from a mnemonic (README "Accounts and keystore": BIP-39 seed, BIP-32
// path m/44'/314'/0'/0/i — 314 is MOAC's SLIP-44 coin type).

import { createHmac, pbkdf2Sync, webcrypto } from 'node:crypto';
import secp256k1 from 'secp256k1';
import { validateMnemonic } from 'ethereum-cryptography/bip39/index.js';
import { wordlist } from 'ethereum-cryptography/bip39/wordlists/english.js';
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
  const parent = derivePath(mnemonicSeed(phrase), DEV_KEY_PATH);
  const keys: Uint8Array[] = [];
  for (let i = 0; i < count; i++) keys.push(deriveChild(parent, i).key);
  return keys;
}

// BIP-39 seed and BIP-32 private derivation on node:crypto and the native secp256k1: the same
// keys as the JavaScript libraries (test/unit/accounts/keys.test.ts), about 100 times faster,
// which is most of a node's start-up otherwise.
interface ExtendedKey {
  key: Uint8Array;
  chainCode: Uint8Array;
}

function mnemonicSeed(phrase: string): Uint8Array {
  return pbkdf2Sync(phrase.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
}

function derivePath(seed: Uint8Array, keyPath: string): ExtendedKey {
  const master = createHmac('sha512', 'Bitcoin seed').update(seed).digest();
  let node = checkedKey(master.subarray(0, 32), master.subarray(32));
  for (const step of keyPath.split('/').slice(1)) {
    const hardened = step.endsWith("'");
    node = deriveChild(node, Number.parseInt(step, 10) + (hardened ? 0x80000000 : 0));
  }
  return node;
}

function deriveChild(parent: ExtendedKey, index: number): ExtendedKey {
  const data = new Uint8Array(37);
  if (index >= 0x80000000) data.set(parent.key, 1);
  else data.set(secp256k1.publicKeyCreate(parent.key, true), 0);
  new DataView(data.buffer).setUint32(33, index);
  const i = createHmac('sha512', parent.chainCode).update(data).digest();
  // (IL + k) mod n; throws for IL ≥ n or a zero key, which BIP-32 says to skip (probability ~2^-127).
  const key = secp256k1.privateKeyTweakAdd(Uint8Array.from(parent.key), i.subarray(0, 32));
  return checkedKey(key, i.subarray(32));
}

function checkedKey(key: Uint8Array, chainCode: Uint8Array): ExtendedKey {
  if (!secp256k1.privateKeyVerify(key)) throw new Error('BIP-32 derivation produced an invalid key');
  return { key: Uint8Array.from(key), chainCode: Uint8Array.from(chainCode) };
}
