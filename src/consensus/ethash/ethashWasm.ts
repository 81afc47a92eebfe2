// Ethash's hot loops as one WebAssembly module, assembled at load time from the shared keccak-f
// emitter: Keccak-512/256 (original padding, not SHA-3) for the exact input lengths Ethash
// hashes, cache generation (RandMemoHash), dataset items (256 parents, FNV) and hashimoto
// (64 accesses over 128-byte pages). FNV runs four words at a time on SIMD lanes.
//
// The light lookup is bound by memory latency (each parent's address depends on the last load),
// so the search hashes LANES (8) nonces at once: sixteen independent parent chains in flight.
//
// Memory layout (grown by the caller to hold the cache, and the dataset when one is used):
//   INPUT        per lane l: input at 64·l = sealHash ‖ nonce (8 bytes little-endian); the cache seed
//   LANE_STATE   per lane l at +128·l: s = keccak512(input) (64), cmix (32), result (32)
//   INDICES      dataset item indices of one interleaved lookup (i32 each)
//   SCRATCH      64 bytes for the cache rounds
//   ITEMS        the looked-up dataset items, 64 bytes each
//   CACHE …      cache (64-byte rows), then scratch room for dataset items

import { Code, I32, I64, OP, SIMD, V128, VOID, assembleModule, uleb } from '../../encoding/wasmAssembler.js';
import { KECCAK_LOCAL_COUNT, emitKeccakF, keccakLocals } from '../../encoding/wasmKeccak.js';

export const LANES = 8;
export const INPUT = 0;
const LANE_STATE = 64 * LANES;
/** Address of lane l's s, cmix and result. */
export const seedAt = (lane: number) => LANE_STATE + 128 * lane;
export const cmixAt = (lane: number) => seedAt(lane) + 64;
export const resultAt = (lane: number) => seedAt(lane) + 96;
export const inputAt = (lane: number) => INPUT + 64 * lane;
const INDICES = LANE_STATE + 128 * LANES;
const SCRATCH = INDICES + 8 * LANES;
const ITEMS = SCRATCH + 64;
export const CACHE = ITEMS + 128 * LANES + 1024;
const FNV_PRIME = 0x01000193;
const ACCESSES = 64;
const PARENTS = 256;

// Function indices: the order of the list in buildEthashWasm.
const FN_K512_64 = 0;
const FN_K512_40 = 1;
const FN_K512_32 = 2;
const FN_K256_96 = 3;
const FN_ITEMS_2 = 4;
const FN_ITEMS_8 = 5;
const FN_ITEMS_SEARCH = 6;

/** (src, dst): Keccak over `inputLanes` 64-bit lanes at src, `outputLanes` lanes stored at dst. */
function keccakFunction(inputLanes: number, rateLanes: number, outputLanes: number): Code {
  const src = 0;
  const dst = 1;
  const s = keccakLocals(2);
  const f = new Code();
  for (let i = 0; i < inputLanes; i++) f.load64At(src, 8 * i).set(s.a(i));
  // Original Keccak padding: 0x01 after the message, 0x80 in the block's last byte.
  if (inputLanes === rateLanes - 1) {
    f.i64(0x8000000000000001n).set(s.a(inputLanes));
  } else {
    f.i64(1n).set(s.a(inputLanes));
    f.i64(0x8000000000000000n).set(s.a(rateLanes - 1));
  }
  emitKeccakF(f, s, outputLanes);
  for (let i = 0; i < outputLanes; i++) f.store64At(dst, 8 * i, s.a(i));
  return f;
}

const keccakSpec = (inputLanes: number, rateLanes: number, outputLanes: number, name?: string) => ({
  params: [I32, I32], results: [], locals: [[KECCAK_LOCAL_COUNT, I64]] as Array<[number, number]>,
  code: keccakFunction(inputLanes, rateLanes, outputLanes), export: name,
});

