// One call frame of a fast call (its message, stack, memory and gas) and the memory and gas
// arithmetic the ops share. Gas is a Number: a call gets at most MAX_CALL_GAS, so every sum stays
// exact, and memory past MAX_MEMORY costs more than that (only an out-of-gas can follow).

import type { CodeInfo } from './analysis.js';
import type { GasParams } from './rules.js';

export const EMPTY = new Uint8Array(0);

/** The engine takes calls with at most this much gas (the node caps calls at 50,000,000). */
export const MAX_CALL_GAS = 1e9;
/** Memory beyond 32 MB would cost over 2·10^9 gas. */
export const MAX_MEMORY = 0x200_0000n;

// Errors, as the library names them (ERROR_TEXT).
export const ERR_OOG = 1;
export const ERR_UNDERFLOW = 2;
export const ERR_OVERFLOW = 3;
export const ERR_JUMP = 4;
export const ERR_INVALID = 5;
export const ERR_STATIC = 6;
export const ERR_REVERT = 7;
export const ERR_COLLISION = 8;
export const ERR_CODESTORE_OOG = 9;
export const ERR_CODESIZE = 10;
export const ERR_BAD_CODE = 11;
export const ERR_VALUE_OVERFLOW = 12;
export const ERR_INSUFFICIENT = 13;

export const ERROR_TEXT: readonly string[] = [
  '', 'out of gas', 'stack underflow', 'stack overflow', 'invalid JUMP', 'invalid opcode',
  'static state change', 'revert', 'create collision', 'code store out of gas',
  'code size to deposit exceeds maximum code size', 'invalid bytecode deployed', 'value overflow',
  'insufficient balance',
];

// What running a frame gives back to the engine.
/** (system ops only) carry on with the next op */
export const S_GO = 0;
/** the frame has ended: `error`, `output`, `gas` hold the outcome */
export const S_HALT = 1;
/**
 * an op needs state that is not cached (load what the world names), or the run's clock is due
 * (its step count is 0): then run the frame again
 */
export const S_NEED = 2;
/** the frame started a child frame (on the engine's frame stack) and waits for it */
export const S_DESCEND = 3;
/** something this engine does not implement: the call goes to the library */
export const S_ABORT = 4;

/** Which op a frame waits on while its child runs. */
export const WAIT_CALL = 1;
export const WAIT_CREATE = 2;

/** A call frame. One object per call depth, reused (`start`) by the next frame at that depth. */
export class Frame {
  // the message
  address = 0n;
  caller = 0n;
  codeAddress = 0n;
  value = 0n;
  data: Uint8Array = EMPTY;
  code: Uint8Array = EMPTY;
  info: CodeInfo = NO_CODE;
  isStatic = false;
  gasLimit = 0;
  isCreate = false;
  // the run
  pc = 0;
  sp = 0;
  gas = 0;
  memWords = 0;
  /** the memory cost paid so far (cost of memWords) */
  memCost = 0;
  /** the last child's return data (RETURNDATASIZE / RETURNDATACOPY) */
  returnData: Uint8Array = EMPTY;
  error = 0;
  errorPc = 0;
  output: Uint8Array = EMPTY;
  /** journal mark at the frame's checkpoint */
  mark = 0;
  wait = 0;
  outOffset = 0;
  outLength = 0;
  /** the address a creation deploys to (CREATE frames) */
  created = 0n;
  /** memory (zero past memWords) and a view of it; kept with the frame object */
  mem = new Uint8Array(4096);
  view = new DataView(this.mem.buffer);
  readonly stack: bigint[] = [];

  constructor(readonly depth: number) {}

  start(
    address: bigint, caller: bigint, codeAddress: bigint, value: bigint, data: Uint8Array, code: Uint8Array, info: CodeInfo,
    isStatic: boolean, gasLimit: number, isCreate: boolean,
  ): this {
    this.address = address;
    this.caller = caller;
    this.codeAddress = codeAddress;
    this.value = value;
    this.data = data;
    this.code = code;
    this.info = info;
    this.isStatic = isStatic;
    this.gasLimit = gasLimit;
    this.isCreate = isCreate;
    this.pc = 0;
    this.sp = 0;
    this.gas = gasLimit;
    this.memWords = 0;
    this.memCost = 0;
    this.returnData = EMPTY;
    this.error = 0;
    this.errorPc = 0;
    this.output = EMPTY;
    this.mark = 0;
    this.wait = 0;
    this.outOffset = 0;
    this.outLength = 0;
    this.created = 0n;
    return this;
  }

  /** Zeroes the memory used, for the next frame at this depth (a grown memory is dropped). */
  release(): void {
    if (this.mem.length > POOLED_MEMORY) {
      this.mem = new Uint8Array(4096);
      this.view = new DataView(this.mem.buffer);
    } else this.mem.fill(0, 0, this.memWords * 32);
    this.data = EMPTY;
    this.returnData = EMPTY;
  }
}

const NO_CODE: CodeInfo = { jumpdests: new Uint8Array(0), pushes: [] };
/** Memory kept with a frame object up to this size. */
const POOLED_MEMORY = 64 * 1024;

/** Ends the frame with `error`: all its gas is used, nothing is returned. */
export function fail(f: Frame, error: number): number {
  f.error = error;
  f.errorPc = f.pc;
  f.gas = 0;
  f.output = EMPTY;
  return S_HALT;
}

