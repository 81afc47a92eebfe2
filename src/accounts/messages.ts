// mc_sign / personal_sign (vectors of the real client in test/rpc/personal/personal.test.ts): MOAC's prefixed message hash and 65-byte r‖s‖v
// signatures with v = 27/28.

import { secp256k1 } from '../chain/secp256k1.js';
import { invalidParams, invalidSignature } from '../errors.js';
import { concatBytes, keccak256 } from '../encoding/bytes.js';
import { publicKeyToAddress } from '../encoding/address.js';

const PREFIX = new TextEncoder().encode('\x19MoacNode Signed Message:\n');

/** keccak256("\x19MoacNode Signed Message:\n" ‖ decimal byte length ‖ message). */
export function hashMessage(message: Uint8Array): Uint8Array {
  const length = new TextEncoder().encode(String(message.length));
  return keccak256(concatBytes(PREFIX, length, message));
}

/** Deterministic (RFC 6979) signature of a 32-byte hash: r ‖ s ‖ v with v = 27 + recovery. */
export function signHash(hash: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const { signature, recid } = secp256k1().ecdsaSign(hash, privateKey);
  const out = new Uint8Array(65);
  out.set(signature);
  out[64] = 27 + recid;
  return out;
}

/** The address that produced `signature` over `hash` (personal_ecRecover). */
export function recoverHashSigner(hash: Uint8Array, signature: Uint8Array): Uint8Array {
  if (hash.length !== 32) throw invalidParams('hash must be 32 bytes long');
  if (signature.length !== 65) throw invalidParams('signature must be 65 bytes long');
  const v = signature[64];
  if (v !== 27 && v !== 28) throw invalidSignature('invalid MoacNode signature (V is not 27 or 28)');
  let publicKey: Uint8Array;
  try {
    publicKey = secp256k1().ecdsaRecover(signature.subarray(0, 64), v - 27, hash, false);
  } catch {
    throw invalidSignature('invalid signature: recovery failed');
  }
  return publicKeyToAddress(publicKey);
}
