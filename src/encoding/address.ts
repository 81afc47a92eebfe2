// Account addresses: derivation from a public key and the EIP-55 mixed-case display form.

import { keccak256 } from './bytes.js';

const HEX_DIGITS = '0123456789abcdef';

/** keccak256(pub[1:])[12:] of a 65-byte uncompressed public key (0x04 ‖ x ‖ y). */
export function publicKeyToAddress(publicKey: Uint8Array): Uint8Array {
  if (publicKey.length !== 65 || publicKey[0] !== 4) {
    throw new RangeError('expected a 65-byte uncompressed public key');
  }
  return keccak256(publicKey.subarray(1)).slice(12);
}

/** EIP-55: a hex digit is upper-cased when the matching nibble of keccak(lower-case hex) is ≥ 8. */
export function toChecksumAddress(address: Uint8Array): string {
  if (address.length !== 20) throw new RangeError(`address must be 20 bytes, got ${address.length}`);
  let lower = '';
  for (let i = 0; i < 20; i++) lower += HEX_DIGITS[address[i] >> 4] + HEX_DIGITS[address[i] & 15];
  const hash = keccak256(new TextEncoder().encode(lower));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = i % 2 === 0 ? hash[i >> 1] >> 4 : hash[i >> 1] & 15;
    out += nibble >= 8 ? lower[i].toUpperCase() : lower[i];
  }
  return out;
}
