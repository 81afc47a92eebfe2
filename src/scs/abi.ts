// A small Solidity ABI codec for AnyCall and registerDapp: uintN, intN, address, bool, bytesN,
// dynamic bytes and string, and arrays (fixed or dynamic) of those static types. Values are
// domain values: integers bigint, addresses and bytes Uint8Array, strings string.

import { bigintToFixed, bytesToBigint, concatBytes, keccak256 } from '../encoding/bytes.js';

export type AbiValue = bigint | boolean | string | Uint8Array | AbiValue[];

export type AbiType =
  | { kind: 'uint' | 'int'; bits: number; name: string }
  | { kind: 'address' | 'bool' | 'bytes' | 'string'; name: string }
  | { kind: 'fixedBytes'; size: number; name: string }
  | { kind: 'array'; item: AbiType; length: number | undefined; name: string };

/** A malformed type, value or encoding; callers turn it into their own error. */
export class AbiError extends Error {
  override name = 'AbiError';
}

const WORD = 32;

export function parseAbiType(text: string): AbiType {
  const array = /^(.*)\[(\d*)\]$/.exec(text);
  if (array) {
    const item = parseAbiType(array[1]);
    if (isDynamic(item)) throw new AbiError(`unsupported type ${text}: arrays of dynamic types`);
    const length = array[2] === '' ? undefined : Number(array[2]);
    if (length === 0) throw new AbiError(`invalid type ${text}`);
    const name = `${item.name}[${array[2]}]`;
    return { kind: 'array', item, length, name };
  }
  if (text === 'address' || text === 'bool' || text === 'bytes' || text === 'string') return { kind: text, name: text };
  const int = /^(u?int)(\d*)$/.exec(text);
  if (int) {
    const bits = int[2] === '' ? 256 : Number(int[2]);
    if (bits < 8 || bits > 256 || bits % 8 !== 0) throw new AbiError(`invalid type ${text}`);
    const kind = int[1] as 'uint' | 'int';
    return { kind, bits, name: `${kind}${bits}` };
  }
  const fixed = /^bytes(\d+)$/.exec(text);
  if (fixed && Number(fixed[1]) >= 1 && Number(fixed[1]) <= 32) {
    return { kind: 'fixedBytes', size: Number(fixed[1]), name: text };
  }
  throw new AbiError(`unsupported type ${text}`);
}

function isDynamic(t: AbiType): boolean {
  return t.kind === 'bytes' || t.kind === 'string' || (t.kind === 'array' && t.length === undefined);
}

/** Bytes a type takes in the head part. */
function headSize(t: AbiType): number {
  if (t.kind === 'array' && t.length !== undefined) return t.length * headSize(t.item);
  return WORD;
}

// --- encoding ----------------------------------------------------------------------------

export function encodeAbi(types: AbiType[], values: AbiValue[]): Uint8Array {
  if (types.length !== values.length) throw new AbiError(`expected ${types.length} values, got ${values.length}`);
  const heads: Uint8Array[] = [];
  const tails: Uint8Array[] = [];
  let offset = types.reduce((sum, t) => sum + headSize(t), 0);
  types.forEach((t, i) => {
    if (isDynamic(t)) {
      const tail = encodeDynamic(t, values[i]);
      heads.push(bigintToFixed(BigInt(offset), WORD));
      tails.push(tail);
      offset += tail.length;
    } else {
      heads.push(encodeStatic(t, values[i]));
    }
  });
  return concatBytes(...heads, ...tails);
}

function encodeDynamic(t: AbiType, value: AbiValue): Uint8Array {
  if (t.kind === 'string') {
    if (typeof value !== 'string') throw new AbiError(`${t.name}: expected a string`);
    return encodeBytes(new TextEncoder().encode(value));
  }
  if (t.kind === 'bytes') return encodeBytes(asBytes(t, value));
  if (t.kind !== 'array' || !Array.isArray(value)) throw new AbiError(`${t.name}: expected an array`);
  return concatBytes(bigintToFixed(BigInt(value.length), WORD), ...value.map((v) => encodeStatic(t.item, v)));
}

function encodeBytes(bytes: Uint8Array): Uint8Array {
  const padded = new Uint8Array(Math.ceil(bytes.length / WORD) * WORD);
  padded.set(bytes);
  return concatBytes(bigintToFixed(BigInt(bytes.length), WORD), padded);
}

