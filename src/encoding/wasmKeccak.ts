// keccak-f[1600] emitted as WebAssembly, shared by the general keccak256 (keccak.ts) and the
// proof-of-work kernel (consensus/keccak40Wasm.ts). WebAssembly has native 64-bit lanes and
// rotations, so the state lives in 25 i64 locals and each round is written out lane by lane.
//
// The general module's memory (exported as `memory`, grown by the caller for long inputs):
//   [0, 32)      digest of the last hash
//   [64, …)      input, already padded by the caller to whole 136-byte blocks
// Export: absorb(blocks: i32) hashes `blocks` blocks from a zero state and stores the digest.

import { Code, I32, I64, OP, VOID, assembleModule } from './wasmAssembler.js';

/** keccak256's rate: bytes absorbed per permutation. */
export const KECCAK_RATE = 136;
export const KECCAK_DIGEST = 0;
export const KECCAK_INPUT = 64;

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

/** The 60 i64 locals keccak-f works in: state a, column parities c, theta d, rho/pi output b. */
export interface KeccakLocals {
  a(lane: number): number;
  c(x: number): number;
  d(x: number): number;
  b(lane: number): number;
}

export const KECCAK_LOCAL_COUNT = 60;

/** Local indices for a state whose 60 i64 locals start at `first`. */
export function keccakLocals(first: number): KeccakLocals {
  return {
    a: (i) => first + i,
    c: (x) => first + 25 + x,
    d: (x) => first + 30 + x,
    b: (i) => first + 35 + i,
  };
}

/**
 * Emits the 24 rounds on the state locals. With outputLanes ≤ 5 the last round computes only
 * those lanes of row 0 (a caller that reads just the digest needs no more).
 */
export function emitKeccakF(f: Code, s: KeccakLocals, outputLanes = 25): void {
  const { a, b, c, d } = s;
  for (let round = 0; round < 24; round++) {
    const pruned = round === 23 && outputLanes <= 5;
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
      if (pruned && dest >= 5) continue;
      f.get(a(i)).get(d(x)).op(OP.i64Xor);
      if (ROTATIONS[i] !== 0) f.i64(BigInt(ROTATIONS[i])).op(OP.i64Rotl);
      f.set(b(dest));
    }
    // chi: A[x, y] = B[x, y] ^ (~B[x+1, y] & B[x+2, y])
    for (let i = 0; i < (pruned ? outputLanes : 25); i++) {
      const x = i % 5;
      const row = i - x;
      f.get(b(i)).get(b(row + ((x + 1) % 5))).i64(-1n).op(OP.i64Xor)
        .get(b(row + ((x + 2) % 5))).op(OP.i64And).op(OP.i64Xor).set(a(i));
    }
    f.get(a(0)).i64(ROUND_CONSTANTS[round]).op(OP.i64Xor).set(a(0)); // iota
  }
}

/** (blocks: i32): absorb padded blocks from KECCAK_INPUT into a zero state, squeeze 32 bytes. */
function absorbFunction(): Code {
  const blocks = 0;
  const ptr = 1;
  const s = keccakLocals(2); // wasm zero-initialises locals: the state starts empty
  const f = new Code();
  f.i32(KECCAK_INPUT).set(ptr);
  f.op(OP.block, VOID, OP.loop, VOID);
  f.get(blocks).op(OP.i32Eqz, OP.brIf, 1);
  for (let i = 0; i < KECCAK_RATE / 8; i++) f.get(s.a(i)).load64At(ptr, 8 * i).op(OP.i64Xor).set(s.a(i));
  emitKeccakF(f, s);
  f.get(ptr).i32(KECCAK_RATE).op(OP.i32Add).set(ptr);
  f.get(blocks).i32(1).op(OP.i32Sub).set(blocks);
  f.op(OP.br, 0, OP.end, OP.end);
  // Lanes are little-endian, as is wasm memory: the stored lanes are the digest bytes.
  for (let i = 0; i < 4; i++) f.store64(KECCAK_DIGEST + 8 * i, s.a(i));
  return f;
}

/** The general keccak256 module's binary (one page of memory to start). */
export function buildKeccakWasm(): Uint8Array<ArrayBuffer> {
  return assembleModule(
    [{ params: [I32], results: [], locals: [[1, I32], [KECCAK_LOCAL_COUNT, I64]], code: absorbFunction(), export: 'absorb' }],
    1,
  );
}
