// Private keys and the dev accounts derived from a mnemonic (docs/methods.md#accounts-and-keystore: BIP-39 seed, BIP-32
// path m/44'/314'/0'/0/i — 314 is MOAC's SLIP-44 coin type). Public keys come from node:crypto
// (OpenSSL's secp256k1): start-up derives addresses without loading the native secp256k1 addon,
// which signing and recovery load on first use (chain/secp256k1.ts).

import { createECDH, createHmac, pbkdf2Sync, webcrypto } from 'node:crypto';
import { validateMnemonic } from 'ethereum-cryptography/bip39/index.js';
import { wordlist } from 'ethereum-cryptography/bip39/wordlists/english.js';
import { ConfigError } from '../errors.js';
import { publicKeyToAddress } from '../encoding/address.js';
import { bigintToFixed, bytesToBigint } from '../encoding/bytes.js';
import { SECP256K1_N } from '../chain/secp256k1.js';
import { DEFAULT_DEV_MNEMONIC, defaultDevAccounts } from './defaultDevKeys.js';

export { publicKeyToAddress };

export const DEV_KEY_PATH = "m/44'/314'/0'/0";

/** True for 32 bytes that are a valid secp256k1 private key (0 < k < n). */
export function isPrivateKey(key: Uint8Array): boolean {
  if (key.length !== 32) return false;
  const k = bytesToBigint(key);
  return k > 0n && k < SECP256K1_N;
}

/** The public key of a valid private key: 65 bytes uncompressed (0x04 ‖ x ‖ y) or 33 compressed. */
export function publicKeyOf(privateKey: Uint8Array, compressed = false): Uint8Array {
  if (!isPrivateKey(privateKey)) throw new RangeError('invalid secp256k1 private key');
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(privateKey);
  return new Uint8Array(ecdh.getPublicKey(null, compressed ? 'compressed' : 'uncompressed'));
}

export function privateKeyToAddress(privateKey: Uint8Array): Uint8Array {
  return publicKeyToAddress(publicKeyOf(privateKey));
}

export function randomPrivateKey(): Uint8Array {
  for (;;) {
    const key = webcrypto.getRandomValues(new Uint8Array(32));
    // zero or ≥ the curve order: astronomically rare, but retry rather than fail
    if (isPrivateKey(key)) return key;
  }
}

export interface DevAccountKey {
  privateKey: Uint8Array;
  address: Uint8Array;
}

/**
 * Dev accounts at m/44'/314'/0'/0/0 … /count-1 with their addresses. The default mnemonic's first
 * ten are a table (defaultDevKeys.ts; a test derives them again): deriving them took ~5 ms of
 * PBKDF2 and the addresses ~20 ms of keccak in not yet compiled JavaScript at every start.
 */
export function deriveDevAccounts(mnemonic: string, count: number): DevAccountKey[] {
  if (Number.isSafeInteger(count) && count >= 0 && count <= defaultDevAccounts.length && mnemonic.trim().split(/\s+/).join(' ') === DEFAULT_DEV_MNEMONIC) {
    return defaultDevAccounts.slice(0, count).map(([privateKey, address]) => ({ privateKey: privateKey.slice(), address: address.slice() }));
  }
  return deriveDevKeys(mnemonic, count).map((privateKey) => ({ privateKey, address: privateKeyToAddress(privateKey) }));
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
  const parentPublic = publicKeyOf(parent.key, true); // the same for every child
  const keys: Uint8Array[] = [];
  for (let i = 0; i < count; i++) keys.push(deriveChild(parent, i, parentPublic).key);
  return keys;
}

// BIP-39 seed and BIP-32 private derivation on node:crypto: the same keys as the JavaScript
// libraries (test/unit/accounts/keys.test.ts), about 100 times faster.
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

function deriveChild(parent: ExtendedKey, index: number, parentPublic?: Uint8Array): ExtendedKey {
  const data = new Uint8Array(37);
  if (index >= 0x80000000) data.set(parent.key, 1);
  else data.set(parentPublic ?? publicKeyOf(parent.key, true), 0);
  new DataView(data.buffer).setUint32(33, index);
  const i = createHmac('sha512', parent.chainCode).update(data).digest();
  // (IL + k) mod n; IL ≥ n or a zero key, which BIP-32 says to skip, has probability ~2^-127: it throws.
  const tweak = bytesToBigint(i.subarray(0, 32));
  if (tweak >= SECP256K1_N) throw new Error('BIP-32 derivation produced an invalid key');
  return checkedKey(bigintToFixed((tweak + bytesToBigint(parent.key)) % SECP256K1_N, 32), i.subarray(32));
}

function checkedKey(key: Uint8Array, chainCode: Uint8Array): ExtendedKey {
  if (!isPrivateKey(key)) throw new Error('BIP-32 derivation produced an invalid key');
  return { key: Uint8Array.from(key), chainCode: Uint8Array.from(chainCode) };
}