function encodeStatic(t: AbiType, value: AbiValue): Uint8Array {
  switch (t.kind) {
    case 'uint': {
      const n = asInteger(t, value);
      if (n < 0n || n >> BigInt(t.bits) !== 0n) throw new AbiError(`${t.name}: value out of range`);
      return bigintToFixed(n, WORD);
    }
    case 'int': {
      const n = asInteger(t, value);
      const limit = 1n << BigInt(t.bits - 1);
      if (n < -limit || n >= limit) throw new AbiError(`${t.name}: value out of range`);
      return bigintToFixed(n < 0n ? (1n << 256n) + n : n, WORD);
    }
    case 'bool':
      if (typeof value !== 'boolean') throw new AbiError('bool: expected true or false');
      return bigintToFixed(value ? 1n : 0n, WORD);
    case 'address': {
      const bytes = asBytes(t, value);
      if (bytes.length !== 20) throw new AbiError('address: expected 20 bytes');
      return concatBytes(new Uint8Array(12), bytes);
    }
    case 'fixedBytes': {
      const bytes = asBytes(t, value);
      if (bytes.length !== t.size) throw new AbiError(`${t.name}: expected ${t.size} bytes`);
      const word = new Uint8Array(WORD);
      word.set(bytes);
      return word;
    }
    case 'array':
      if (!Array.isArray(value) || value.length !== t.length) throw new AbiError(`${t.name}: expected ${t.length} items`);
      return concatBytes(...value.map((v) => encodeStatic(t.item, v)));
    default:
      throw new AbiError(`${t.name}: not a static type`);
  }
}

function asInteger(t: AbiType, value: AbiValue): bigint {
  if (typeof value !== 'bigint') throw new AbiError(`${t.name}: expected an integer`);
  return value;
}

function asBytes(t: AbiType, value: AbiValue): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new AbiError(`${t.name}: expected bytes`);
  return value;
}

// --- decoding ----------------------------------------------------------------------------

export function decodeAbi(types: AbiType[], data: Uint8Array): AbiValue[] {
  let head = 0;
  return types.map((t) => {
    let value: AbiValue;
    if (isDynamic(t)) value = decodeDynamic(t, data, toOffset(readWord(data, head), data));
    else value = decodeStatic(t, data, head);
    head += headSize(t);
    return value;
  });
}

function readWord(data: Uint8Array, at: number): bigint {
  if (at + WORD > data.length) throw new AbiError('data too short');
  return bytesToBigint(data.subarray(at, at + WORD));
}

function toOffset(n: bigint, data: Uint8Array): number {
  if (n > BigInt(data.length)) throw new AbiError('offset out of range');
  return Number(n);
}

function decodeDynamic(t: AbiType, data: Uint8Array, at: number): AbiValue {
  const length = toOffset(readWord(data, at), data);
  if (t.kind === 'array') {
    return Array.from({ length }, (_, i) => decodeStatic(t.item, data, at + WORD + i * headSize(t.item)));
  }
  if (at + WORD + length > data.length) throw new AbiError('data too short');
  const bytes = data.slice(at + WORD, at + WORD + length);
  return t.kind === 'string' ? new TextDecoder().decode(bytes) : bytes;
}

function decodeStatic(t: AbiType, data: Uint8Array, at: number): AbiValue {
  const word = readWord(data, at);
  switch (t.kind) {
    case 'uint':
      return word & ((1n << BigInt(t.bits)) - 1n);
    case 'int': {
      const n = word & ((1n << BigInt(t.bits)) - 1n);
      return n >> BigInt(t.bits - 1) ? n - (1n << BigInt(t.bits)) : n;
    }
    case 'bool':
      return word !== 0n;
    case 'address':
      return data.slice(at + 12, at + WORD);
    case 'fixedBytes':
      return data.slice(at, at + t.size);
    case 'array':
      return Array.from({ length: t.length! }, (_, i) => decodeStatic(t.item, data, at + i * headSize(t.item)));
    default:
      throw new AbiError(`${t.name}: not a static type`);
  }
}

// --- functions of a contract ABI ---------------------------------------------------------

export interface AbiFunction {
  name: string;
  selector: Uint8Array;
  inputs: AbiType[];
  outputs: AbiType[];
}

export function functionSelector(name: string, inputs: AbiType[]): Uint8Array {
  return keccak256(new TextEncoder().encode(`${name}(${inputs.map((t) => t.name).join(',')})`)).slice(0, 4);
}

/** The function `name` taking `argCount` arguments in a JSON ABI text (solc's output format). */
export function findFunction(abiText: string, name: string, argCount: number): AbiFunction {
  let abi: unknown;
  try {
    abi = JSON.parse(abiText);
  } catch {
    throw new AbiError('the registered ABI is not JSON');
  }
  if (!Array.isArray(abi)) throw new AbiError('the registered ABI is not a JSON array');
  const named = abi.filter((e): e is Record<string, unknown> => isRecord(e) && (e.type ?? 'function') === 'function' && e.name === name);
  if (named.length === 0) throw new AbiError(`no function ${name} in the Dapp's ABI`);
  const entry = named.find((e) => paramTypes(e.inputs).length === argCount);
  if (!entry) throw new AbiError(`function ${name} takes ${paramTypes(named[0].inputs).length} arguments, got ${argCount}`);
  const inputs = paramTypes(entry.inputs).map(parseAbiType);
  return { name, selector: functionSelector(name, inputs), inputs, outputs: paramTypes(entry.outputs).map(parseAbiType) };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function paramTypes(params: unknown): string[] {
  if (params === undefined) return [];
  if (!Array.isArray(params)) throw new AbiError('malformed ABI entry');
  return params.map((p) => {
    if (!isRecord(p) || typeof p.type !== 'string') throw new AbiError('malformed ABI parameter');
    return p.type;
  });
}
