// The proof-of-work search kernel as a WebAssembly module, assembled here from code rather than
// shipped as an opaque blob. WebAssembly has native 64-bit lanes and rotations, which makes
// keccak-f about twice as fast as the int32-pair JavaScript in keccak40.ts (the reference it is
// tested against). The module is tiny (a few KB) and compiles in well under a millisecond.
//
// Memory layout (one 64 KiB page, exported as `memory`):
//   [0, 40)    input: sealHash (32 bytes) ‖ nonce (8 bytes, big-endian; only read by hash40)
//   [64, 96)   target as four 64-bit words, most significant first, each stored little-endian
//   [96, 128)  digest of the last hash
// Exports: hash40() → i32 (digest ≤ target), search(start: i64, count: i32) → first hit index | -1.

import type { PowKernel } from './keccak40.js';

const TARGET = 64;
const DIGEST = 96;

const ROUND_CONSTANTS = [
  0x0000000000000001n, 0x0000000000008082n, 0x800000000000808an, 0x8000000080008000n,
  0x000000000000808bn, 0x0000000080000001n, 0x8000000080008081n, 0x8000000000008009n,
  0x000000000000008an, 0x0000000000000088n, 0x0000000080008009n, 0x000000008000000an,
  0x000000008000808bn, 0x800000000000008bn, 0x8000000000008089n, 0x8000000000008003n,
  0x8000000000008002n, 0x8000000000000080n, 0x000000000000800an, 0x800000008000000an,
  0x8000000080008081n, 0x8000000000008080n, 0x0000000080000001n, 0x8000000080008008n,
];
// rho rotation of lane x + 5y.
const ROTATIONS = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];

// Opcodes used (WebAssembly core spec, binary format).
const OP = {
  block: 0x02, loop: 0x03, if: 0x04, end: 0x0b, br: 0x0c, brIf: 0x0d, return: 0x0f, call: 0x10,
  localGet: 0x20, localSet: 0x21, i64Load: 0x29, i64Store: 0x37, i32Const: 0x41, i64Const: 0x42,
  i32GeU: 0x4f, i64LtU: 0x54, i64GtU: 0x56, i64LeU: 0x58, i32Add: 0x6a, i64Add: 0x7c, i64And: 0x83,
  i64Or: 0x84, i64Xor: 0x85, i64Shl: 0x86, i64ShrU: 0x88, i64Rotl: 0x89, i64ExtendI32U: 0xad,
} as const;
const I32 = 0x7f;
const I64 = 0x7e;
const VOID = 0x40;

function uleb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

