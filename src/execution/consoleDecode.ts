// console.log payloads → text. Every signature of Hardhat's and forge-std's console.sol: log()
// and log(...) of up to four uint256/string/bool/address arguments, log(int256),
// log(string,int256), logInt/logUint/logString/logBool/logAddress/logBytes and logBytes1..32,
// also under the older `uint`/`int` spellings whose selectors Hardhat's console.sol once used.
// A first string argument is a format string (%s %d %i %o %x, %% for a percent sign).

import { keccak256 } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import { toChecksumAddress } from '../encoding/address.js';

type AbiType = 'uint256' | 'int256' | 'string' | 'bool' | 'address' | 'bytes' | `bytes${number}`;

const BASIC: AbiType[] = ['uint256', 'string', 'bool', 'address'];

function signatures(): [string, AbiType[]][] {
  const out: [string, AbiType[]][] = [['log', []]];
  const combos = (n: number): AbiType[][] => (n === 0 ? [[]] : combos(n - 1).flatMap((c) => BASIC.map((t) => [...c, t])));
  for (let n = 1; n <= 4; n++) for (const types of combos(n)) out.push(['log', types]);
  out.push(['log', ['int256']], ['log', ['string', 'int256']]);
  const single: [string, AbiType][] = [
    ['logInt', 'int256'], ['logUint', 'uint256'], ['logString', 'string'], ['logBool', 'bool'], ['logAddress', 'address'], ['logBytes', 'bytes'],
  ];
  for (const [name, type] of single) out.push([name, [type]]);
  for (let n = 1; n <= 32; n++) out.push([`logBytes${n}`, [`bytes${n}`]]);
  return out;
}

let table: Map<number, AbiType[]> | undefined;

/** Selector (0x hex) → argument types of every console signature: what the explorer decodes in the browser. */
export function consoleSignatures(): Record<string, string[]> {
  return Object.fromEntries([...selectors()].map(([sel, types]) => ['0x' + sel.toString(16).padStart(8, '0'), types]));
}

/** Selector → argument types, made on the first console call (about 700 hashes). */
function selectors(): Map<number, AbiType[]> {
  if (table) return table;
  table = new Map();
  const enc = new TextEncoder();
  const add = (text: string, types: AbiType[]) => {
    const h = keccak256(enc.encode(text));
    table!.set(((h[0] << 24) | (h[1] << 16) | (h[2] << 8) | h[3]) >>> 0, types);
  };
  for (const [name, types] of signatures()) {
    add(`${name}(${types.join(',')})`, types);
    // Hardhat's console.sol spelled the 256-bit integers `uint` and `int` in its signatures.
    if (types.some((t) => t === 'uint256' || t === 'int256')) {
      add(`${name}(${types.map((t) => (t === 'uint256' ? 'uint' : t === 'int256' ? 'int' : t)).join(',')})`, types);
    }
  }
  return table;
}

type Value = bigint | string | boolean | Uint8Array;

function word(data: Uint8Array, offset: number): bigint {
  if (offset + 32 > data.length) throw new Error('short payload');
  let v = 0n;
  for (let i = offset; i < offset + 32; i++) v = (v << 8n) | BigInt(data[i]);
  return v;
}

function decodeArg(type: AbiType, args: Uint8Array, i: number): Value {
  const head = word(args, i * 32);
  switch (type) {
    case 'uint256':
      return head;
    case 'int256':
      return head >= 1n << 255n ? head - (1n << 256n) : head;
    case 'bool':
      return head !== 0n;
    case 'address':
      return toChecksumAddress(args.slice(i * 32 + 12, i * 32 + 32));
    case 'string':
    case 'bytes': {
      const at = Number(head);
      const length = Number(word(args, at));
      if (at + 32 + length > args.length) throw new Error('short payload');
      const bytes = args.slice(at + 32, at + 32 + length);
      return type === 'string' ? new TextDecoder().decode(bytes) : bytes;
    }
    default:
      return args.slice(i * 32, i * 32 + Number(type.slice(5)));
  }
}

const show = (v: Value): string => (v instanceof Uint8Array ? bytesToHex(v) : String(v));

/** `%s`-style substitution of a first string argument; the arguments left over follow, space-separated. */
function format(values: Value[]): string {
  if (values.length === 0) return '';
  const [first, ...rest] = values;
  if (typeof first !== 'string') return values.map(show).join(' ');
  let next = 0;
  const text = first.replace(/%([sdiox%])/g, (match, spec: string) => {
    if (spec === '%') return '%';
    if (next >= rest.length) return match;
    const v = rest[next++];
    if (spec === 'x' && typeof v === 'bigint') return '0x' + (v < 0n ? (v + (1n << 256n)) : v).toString(16);
    return show(v);
  });
  return [text, ...rest.slice(next).map(show)].join(' ');
}

/** The text a console.log call prints; undefined for a payload no console signature decodes. */
export function decodeConsoleLog(payload: Uint8Array): string | undefined {
  if (payload.length < 4) return undefined;
  const selector = ((payload[0] << 24) | (payload[1] << 16) | (payload[2] << 8) | payload[3]) >>> 0;
  const types = selectors().get(selector);
  if (!types) return undefined;
  const args = payload.subarray(4);
  try {
    return format(types.map((t, i) => decodeArg(t, args, i)));
  } catch {
    return undefined;
  }
}
