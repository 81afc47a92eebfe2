// The proof-of-work search kernel as a WebAssembly module, assembled at load time from the shared
// keccak-f emitter (encoding/wasmKeccak.ts). WebAssembly has native 64-bit lanes and rotations,
// which makes keccak-f about twice as fast as the int32-pair JavaScript in keccak40.ts (the
// reference it is tested against). The search loop stays inside wasm: no call per nonce.
//
// Memory layout (one 64 KiB page, exported as `memory`):
//   [0, 40)    input: sealHash (32 bytes) ‖ nonce (8 bytes, big-endian; only read by hash40)
//   [64, 96)   target as four 64-bit words, most significant first, each stored little-endian
//   [96, 128)  digest of the last hash
// Exports: hash40() → i32 (digest ≤ target), search(start: i64, count: i32) → first hit index | -1.

import { Code, I32, I64, OP, VOID, assembleModule } from '../encoding/wasmAssembler.js';
import { KECCAK_LOCAL_COUNT, emitKeccakF, keccakLocals } from '../encoding/wasmKeccak.js';
import type { PowKernel } from './keccak40.js';

const TARGET = 64;
const DIGEST = 96;

// Function indices: the order of the list in buildKeccak40Wasm.
const FN_KECCAK = 0;
const FN_BSWAP = 3;

/** (lane4: i64) → i32: hash sealHash ‖ lane4, store the digest, compare it with the target. */
function keccakFunction(): Code {
  const s = keccakLocals(1); // local 0 is the lane4 parameter
  const { a, b } = s;
  const f = new Code();
  // Absorb: lanes 0-3 from memory, lane 4 given, padding in lanes 5 and 16.
  for (let i = 0; i < 4; i++) f.load64(8 * i).set(a(i));
  f.get(0).set(a(4));
  f.i64(1n).set(a(5));
  f.i64(0x8000000000000000n).set(a(16));
  emitKeccakF(f, s, 4); // only the four digest lanes are read
  for (let i = 0; i < 4; i++) f.store64(DIGEST + 8 * i, a(i));
  // Digest bytes read big-endian = byte-swapped lanes; compare word by word, most significant first.
  const word = b(0);
  for (let i = 0; i < 4; i++) {
    f.get(a(i)).call(FN_BSWAP).set(word);
    if (i === 3) break;
    f.get(word).load64(TARGET + 8 * i).op(OP.i64LtU, OP.if, VOID).i32(1).op(OP.return, OP.end);
    f.get(word).load64(TARGET + 8 * i).op(OP.i64GtU, OP.if, VOID).i32(0).op(OP.return, OP.end);
  }
  f.get(word).load64(TARGET + 24).op(OP.i64LeU);
  return f;
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

/** The module's binary. Exposed so tests and the bench can inspect it. */
export function buildKeccak40Wasm(): Uint8Array<ArrayBuffer> {
  return assembleModule(
    [
      { params: [I64], results: [I32], locals: [[KECCAK_LOCAL_COUNT, I64]], code: keccakFunction() },
      { params: [], results: [I32], locals: [], code: hash40Function(), export: 'hash40' },
      { params: [I64, I32], results: [I32], locals: [[1, I32]], code: searchFunction(), export: 'search' },
      { params: [I64], results: [I64], locals: [], code: bswapFunction() },
    ],
    1,
  );
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