/** fnv on the stack's i32 (a) and the given lane of a v128 local: (a · prime) ^ lane. */
function fnvWithLane(f: Code, vector: number, lane: number): Code {
  return f.i32(FNV_PRIME).op(OP.i32Mul).get(vector).simd(SIMD.i32x4ExtractLane, lane).op(OP.i32Xor);
}

/**
 * (indices, n, dst): the dataset items whose indices are the `ways` i32 at `indices`, computed
 * from the n-row cache, 64 bytes each stored from dst. The items' parent chains interleave:
 * each waits on a division and a cache load, so independent ones keep the memory busy.
 */
function itemFunction(ways: number): Code {
  const [indices, n, dst, j] = [0, 1, 2, 3];
  const item = (w: number) => 4 + w;
  const addr = (w: number) => 4 + ways + w;
  const m = (w: number, k: number) => 4 + 2 * ways + 4 * w + k;
  const prime = 4 + 2 * ways + 4 * ways;
  const f = new Code();
  for (let w = 0; w < ways; w++) {
    f.get(indices).i32Load(4 * w).set(item(w));
    f.get(item(w)).get(n).op(OP.i32RemU).i32(64).op(OP.i32Mul).set(addr(w));
    for (let k = 0; k < 4; k++) f.get(dst).get(addr(w)).v128Load(CACHE + 16 * k).v128Store(64 * w + 16 * k);
    f.get(dst).get(dst).i32Load(64 * w).get(item(w)).op(OP.i32Xor).op(OP.i32Store, 2, ...uleb(64 * w));
    f.get(dst).i32(64 * w).op(OP.i32Add).get(dst).i32(64 * w).op(OP.i32Add).call(FN_K512_64);
    for (let k = 0; k < 4; k++) f.get(dst).v128Load(64 * w + 16 * k).set(m(w, k));
  }
  f.i32(FNV_PRIME).simd(SIMD.i32x4Splat).set(prime);
  // 256 parents, 16 per loop pass so that the mix word j % 16 is a fixed lane.
  f.op(OP.loop, VOID);
  for (let jj = 0; jj < 16; jj++) {
    for (let w = 0; w < ways; w++) {
      f.get(item(w)).get(j).op(OP.i32Xor);
      fnvWithLane(f, m(w, jj >> 2), jj & 3).get(n).op(OP.i32RemU).i32(64).op(OP.i32Mul).set(addr(w));
    }
    for (let w = 0; w < ways; w++) {
      for (let k = 0; k < 4; k++) {
        f.get(m(w, k)).get(prime).simd(SIMD.i32x4Mul).get(addr(w)).v128Load(CACHE + 16 * k).simd(SIMD.v128Xor).set(m(w, k));
      }
    }
    f.get(j).i32(1).op(OP.i32Add).set(j);
  }
  f.get(j).i32(PARENTS).op(OP.i32LtU, OP.brIf, 0, OP.end);
  for (let w = 0; w < ways; w++) {
    for (let k = 0; k < 4; k++) f.get(dst).get(m(w, k)).v128Store(64 * w + 16 * k);
    f.get(dst).i32(64 * w).op(OP.i32Add).get(dst).i32(64 * w).op(OP.i32Add).call(FN_K512_64);
  }
  return f;
}

const itemSpec = (ways: number) => ({
  params: [I32, I32, I32], results: [], locals: [[1 + 2 * ways, I32], [4 * ways + 1, V128]] as Array<[number, number]>,
  code: itemFunction(ways),
});

/**
 * (n, pages): light hashimoto of the inputs of lanes 0 … lanes − 1: each page's two items are
 * computed from the n-row cache, all lanes' items in one interleaved call. (The full dataset is
 * shared between threads, outside this module's memory: ethashKernel.ts reads it.)
 */
