// The one hex codec of the node: QUANTITY, DATA and TAG rules (docs/methods.md#encodings).
// Decoders return typed values or throw a DecodeError with the reason (rpc/params.ts names the
// argument); encoders always produce the canonical form (compact QUANTITY, even-length lower-case DATA).

import { DecodeError } from '../errors.js';

const HEX_DIGITS = '0123456789abcdef';
const BYTE_TO_HEX: string[] = Array.from({ length: 256 }, (_, i) => HEX_DIGITS[i >> 4] + HEX_DIGITS[i & 15]);
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX_VALUE[HEX_DIGITS.charCodeAt(i)] = i;
  HEX_VALUE[HEX_DIGITS.toUpperCase().charCodeAt(i)] = i;
}

export type BlockTag = bigint | 'earliest' | 'latest' | 'pending';

/** Bytes to `0x`-prefixed lower-case hex. */
export function bytesToHex(bytes: Uint8Array): string {
  let out = '0x';
  for (let i = 0; i < bytes.length; i++) out += BYTE_TO_HEX[bytes[i]];
  return out;
}

/** Hex without validation messages: for internal use on strings we produced ourselves. */
export function hexToBytes(hex: string): Uint8Array {
  const body = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  const bytes = parseHexBody(body);
  if (bytes === undefined) throw new Error(`not hex: ${hex.slice(0, 80)}`);
  return bytes;
}

function parseHexBody(body: string): Uint8Array | undefined {
  if (body.length % 2 !== 0) return undefined;
  const out = new Uint8Array(body.length / 2);
  for (let i = 0; i < out.length; i++) {
    const c1 = body.charCodeAt(2 * i);
    const c2 = body.charCodeAt(2 * i + 1);
    const hi = c1 < 128 ? HEX_VALUE[c1] : -1;
    const lo = c2 < 128 ? HEX_VALUE[c2] : -1;
    if (hi < 0 || lo < 0) return undefined;
    out[i] = (hi << 4) | lo;
  }
  return out;
}

export function encodeQuantity(value: bigint | number): string {
  if (value < 0) throw new RangeError('negative quantity');
  return '0x' + value.toString(16);
}

/** A 32-byte value as DATA, left-padded (storage slots, targets). */
export function encodeWord(value: bigint): string {
  return '0x' + value.toString(16).padStart(64, '0');
}

const fail = (reason: string): DecodeError => new DecodeError(reason);

function requireHexString(value: unknown): string {
  if (typeof value !== 'string') throw fail(`expected a hex string, got ${describe(value)}`);
  if (!(value.startsWith('0x') || value.startsWith('0X'))) throw fail('hex string without 0x prefix');
  return value.slice(2);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/** QUANTITY: 0x-prefixed, at least one digit, no leading zeros (except `0x0`), at most 256 bits. */
export function decodeQuantity(value: unknown, maxBits = 256): bigint {
  const body = requireHexString(value);
  if (body.length === 0) throw fail(`hex string "0x" has no digits`);
  if (body.length > 1 && body[0] === '0') throw fail(`hex number with leading zero digits`);
  if (body.length > Math.ceil(maxBits / 4)) throw fail(`hex number > ${maxBits} bits`);
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c >= 128 || HEX_VALUE[c] < 0) throw fail(`invalid hex string`);
  }
  const n = BigInt('0x' + body);
  if (maxBits < 256 && n >> BigInt(maxBits) !== 0n) throw fail(`hex number > ${maxBits} bits`);
  return n;
}

/** A QUANTITY that must fit a JS number (indexes, counts, block numbers). */
export function decodeUint64(value: unknown): bigint {
  return decodeQuantity(value, 64);
}

/** DATA: 0x-prefixed, even number of hex digits; optionally an exact byte length. */
export function decodeData(value: unknown, length?: number): Uint8Array {
  const body = requireHexString(value);
  if (body.length % 2 !== 0) throw fail(`hex string has odd length`);
  const bytes = parseHexBody(body);
  if (bytes === undefined) throw fail(`invalid hex string`);
  if (length !== undefined && bytes.length !== length) {
    throw fail(`hex string has length ${body.length}, want ${length * 2} for ${length}-byte value`);
  }
  return bytes;
}

/**
 * A storage position: any hex of 1 to 64 digits, leading zeros and odd length allowed (a mapping
 * slot is a keccak hash passed as is, as geth accepts it), left-padded to 32 bytes.
 */
export function decodeStorageSlot(value: unknown): Uint8Array {
  const body = requireHexString(value);
  if (body.length === 0) throw fail(`hex string "0x" has no digits`);
  if (body.length > 64) throw fail(`hex string too long, want at most 32 bytes`);
  const bytes = parseHexBody(body.padStart(64, '0'));
  if (bytes === undefined) throw fail(`invalid hex string`);
  return bytes;
}

export const decodeAddress = (value: unknown): Uint8Array => decodeData(value, 20);
export const decodeHash = (value: unknown): Uint8Array => decodeData(value, 32);

/** TAG: a QUANTITY block number or one of `earliest`, `latest`, `pending`. */
export function decodeBlockTag(value: unknown): BlockTag {
  if (value === 'latest' || value === 'earliest' || value === 'pending') return value;
  if (typeof value === 'string' && !value.startsWith('0x') && !value.startsWith('0X')) {
    throw fail(`unknown block tag "${value.slice(0, 40)}" (want a hex number, earliest, latest or pending)`);
  }
  return decodeUint64(value);
}
