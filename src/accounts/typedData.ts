// EIP-712 typed structured data: the digest `eth_signTypedData_v4` signs,
// keccak256(0x19 0x01 ‖ hashStruct(EIP712Domain, domain) ‖ hashStruct(primaryType, message)).
// Arrays, nested structs, dynamic `bytes`/`string` (hashed) and atomic types follow the EIP as
// MetaMask's v4 and geth's apitypes encode them; a malformed document throws a DecodeError.

import { DecodeError } from '../errors.js';
import { bigintToFixed, concatBytes, keccak256 } from '../encoding/bytes.js';
import { hexToBytes } from '../encoding/hex.js';

export interface TypedField {
  name: string;
  type: string;
}

export interface TypedData {
  types: Record<string, TypedField[]>;
  primaryType: string;
  domain: Record<string, unknown>;
  message: Record<string, unknown>;
}

const utf8 = new TextEncoder();
const fail = (reason: string): never => {
  throw new DecodeError(`typed data: ${reason}`);
};

/** Checks the document's outline: the four members and each type's field list. */
export function asTypedData(value: unknown): TypedData {
  const doc = typeof value === 'string' ? parseJson(value) : value;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return fail('expected an object');
  const { types, primaryType, domain, message } = doc as Record<string, unknown>;
  if (typeof types !== 'object' || types === null || Array.isArray(types)) return fail('"types" must be an object');
  for (const [name, fields] of Object.entries(types)) {
    if (!Array.isArray(fields)) return fail(`type ${name} must list its fields`);
    for (const f of fields) {
      if (typeof f?.name !== 'string' || typeof f?.type !== 'string') fail(`type ${name} has a field without a name and type`);
    }
  }
  if (typeof primaryType !== 'string') return fail('"primaryType" must be a string');
  if (!isRecord(domain)) return fail('"domain" must be an object');
  if (!isRecord(message)) return fail('"message" must be an object');
  return { types: types as Record<string, TypedField[]>, primaryType, domain, message };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fail('not valid JSON');
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The 32-byte digest an EIP-712 signature signs. */
export function typedDataDigest(td: TypedData): Uint8Array {
  const domainType = td.types.EIP712Domain ?? fail('types has no EIP712Domain');
  const types = { ...td.types, EIP712Domain: domainType };
  const parts = [Uint8Array.of(0x19, 0x01), hashStruct(types, 'EIP712Domain', td.domain)];
  // A document whose primary type is the domain signs the domain alone (EIP-712, as geth does).
  if (td.primaryType !== 'EIP712Domain') parts.push(hashStruct(types, td.primaryType, td.message));
  return keccak256(concatBytes(...parts));
}

const baseType = (type: string): string => type.replace(/\[\d*\]$/, '');

/** The struct types `primary` refers to, itself first, then the others sorted by name. */
function dependencies(types: Record<string, TypedField[]>, primary: string, found = new Set<string>()): Set<string> {
  if (found.has(primary) || types[primary] === undefined) return found;
  found.add(primary);
  for (const f of types[primary]) {
    let t = f.type;
    while (t !== baseType(t)) t = baseType(t);
    dependencies(types, t, found);
  }
  return found;
}

export function encodeType(types: Record<string, TypedField[]>, primary: string): string {
  const [first, ...rest] = [...dependencies(types, primary)];
  return [first, ...rest.sort()].map((name) => `${name}(${types[name].map((f) => `${f.type} ${f.name}`).join(',')})`).join('');
}

function hashStruct(types: Record<string, TypedField[]>, name: string, value: unknown): Uint8Array {
  const fields = types[name] ?? fail(`unknown type ${name}`);
  if (!isRecord(value)) return fail(`a ${name} must be an object`);
  const words = [keccak256(utf8.encode(encodeType(types, name)))];
  for (const f of fields) words.push(encodeValue(types, f.type, value[f.name], `${name}.${f.name}`));
  return keccak256(concatBytes(...words));
}

function encodeValue(types: Record<string, TypedField[]>, type: string, value: unknown, where: string): Uint8Array {
  const array = /^(.*)\[(\d*)\]$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) return fail(`${where}: expected an array`);
    if (array[2] !== '' && value.length !== Number(array[2])) fail(`${where}: expected ${array[2]} items`);
    return keccak256(concatBytes(...value.map((item, i) => encodeValue(types, array[1], item, `${where}[${i}]`))));
  }
  if (types[type] !== undefined) {
    // A missing nested struct encodes as zero (MetaMask v4's rule for undefined values).
    return value === undefined || value === null ? new Uint8Array(32) : hashStruct(types, type, value);
  }
  return encodeAtomic(type, value, where);
}

function encodeAtomic(type: string, value: unknown, where: string): Uint8Array {
  if (type === 'string') {
    if (typeof value !== 'string') return fail(`${where}: expected a string`);
    return keccak256(utf8.encode(value));
  }
  if (type === 'bytes') return keccak256(bytesOf(value, where));
  if (type === 'bool') {
    if (typeof value !== 'boolean') return fail(`${where}: expected a boolean`);
    return bigintToFixed(value ? 1n : 0n, 32);
  }
  if (type === 'address') {
    const bytes = bytesOf(value, where);
    if (bytes.length !== 20) fail(`${where}: expected a 20-byte address`);
    const word = new Uint8Array(32);
    word.set(bytes, 12);
    return word;
  }
  const fixed = /^bytes(\d+)$/.exec(type);
  if (fixed) {
    const size = Number(fixed[1]);
    if (size < 1 || size > 32) fail(`${where}: no type ${type}`);
    const bytes = bytesOf(value, where);
    if (bytes.length > size) fail(`${where}: more than ${size} bytes`);
    const word = new Uint8Array(32);
    word.set(bytes);
    return word;
  }
  const int = /^(u?)int(\d*)$/.exec(type);
  if (int) {
    const bits = int[2] === '' ? 256 : Number(int[2]);
    if (bits < 8 || bits > 256 || bits % 8 !== 0) fail(`${where}: no type ${type}`);
    const n = integerOf(value, where);
    const signed = int[1] === '';
    const [min, max] = signed ? [-(1n << BigInt(bits - 1)), (1n << BigInt(bits - 1)) - 1n] : [0n, (1n << BigInt(bits)) - 1n];
    if (n < min || n > max) fail(`${where}: ${n} does not fit ${type}`);
    return bigintToFixed(BigInt.asUintN(256, n), 32);
  }
  return fail(`${where}: unknown type ${type}`);
}

function bytesOf(value: unknown, where: string): Uint8Array {
  if (typeof value !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(value)) return fail(`${where}: expected 0x-prefixed hex bytes`);
  return hexToBytes(value);
}

/** A JSON number, a decimal string or a 0x hex string (what wallets send for uint256). */
function integerOf(value: unknown, where: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^(-?\d+|0x[0-9a-fA-F]+)$/.test(value)) return BigInt(value);
  return fail(`${where}: expected an integer`);
}
