// Byte helpers shared by every layer: big-endian integers, comparison, concatenation, keccak.

// keccak256 runs on WebAssembly (keccak.ts); re-exported here so every layer has one import.
export { keccak256 } from './keccak.js';
import { bytesToHex, hexToBytes } from './hex.js';

/** Minimal big-endian bytes (0 → empty), as RLP wants integers. */
export function bigintToBytes(value: bigint): Uint8Array {
  if (value < 0n) throw new RangeError('negative integer');
  if (value === 0n) return new Uint8Array();
  // Nonces, gas, timestamps: small enough for exact Number arithmetic, no string in between.
  if (value <= MAX_SMALL) {
    let n = Number(value);
    let length = 0;
    for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) length++;
    const out = new Uint8Array(length);
    for (let i = length - 1; i >= 0; i--) {
      out[i] = n % 256;
      n = Math.floor(n / 256);
    }
    return out;
  }
  let hex = value.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  return hexToBytes(hex);
}

/** 2^48 - 1: integers up to here convert through Number exactly. */
const MAX_SMALL = 0xffff_ffff_ffffn;

/** Big-endian bytes left-padded to `length`. */
export function bigintToFixed(value: bigint, length: number): Uint8Array {
  const minimal = bigintToBytes(value);
  if (minimal.length > length) throw new RangeError(`integer does not fit ${length} bytes`);
  const out = new Uint8Array(length);
  out.set(minimal, length - minimal.length);
  return out;
}

export function bytesToBigint(bytes: Uint8Array): bigint {
  // Up to 6 bytes in a Number; up to 64 (addresses, words, hashes) 8 bytes at a time; longer
  // ones through one hex string instead of a BigInt per byte.
  const length = bytes.length;
  if (length <= 6) {
    let n = 0;
    for (let i = 0; i < length; i++) n = n * 256 + bytes[i];
    return BigInt(n);
  }
  if (length <= 64) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, length);
    // the bytes before the 8-byte chunks: at most 6 in a Number, 7 as 3 + 4
    const head = length % 8;
    const inNumber = head === 7 ? 3 : head;
    let i = 0;
    let n = 0;
    for (; i < inNumber; i++) n = n * 256 + bytes[i];
    let r = BigInt(n);
    if (head === 7) {
      r = (r << 32n) | BigInt(view.getUint32(i));
      i += 4;
    }
    for (; i < length; i += 8) r = (r << 64n) | view.getBigUint64(i);
    return r;
  }
  return BigInt(bytesToHex(bytes));
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

export const ZERO_HASH = new Uint8Array(32);
