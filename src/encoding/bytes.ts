// Byte helpers shared by every layer: big-endian integers, comparison, concatenation, keccak.

// keccak256 runs on WebAssembly (keccak.ts); re-exported here so every layer has one import.
export { keccak256 } from './keccak.js';

/** Minimal big-endian bytes (0 → empty), as RLP wants integers. */
export function bigintToBytes(value: bigint): Uint8Array {
  if (value < 0n) throw new RangeError('negative integer');
  if (value === 0n) return new Uint8Array();
  let hex = value.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Big-endian bytes left-padded to `length`. */
export function bigintToFixed(value: bigint, length: number): Uint8Array {
  const minimal = bigintToBytes(value);
  if (minimal.length > length) throw new RangeError(`integer does not fit ${length} bytes`);
  const out = new Uint8Array(length);
  out.set(minimal, length - minimal.length);
  return out;
}

export function bytesToBigint(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = 0; i < bytes.length; i++) n = (n << 8n) | BigInt(bytes[i]);
  return n;
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