function hashimotoFunction(lanes: number): Code {
  const [n, pages] = [0, 1];
  const p = (l: number) => 2 + l;
  const s0 = (l: number) => 2 + lanes + l;
  const m = (l: number, k: number) => 2 + 2 * lanes + 8 * l + k;
  const prime = 2 + 2 * lanes + 8 * lanes;
  const f = new Code();
  for (let l = 0; l < lanes; l++) {
    f.i32(inputAt(l)).i32(seedAt(l)).call(FN_K512_40);
    f.i32(seedAt(l)).i32Load(0).set(s0(l));
    for (let k = 0; k < 8; k++) f.i32(seedAt(l)).v128Load(16 * (k % 4)).set(m(l, k));
  }
  f.i32(FNV_PRIME).simd(SIMD.i32x4Splat).set(prime);
  for (let i = 0; i < ACCESSES; i++) {
    const word = i % 32;
    for (let l = 0; l < lanes; l++) {
      f.i32(i).get(s0(l)).op(OP.i32Xor);
      fnvWithLane(f, m(l, word >> 2), word & 3).get(pages).op(OP.i32RemU).set(p(l));
      f.i32(INDICES + 8 * l).get(p(l)).get(p(l)).op(OP.i32Add).op(OP.i32Store, 2, 0);
      f.i32(INDICES + 8 * l).get(p(l)).get(p(l)).op(OP.i32Add).i32(1).op(OP.i32Add).op(OP.i32Store, 2, 4);
      f.i32(ITEMS + 128 * l).set(p(l));
    }
    f.i32(INDICES).get(n).i32(ITEMS).call(lanes === 1 ? FN_ITEMS_2 : FN_ITEMS_SEARCH);
    for (let l = 0; l < lanes; l++) {
      for (let k = 0; k < 8; k++) {
        f.get(m(l, k)).get(prime).simd(SIMD.i32x4Mul).get(p(l)).v128Load(16 * k).simd(SIMD.v128Xor).set(m(l, k));
      }
    }
  }
  // Compress: each group of four words folds into one with FNV; then result = keccak256(s ‖ cmix).
  for (let l = 0; l < lanes; l++) {
    for (let w = 0; w < 8; w++) {
      f.i32(cmixAt(l) + 4 * w).get(m(l, w)).simd(SIMD.i32x4ExtractLane, 0);
      for (let lane = 1; lane < 4; lane++) fnvWithLane(f, m(l, w), lane);
      f.op(OP.i32Store, 2, 0);
    }
    f.i32(seedAt(l)).i32(resultAt(l)).call(FN_K256_96);
  }
  return f;
}

const hashimotoSpec = (lanes: number, name: string) => ({
  params: [I32, I32], results: [], locals: [[2 * lanes, I32], [8 * lanes + 1, V128]] as Array<[number, number]>,
  code: hashimotoFunction(lanes), export: name,
});

/** (n): cache rows 0..n from the 32-byte seed at INPUT, each the keccak512 of the one before. */
function cacheFillFunction(): Code {
  const [n, i, ptr] = [0, 1, 2];
  const f = new Code();
  f.i32(INPUT).i32(CACHE).call(FN_K512_32);
  f.i32(1).set(i).i32(CACHE).set(ptr);
  f.op(OP.block, VOID, OP.loop, VOID);
  f.get(i).get(n).op(OP.i32GeU, OP.brIf, 1);
  f.get(ptr).get(ptr).i32(64).op(OP.i32Add).tee(ptr).call(FN_K512_64);
  f.get(i).i32(1).op(OP.i32Add).set(i);
  f.op(OP.br, 0, OP.end, OP.end);
  return f;
}