function sleb(value: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = Number(value & 0x7fn);
    value >>= 7n; // arithmetic shift: sign is kept
    const done = (value === 0n && (byte & 0x40) === 0) || (value === -1n && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

/** Instruction emitter for one function body. */
class Code {
  readonly bytes: number[] = [];
  op(...bytes: number[]): this {
    for (const b of bytes) this.bytes.push(b);
    return this;
  }
  get(local: number): this { return this.op(OP.localGet, ...uleb(local)); }
  set(local: number): this { return this.op(OP.localSet, ...uleb(local)); }
  i32(value: number): this { return this.op(OP.i32Const, ...sleb(BigInt(value))); }
  i64(value: bigint): this { return this.op(OP.i64Const, ...sleb(BigInt.asIntN(64, value))); }
  load64(offset: number): this { return this.i32(0).op(OP.i64Load, 3, ...uleb(offset)); }
  call(fn: number): this { return this.op(OP.call, ...uleb(fn)); }
}

const FN_KECCAK = 0;
const FN_HASH40 = 1;
const FN_SEARCH = 2;
const FN_BSWAP = 3;

/** (lane4: i64) → i32: hash sealHash ‖ lane4, store the digest, compare it with the target. */
function keccakFunction(): { locals: number; code: Code } {
  const a = (i: number) => 1 + i; // local 0 is the lane4 parameter
  const c = (x: number) => 26 + x;
  const d = (x: number) => 31 + x;
  const b = (i: number) => 36 + i;
  const f = new Code();
  // Absorb: lanes 0-3 from memory, lane 4 given, padding in lanes 5 and 16; locals start at 0.
  for (let i = 0; i < 4; i++) f.load64(8 * i).set(a(i));
  f.get(0).set(a(4));
  f.i64(1n).set(a(5));
  f.i64(0x8000000000000000n).set(a(16));
  for (let round = 0; round < 24; round++) {
    // The last round only needs the four output lanes (row 0, x < 4).
    const last = round === 23;
    for (let x = 0; x < 5; x++) {
      f.get(a(x)).get(a(x + 5)).op(OP.i64Xor).get(a(x + 10)).op(OP.i64Xor)
        .get(a(x + 15)).op(OP.i64Xor).get(a(x + 20)).op(OP.i64Xor).set(c(x));
    }
    for (let x = 0; x < 5; x++) {
      f.get(c((x + 4) % 5)).get(c((x + 1) % 5)).i64(1n).op(OP.i64Rotl).op(OP.i64Xor).set(d(x));
    }
    // rho and pi: B[y, 2x + 3y] = rotl(A[x, y] ^ D[x], r[x, y])
    for (let i = 0; i < 25; i++) {
      const x = i % 5;
      const y = (i - x) / 5;
      const dest = y + 5 * ((2 * x + 3 * y) % 5);
      if (last && dest >= 5) continue;
      f.get(a(i)).get(d(x)).op(OP.i64Xor);
      if (ROTATIONS[i] !== 0) f.i64(BigInt(ROTATIONS[i])).op(OP.i64Rotl);
      f.set(b(dest));
    }
    // chi: A[x, y] = B[x, y] ^ (~B[x+1, y] & B[x+2, y])
    for (let i = 0; i < (last ? 4 : 25); i++) {
      const x = i % 5;
      const row = i - x;
      f.get(b(i)).get(b(row + ((x + 1) % 5))).i64(-1n).op(OP.i64Xor)
        .get(b(row + ((x + 2) % 5))).op(OP.i64And).op(OP.i64Xor).set(a(i));
    }
    f.get(a(0)).i64(ROUND_CONSTANTS[round]).op(OP.i64Xor).set(a(0)); // iota
  }
  for (let i = 0; i < 4; i++) f.i32(0).get(a(i)).op(OP.i64Store, 3, ...uleb(DIGEST + 8 * i));
  // Digest bytes read big-endian = byte-swapped lanes; compare word by word, most significant first.
  const word = b(0);
  for (let i = 0; i < 4; i++) {
    f.get(a(i)).call(FN_BSWAP).set(word);
    if (i === 3) break;
    f.get(word).load64(TARGET + 8 * i).op(OP.i64LtU, OP.if, VOID).i32(1).op(OP.return, OP.end);
    f.get(word).load64(TARGET + 8 * i).op(OP.i64GtU, OP.if, VOID).i32(0).op(OP.return, OP.end);
  }
  f.get(word).load64(TARGET + 24).op(OP.i64LeU);
  return { locals: 60, code: f };
}

/** () → i32: hash the 40 input bytes as they are in memory. */
function hash40Function(): Code {
  return new Code().load64(32).call(FN_KECCAK);
}

/** (start: i64, count: i32) → i32: the first i < count whose nonce start + i meets the target. */
function searchFunction(): Code {
  const start = 0;
  const count = 1;
  const i = 2;
  const f = new Code();
  f.op(OP.block, VOID, OP.loop, VOID);
  f.get(i).get(count).op(OP.i32GeU, OP.brIf, 1);
  f.get(start).get(i).op(OP.i64ExtendI32U, OP.i64Add).call(FN_BSWAP).call(FN_KECCAK);
  f.op(OP.if, VOID).get(i).op(OP.return, OP.end);
  f.get(i).i32(1).op(OP.i32Add).set(i);
  f.op(OP.br, 0, OP.end, OP.end);
  return f.i32(-1);
}

/** (x: i64) → i64: reverse the byte order (the nonce is big-endian, lanes are little-endian). */
function bswapFunction(): Code {
  const m8 = 0x00ff00ff00ff00ffn;
  const m16 = 0x0000ffff0000ffffn;
  const f = new Code();
  f.get(0).i64(8n).op(OP.i64ShrU).i64(m8).op(OP.i64And).get(0).i64(m8).op(OP.i64And).i64(8n).op(OP.i64Shl);
  f.op(OP.i64Or).set(0);
  f.get(0).i64(16n).op(OP.i64ShrU).i64(m16).op(OP.i64And).get(0).i64(m16).op(OP.i64And).i64(16n).op(OP.i64Shl);
  f.op(OP.i64Or).i64(32n).op(OP.i64Rotl);
  return f;
}

const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, payload: number[]): number[] => [id, ...uleb(payload.length), ...payload];
const name = (text: string): number[] => [...uleb(text.length), ...new TextEncoder().encode(text)];

function body(code: Code, locals: Array<[number, number]>): number[] {
  const bytes = [...vec(locals.map(([n, type]) => [...uleb(n), type])), ...code.bytes, OP.end];
  return [...uleb(bytes.length), ...bytes];
}

/** The module's binary. Exposed so tests and the bench can inspect it. */
export function buildKeccak40Wasm(): Uint8Array<ArrayBuffer> {
  const keccak = keccakFunction();
  const types = [
    [0x60, ...vec([[I64]]), ...vec([[I32]])], // keccak
    [0x60, ...vec([]), ...vec([[I32]])], // hash40
    [0x60, ...vec([[I64], [I32]]), ...vec([[I32]])], // search
    [0x60, ...vec([[I64]]), ...vec([[I64]])], // bswap
  ];
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec(types)),
    ...section(3, vec([[0], [1], [2], [3]])),
    ...section(5, vec([[0x00, 1]])),
    ...section(7, vec([
      [...name('memory'), 0x02, 0],
      [...name('hash40'), 0x00, FN_HASH40],
      [...name('search'), 0x00, FN_SEARCH],
    ])),
    ...section(10, vec([
      body(keccak.code, [[keccak.locals, I64]]),
      body(hash40Function(), []),
      body(searchFunction(), [[1, I32]]),
      body(bswapFunction(), []),
    ])),
  ];
  return Uint8Array.from(bytes);
}

