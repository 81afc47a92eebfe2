// Codecs of configuration values: each decodes a raw value (JSON from a config file, or a string
// from a flag or an environment variable) into its typed form, or throws BadValue saying what
// was expected. The loader adds the key, the value and where it came from.

import type { GenesisAlloc } from '../blockchain/genesisSpec.js';
import { parseDuration } from '../encoding/duration.js';

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** Thrown by a codec; the loader adds the key, the value and where the value came from. */
export class BadValue extends Error {
  constructor(
    readonly expected: string,
    /** set when the bad part is inside the value (an alloc entry, a list item) */
    readonly at?: { path: string; value: unknown },
  ) {
    super(`expected ${expected}`);
  }
}

export interface Codec<T> {
  /** value placeholder shown by --help; '' for booleans */
  readonly arg: string;
  readonly expected: string;
  /** booleans may stand alone on the command line (`--mine`) */
  readonly bool?: boolean;
  /** the flag may be given several times: its values form a list */
  readonly repeatable?: boolean;
  decode(raw: unknown): T;
}

/** Decode a part of a value, naming its path in the error. */
export function decodeAt<T>(path: string, value: unknown, codec: Codec<T>): T {
  try {
    return codec.decode(value);
  } catch (err) {
    if (!(err instanceof BadValue)) throw err;
    const inner = err.at ? { path: [path, err.at.path].filter((p) => p !== '').join('.'), value: err.at.value } : { path, value };
    throw new BadValue(err.expected, inner);
  }
}

/** Non-negative integers from JSON numbers, decimal strings or 0x hex strings (and bigints, in the library's options). */
export function toBigint(raw: unknown): bigint | undefined {
  if (typeof raw === 'bigint') return raw >= 0n ? raw : undefined;
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw >= 0 ? BigInt(raw) : undefined;
  if (typeof raw !== 'string') return undefined;
  const s = raw.trim();
  return /^[0-9]+$/.test(s) || /^0x[0-9a-f]+$/i.test(s) ? BigInt(s) : undefined;
}

/** 2^64-1 reads better than its 20 digits. */
function showBound(n: bigint): string {
  const bits = (n + 1n).toString(2).length - 1;
  return bits >= 64 && n + 1n === 1n << BigInt(bits) ? `2^${bits}-1` : String(n);
}

export function bigint(min: bigint, max?: bigint, arg = '<n>'): Codec<bigint> {
  const expected = max === undefined
    ? `an integer of at least ${min} (decimal or 0x hex)`
    : `an integer from ${min} to ${showBound(max)} (decimal or 0x hex)`;
  return {
    arg,
    expected,
    decode(raw) {
      const n = toBigint(raw);
      if (n === undefined || n < min || (max !== undefined && n > max)) throw new BadValue(expected);
      return n;
    },
  };
}

export function int(min: number, max: number, arg = '<n>'): Codec<number> {
  const inner = bigint(BigInt(min), BigInt(max), arg);
  const expected = `an integer from ${min} to ${max}`;
  return {
    arg,
    expected,
    decode(raw) {
      try {
        return Number(inner.decode(raw));
      } catch {
        throw new BadValue(expected);
      }
    },
  };
}

/** A duration in seconds; fractions allowed. */
export function seconds(allowZero: boolean): Codec<number> {
  const expected = `a number of seconds ${allowZero ? '>= 0' : '> 0'}`;
  return {
    arg: '<seconds>',
    expected,
    decode(raw) {
      const n = typeof raw === 'string' && /^\s*[0-9]+(\.[0-9]+)?\s*$/.test(raw) ? Number(raw)
        : typeof raw === 'number' ? raw : Number(toBigint(raw) ?? NaN);
      if (!Number.isFinite(n) || n < 0 || (n === 0 && !allowZero) || n > 2 ** 31) throw new BadValue(expected);
      return n;
    },
  };
}

/** A duration in milliseconds: a number of seconds (fractions allowed) or a Go duration ("5s", "500ms", "1m"). */
export function duration(allowZero: boolean): Codec<number> {
  const expected = `a number of seconds or a duration such as 5s or 500ms${allowZero ? ' (0 = none)' : ''}`;
  return {
    arg: '<duration>',
    expected,
    decode(raw) {
      const text = typeof raw === 'string' ? raw.trim() : undefined;
      const ms = typeof raw === 'number' ? raw * 1000
        : text !== undefined && /^[0-9]+(\.[0-9]+)?$/.test(text) ? Number(text) * 1000
          : text !== undefined ? (parseDuration(text) ?? NaN) / 1e6 : NaN;
      if (!Number.isFinite(ms) || ms < 0 || (ms === 0 && !allowZero) || ms > 2 ** 31 * 1000) throw new BadValue(expected);
      return ms;
    },
  };
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);
export const bool: Codec<boolean> = {
  arg: '',
  expected: 'true or false',
  bool: true,
  decode(raw) {
    if (typeof raw === 'boolean') return raw;
    const s = typeof raw === 'string' ? raw.trim().toLowerCase() : undefined;
    if (s !== undefined && TRUE.has(s)) return true;
    if (s !== undefined && FALSE.has(s)) return false;
    throw new BadValue(bool.expected);
  },
};

/** One of a fixed set of names, matched case-insensitively, returned in canonical spelling. */
export function oneOf<T extends string>(values: readonly T[]): Codec<T> {
  const expected = `one of ${values.join(', ')}`;
  return {
    arg: `<${values.join('|')}>`,
    expected,
    decode(raw) {
      const found = typeof raw === 'string' ? values.find((v) => v.toLowerCase() === raw.trim().toLowerCase()) : undefined;
      if (found === undefined) throw new BadValue(expected);
      return found;
    },
  };
}