/** Words of memory that an access of `length` bytes at `offset` needs (0 for none; Infinity past MAX_MEMORY). */
export function wordsFor(offset: bigint, length: bigint): number {
  if (length === 0n) return 0;
  if (offset > MAX_MEMORY || length > MAX_MEMORY) return Infinity;
  return Math.ceil((Number(offset) + Number(length)) / 32);
}

/** Gas to grow the frame's memory to `words` (0 when it is that large already). */
export function memoryCost(f: Frame, words: number, p: GasParams): number {
  if (words <= f.memWords) return 0;
  if (words === Infinity) return Infinity;
  return words * p.memory + Math.floor((words * words) / p.quadDivisor) - f.memCost;
}

/** Grows the memory to `words` (charged already). */
export function grow(f: Frame, words: number, p: GasParams): void {
  if (words <= f.memWords) return;
  reserve(f, words * 32);
  f.memWords = words;
  f.memCost = words * p.memory + Math.floor((words * words) / p.quadDivisor);
}

/** Makes room for `bytes` of memory without growing it (the bytes past its size stay zero). */
export function reserve(f: Frame, bytes: number): void {
  if (bytes <= f.mem.length) return;
  let size = f.mem.length * 2;
  while (size < bytes) size *= 2;
  const mem = new Uint8Array(size);
  mem.set(f.mem.subarray(0, f.memWords * 32));
  f.mem = mem;
  f.view = new DataView(mem.buffer);
}

/** Gas for copying `length` bytes (per 32-byte word). */
export function copyCost(length: bigint, perWord: number): number {
  if (length > MAX_MEMORY) return Infinity;
  return Math.ceil(Number(length) / 32) * perWord;
}

/**
 * The 32-byte big-endian word at `offset` of `bytes` (in bounds; `view` over the same bytes).
 * Most words are small (offsets, lengths, counters, flags): those take one Number and one BigInt.
 */
export function wordAt(bytes: Uint8Array, view: DataView, offset: number): bigint {
  const small = offset + 26;
  let i = offset;
  while (i < small && bytes[i] === 0) i++;
  if (i === small) {
    let n = 0;
    for (let k = small; k < small + 6; k++) n = n * 256 + bytes[k];
    return BigInt(n);
  }
  const a = view.getBigUint64(offset);
  const b = view.getBigUint64(offset + 8);
  const c = view.getBigUint64(offset + 16);
  const d = view.getBigUint64(offset + 24);
  if (a === 0n && b === 0n) return (c << 64n) | d;
  return (((a << 64n) | b) << 128n) | (c << 64n) | d;
}

/** The 32-byte big-endian word at `offset` of memory (in bounds). */
export function readWord(f: Frame, offset: number): bigint {
  return wordAt(f.mem, f.view, offset);
}

const M64 = 0xffff_ffff_ffff_ffffn;
const M48 = 0xffff_ffff_ffffn;

/** Writes `value` as a 32-byte big-endian word at `offset` (in bounds). */
export function writeWord(f: Frame, offset: number, value: bigint): void {
  const mem = f.mem;
  if (value <= M48) {
    mem.fill(0, offset, offset + 26);
    let n = Number(value);
    for (let k = offset + 31; k >= offset + 26; k--) {
      mem[k] = n % 256;
      n = Math.floor(n / 256);
    }
    return;
  }
  const v = f.view;
  v.setBigUint64(offset, value >> 192n);
  v.setBigUint64(offset + 8, (value >> 128n) & M64);
  v.setBigUint64(offset + 16, (value >> 64n) & M64);
  v.setBigUint64(offset + 24, value & M64);
}

/** `length` bytes of `data` from `offset`, zero-filled past its end, into memory at `to` (in bounds). */
export function copyInto(f: Frame, to: number, data: Uint8Array, offset: bigint, length: number): void {
  const start = offset > BigInt(data.length) ? data.length : Number(offset);
  const end = Math.min(data.length, start + length);
  const n = end - start;
  if (n > 0) f.mem.set(data.subarray(start, end), to);
  if (n < length) f.mem.fill(0, to + Math.max(n, 0), to + length);
}

/** The big-endian value of 32 bytes of the frame's call data from `offset`, zero past its end (CALLDATALOAD). */
export function loadWord(f: Frame, offset: bigint): bigint {
  const data = f.data;
  if (offset >= BigInt(data.length)) return 0n;
  const i = Number(offset);
  // through a scratch word: no DataView over the call data
  const end = Math.min(i + 32, data.length);
  let k = 0;
  for (let j = i; j < end; j++) SCRATCH[k++] = data[j];
  while (k < 32) SCRATCH[k++] = 0;
  return wordAt(SCRATCH, SCRATCH_VIEW, 0);
}

const SCRATCH = new Uint8Array(32);
const SCRATCH_VIEW = new DataView(SCRATCH.buffer);

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** A big-endian byte array as a bigint (hashes: 32 bytes; block hashes and code hashes). */
export function bytesToWord(bytes: Uint8Array): bigint {
  if (bytes.length === 32) return wordAt(bytes, new DataView(bytes.buffer, bytes.byteOffset, 32), 0);
  if (bytes.length === 0) return 0n;
  let hex = '0x';
  for (let k = 0; k < bytes.length; k++) hex += HEX[bytes[k]];
  return BigInt(hex);
}