interface Keccak40Exports {
  memory: WebAssembly.Memory;
  hash40(): number;
  search(start: bigint, count: number): number;
}

/** A kernel backed by a fresh module instance, or undefined where WebAssembly is unavailable. */
export function createWasmKernel(): PowKernel | undefined {
  if (typeof WebAssembly !== 'object') return undefined;
  const instance = new WebAssembly.Instance(new WebAssembly.Module(buildKeccak40Wasm()), {});
  const wasm = instance.exports as unknown as Keccak40Exports;
  const mem = new Uint8Array(wasm.memory.buffer); // one page, never grown
  const readDigest = (out: Uint8Array) => {
    for (let i = 0; i < 32; i++) out[i] = mem[DIGEST + i];
  };
  return {
    name: 'wasm',
    search(sealHash, target, start, count, mixOut) {
      for (let i = 0; i < 32; i++) mem[i] = sealHash[i];
      // Big-endian target → little-endian words so i64.load yields each word's value.
      for (let i = 0; i < 32; i++) mem[TARGET + i] = target[(i & ~7) + 7 - (i & 7)];
      const hit = wasm.search(start, count);
      if (hit >= 0) readDigest(mixOut);
      return hit;
    },
    hash40(input, out) {
      for (let i = 0; i < 40; i++) mem[i] = input[i];
      wasm.hash40();
      readDigest(out);
    },
  };
}