export function str(arg: string, allowEmpty = false): Codec<string> {
  const expected = allowEmpty ? 'a string' : 'a non-empty string';
  return {
    arg,
    expected,
    decode(raw) {
      if (typeof raw !== 'string' || (!allowEmpty && raw.trim() === '')) throw new BadValue(expected);
      return raw;
    },
  };
}

/** A JSON array, or a comma-separated string from a flag or variable. */
export function list<T>(item: Codec<T>): Codec<T[]> {
  const expected = `a comma-separated list (each ${item.expected})`;
  return {
    arg: '<list>',
    expected,
    decode(raw) {
      const items = typeof raw === 'string' ? raw.split(',').map((s) => s.trim()).filter((s) => s !== '') : raw;
      if (!Array.isArray(items)) throw new BadValue(expected);
      return items.map((value) => {
        try {
          return item.decode(value);
        } catch (err) {
          throw err instanceof BadValue && !err.at ? new BadValue(err.expected, { path: '', value }) : err;
        }
      });
    },
  };
}

function hexBody(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const body = raw.startsWith('0x') || raw.startsWith('0X') ? raw.slice(2) : raw;
  return /^([0-9a-f]{2})*$/i.test(body) ? body : undefined;
}

/** Hex data; the 0x prefix may be left out. */
export function bytes(length?: number): Codec<Uint8Array> {
  const expected = length === undefined ? 'hex data (0x…)' : `${length}-byte hex data`;
  return {
    arg: '<hex>',
    expected,
    decode(raw) {
      const body = hexBody(raw);
      if (body === undefined || (length !== undefined && body.length !== 2 * length)) throw new BadValue(expected);
      return Uint8Array.from(Buffer.from(body, 'hex'));
    },
  };
}

/** Lower-case 0x address from hex with or without 0x, or undefined. */
export function normaliseAddress(raw: unknown): string | undefined {
  const body = hexBody(raw);
  return body !== undefined && body.length === 40 ? '0x' + body.toLowerCase() : undefined;
}

export const address: Codec<Uint8Array> = {
  arg: '<address>',
  expected: 'a 20-byte hex address',
  decode: (raw) => {
    const addr = normaliseAddress(raw);
    if (addr === undefined) throw new BadValue('a 20-byte hex address');
    return Uint8Array.from(Buffer.from(addr.slice(2), 'hex'));
  },
};

/** An address, or '' for "derive it" (the first dev account). */
export const optionalAddress: Codec<Uint8Array | undefined> = {
  arg: '<address>',
  expected: 'a 20-byte hex address or ""',
  decode(raw) {
    if (raw === '') return undefined;
    if (normaliseAddress(raw) === undefined) throw new BadValue(optionalAddress.expected);
    return address.decode(raw);
  },
};

/** Text (UTF-8) or 0x hex, at most `max` bytes: geth's --extradata. */
export function textOrHex(max: number): Codec<Uint8Array> {
  const expected = `text or 0x hex of at most ${max} bytes`;
  return {
    arg: '<text>',
    expected,
    decode(raw) {
      if (typeof raw !== 'string') throw new BadValue(expected);
      const hex = raw.startsWith('0x') ? hexBody(raw) : undefined;
      const out = hex !== undefined ? Buffer.from(hex, 'hex') : Buffer.from(raw, 'utf8');
      if (out.length > max) throw new BadValue(expected);
      return Uint8Array.from(out);
    },
  };
}

export const parseJson = (raw: unknown): unknown => {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
};
export const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

// ---- genesis alloc (the real node's format) ----

export type GenesisAccount = GenesisAlloc;

const U64 = (1n << 64n) - 1n;
const U256 = (1n << 256n) - 1n;
const ACCOUNT_FIELDS = 'balance, code, storage, nonce';

function decodeAccount(raw: unknown): GenesisAccount {
  if (!isRecord(raw)) throw new BadValue(`an object {${ACCOUNT_FIELDS}}`);
  const account: GenesisAccount = { balance: 0n };
  for (const [field, value] of Object.entries(raw)) {
    if (field === 'balance') account.balance = decodeAt(field, value, bigint(0n, U256));
    else if (field === 'nonce') account.nonce = decodeAt(field, value, bigint(0n, U64));
    else if (field === 'code') account.code = decodeAt(field, value, bytes());
    else if (field === 'storage') {
      if (!isRecord(value)) throw new BadValue('an object of slot → value', { path: field, value });
      account.storage = new Map();
      for (const [slot, word] of Object.entries(value)) {
        const key = decodeAt(`${field}.${slot}`, slot, bigint(0n, U256));
        account.storage.set(key, decodeAt(`${field}.${slot}`, word, bigint(0n, U256)));
      }
    } else if (field !== 'privateKey') { // geth test genesis files carry it; it does not affect the block
      throw new BadValue(`one of ${ACCOUNT_FIELDS}`, { path: field, value: field });
    }
  }
  return account;
}

export const alloc: Codec<Map<string, GenesisAccount>> = {
  arg: '<json>',
  expected: 'an object of address → {balance, code?, storage?, nonce?}',
  decode(raw) {
    const obj = parseJson(raw);
    if (!isRecord(obj)) throw new BadValue(alloc.expected);
    const out = new Map<string, GenesisAccount>();
    for (const [key, entry] of Object.entries(obj)) {
      const addr = normaliseAddress(key);
      if (addr === undefined) throw new BadValue('a 20-byte hex address', { path: key, value: key });
      if (out.has(addr)) throw new BadValue('each address once', { path: key, value: key });
      out.set(addr, decodeAt(key, entry, { arg: '', expected: '', decode: decodeAccount }));
    }
    return out;
  },
};