/** (n): one RandMemoHash round over the n-row cache, in place and in order. */
function cacheRoundFunction(): Code {
  const [n, i, row, prev, other] = [0, 1, 2, 3, 4];
  const f = new Code();
  f.op(OP.block, VOID, OP.loop, VOID);
  f.get(i).get(n).op(OP.i32GeU, OP.brIf, 1);
  f.get(i).i32(64).op(OP.i32Mul).i32(CACHE).op(OP.i32Add).set(row);
  f.get(i).get(n).op(OP.i32Add).i32(1).op(OP.i32Sub).get(n).op(OP.i32RemU).i32(64).op(OP.i32Mul).set(prev);
  f.get(row).i32Load(0).get(n).op(OP.i32RemU).i32(64).op(OP.i32Mul).set(other);
  for (let k = 0; k < 4; k++) {
    f.i32(SCRATCH).get(prev).v128Load(CACHE + 16 * k).get(other).v128Load(CACHE + 16 * k).simd(SIMD.v128Xor).v128Store(16 * k);
  }
  f.i32(SCRATCH).get(row).call(FN_K512_64);
  f.get(i).i32(1).op(OP.i32Add).set(i);
  f.op(OP.br, 0, OP.end, OP.end);
  return f;
}

/** (start, count, n, dst): dataset items start … start + count − 1, stored in order at dst. */
function itemsFunction(): Code {
  const [start, count, n, dst, c] = [0, 1, 2, 3, 4];
  const f = new Code();
  f.op(OP.block, VOID, OP.loop, VOID);
  f.get(c).get(count).op(OP.i32GeU, OP.brIf, 1);
  for (let w = 0; w < 8; w++) f.i32(INDICES).get(start).get(c).op(OP.i32Add).i32(w).op(OP.i32Add).op(OP.i32Store, 2, ...uleb(4 * w));
  f.i32(INDICES).get(n).get(dst).get(c).i32(64).op(OP.i32Mul).op(OP.i32Add).call(FN_ITEMS_8);
  f.get(c).i32(8).op(OP.i32Add).set(c);
  f.op(OP.br, 0, OP.end, OP.end);
  return f;
}

/** The module's binary. Exposed so tests and the bench can build it. */
export function buildEthashWasm(): Uint8Array<ArrayBuffer> {
  return assembleModule(
    [
      keccakSpec(8, 9, 8), // keccak512 of 64 bytes
      keccakSpec(5, 9, 8, 'keccak512of40'), // keccak512 of 40 bytes
      keccakSpec(4, 9, 8), // keccak512 of 32 bytes
      keccakSpec(12, 17, 4, 'keccak256of96'), // keccak256 of 96 bytes
      itemSpec(2),
      itemSpec(8),
      itemSpec(2 * LANES),
      hashimotoSpec(1, 'hashimotoLight'),
      hashimotoSpec(LANES, 'hashimotoLightLanes'),
      { params: [I32], results: [], locals: [[2, I32]], code: cacheFillFunction(), export: 'cacheFill' },
      { params: [I32], results: [], locals: [[4, I32]], code: cacheRoundFunction(), export: 'cacheRound' },
      { params: [I32, I32, I32, I32], results: [], locals: [[1, I32]], code: itemsFunction(), export: 'items' },
    ],
    1,
  );
}

export interface EthashExports {
  memory: WebAssembly.Memory;
  hashimotoLight(n: number, pages: number): void;
  hashimotoLightLanes(n: number, pages: number): void;
  /** (src, dst): keccak512 of the 40 bytes at src; the full-dataset path's first hash */
  keccak512of40(src: number, dst: number): void;
  /** (src, dst): keccak256 of the 96 bytes at src (s ‖ cmix); the full-dataset path's result */
  keccak256of96(src: number, dst: number): void;
  cacheFill(n: number): void;
  cacheRound(n: number): void;
  /** count is rounded up to a multiple of 8: dst must have room for them */
  items(start: number, count: number, n: number, dst: number): void;
}

let compiled: WebAssembly.Module | undefined;

/** A fresh instance (its own memory) of the module, compiled once per thread. */
export function instantiateEthash(): EthashExports {
  compiled ??= new WebAssembly.Module(buildEthashWasm());
  return new WebAssembly.Instance(compiled, {}).exports as unknown as EthashExports;
}
