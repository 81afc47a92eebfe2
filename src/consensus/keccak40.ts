// Keccak-256 specialised for the proof-of-work input: exactly 40 bytes (sealHash ‖ 8-byte nonce).
// 40 bytes fit one 136-byte block, so absorbing is "write 5 lanes, set the two padding bits" and
// the whole hash is one keccak-f[1600]. The state lives in 50 int32 locals (hi/lo halves) so V8
// keeps it in registers/stack slots; nothing is allocated per hash. This is the portable fallback
// and the reference for the WebAssembly kernel (keccak40Wasm.ts).

/** A proof-of-work search kernel: one per thread, owns its scratch buffers. */
export interface PowKernel {
  readonly name: string;
  /**
   * The first i in [0, count) with keccak256(sealHash ‖ be64(start + i)) ≤ target (32 bytes BE),
   * its mix written to mixOut; -1 when none. Callers keep start + count ≤ 2^64.
   */
  search(sealHash: Uint8Array, target: Uint8Array, start: bigint, count: number, mixOut: Uint8Array): number;
  /** keccak256 of exactly 40 bytes, digest written to out[0..32). */
  hash40(input: Uint8Array, out: Uint8Array): void;
}

// Round constants as (hi, lo) 32-bit halves, from the Keccak reference.
const RC = Int32Array.from([
  0x00000000, 0x00000001, 0x00000000, 0x00008082, 0x80000000, 0x0000808a, 0x80000000, 0x80008000,
  0x00000000, 0x0000808b, 0x00000000, 0x80000001, 0x80000000, 0x80008081, 0x80000000, 0x00008009,
  0x00000000, 0x0000008a, 0x00000000, 0x00000088, 0x00000000, 0x80008009, 0x00000000, 0x8000000a,
  0x00000000, 0x8000808b, 0x80000000, 0x0000008b, 0x80000000, 0x00008089, 0x80000000, 0x00008003,
  0x80000000, 0x00008002, 0x80000000, 0x00000080, 0x00000000, 0x0000800a, 0x80000000, 0x8000000a,
  0x80000000, 0x80008081, 0x80000000, 0x00008080, 0x00000000, 0x80000001, 0x80000000, 0x80008008,
]);

/**
 * keccak-f[1600] in place on 25 lanes stored as [hi0, lo0, hi1, lo1, …]. Each round is written
 * out lane by lane: theta's column parities, then rho (rotation) and pi (lane move) fused into
 * one step per lane, then chi and iota.
 */
function keccakF(s: Int32Array): void {
  let a0h = s[0], a0l = s[1], a1h = s[2], a1l = s[3], a2h = s[4], a2l = s[5], a3h = s[6], a3l = s[7], a4h = s[8], a4l = s[9];
  let a5h = s[10], a5l = s[11], a6h = s[12], a6l = s[13], a7h = s[14], a7l = s[15], a8h = s[16], a8l = s[17], a9h = s[18], a9l = s[19];
  let a10h = s[20], a10l = s[21], a11h = s[22], a11l = s[23], a12h = s[24], a12l = s[25], a13h = s[26], a13l = s[27], a14h = s[28], a14l = s[29];
  let a15h = s[30], a15l = s[31], a16h = s[32], a16l = s[33], a17h = s[34], a17l = s[35], a18h = s[36], a18l = s[37], a19h = s[38], a19l = s[39];
  let a20h = s[40], a20l = s[41], a21h = s[42], a21l = s[43], a22h = s[44], a22l = s[45], a23h = s[46], a23l = s[47], a24h = s[48], a24l = s[49];
  let t = 0, u = 0;
  for (let round = 0; round < 48; round += 2) {
    const c0h = a0h ^ a5h ^ a10h ^ a15h ^ a20h;
    const c0l = a0l ^ a5l ^ a10l ^ a15l ^ a20l;
    const c1h = a1h ^ a6h ^ a11h ^ a16h ^ a21h;
    const c1l = a1l ^ a6l ^ a11l ^ a16l ^ a21l;
    const c2h = a2h ^ a7h ^ a12h ^ a17h ^ a22h;
    const c2l = a2l ^ a7l ^ a12l ^ a17l ^ a22l;
    const c3h = a3h ^ a8h ^ a13h ^ a18h ^ a23h;
    const c3l = a3l ^ a8l ^ a13l ^ a18l ^ a23l;
    const c4h = a4h ^ a9h ^ a14h ^ a19h ^ a24h;
    const c4l = a4l ^ a9l ^ a14l ^ a19l ^ a24l;
    const d0h = c4h ^ ((c1h << 1) | (c1l >>> 31));
    const d0l = c4l ^ ((c1l << 1) | (c1h >>> 31));
    const d1h = c0h ^ ((c2h << 1) | (c2l >>> 31));
    const d1l = c0l ^ ((c2l << 1) | (c2h >>> 31));
    const d2h = c1h ^ ((c3h << 1) | (c3l >>> 31));
    const d2l = c1l ^ ((c3l << 1) | (c3h >>> 31));
    const d3h = c2h ^ ((c4h << 1) | (c4l >>> 31));
    const d3l = c2l ^ ((c4l << 1) | (c4h >>> 31));
    const d4h = c3h ^ ((c0h << 1) | (c0l >>> 31));
    const d4l = c3l ^ ((c0l << 1) | (c0h >>> 31));
    t = a0h ^ d0h; u = a0l ^ d0l; const b0h = t, b0l = u;
    t = a1h ^ d1h; u = a1l ^ d1l; const b10h = (t << 1) | (u >>> 31), b10l = (u << 1) | (t >>> 31);
    t = a2h ^ d2h; u = a2l ^ d2l; const b20h = (u << 30) | (t >>> 2), b20l = (t << 30) | (u >>> 2);
    t = a3h ^ d3h; u = a3l ^ d3l; const b5h = (t << 28) | (u >>> 4), b5l = (u << 28) | (t >>> 4);
    t = a4h ^ d4h; u = a4l ^ d4l; const b15h = (t << 27) | (u >>> 5), b15l = (u << 27) | (t >>> 5);
    t = a5h ^ d0h; u = a5l ^ d0l; const b16h = (u << 4) | (t >>> 28), b16l = (t << 4) | (u >>> 28);
    t = a6h ^ d1h; u = a6l ^ d1l; const b1h = (u << 12) | (t >>> 20), b1l = (t << 12) | (u >>> 20);
    t = a7h ^ d2h; u = a7l ^ d2l; const b11h = (t << 6) | (u >>> 26), b11l = (u << 6) | (t >>> 26);
    t = a8h ^ d3h; u = a8l ^ d3l; const b21h = (u << 23) | (t >>> 9), b21l = (t << 23) | (u >>> 9);
    t = a9h ^ d4h; u = a9l ^ d4l; const b6h = (t << 20) | (u >>> 12), b6l = (u << 20) | (t >>> 12);
    t = a10h ^ d0h; u = a10l ^ d0l; const b7h = (t << 3) | (u >>> 29), b7l = (u << 3) | (t >>> 29);
    t = a11h ^ d1h; u = a11l ^ d1l; const b17h = (t << 10) | (u >>> 22), b17l = (u << 10) | (t >>> 22);
    t = a12h ^ d2h; u = a12l ^ d2l; const b2h = (u << 11) | (t >>> 21), b2l = (t << 11) | (u >>> 21);
    t = a13h ^ d3h; u = a13l ^ d3l; const b12h = (t << 25) | (u >>> 7), b12l = (u << 25) | (t >>> 7);
    t = a14h ^ d4h; u = a14l ^ d4l; const b22h = (u << 7) | (t >>> 25), b22l = (t << 7) | (u >>> 25);
    t = a15h ^ d0h; u = a15l ^ d0l; const b23h = (u << 9) | (t >>> 23), b23l = (t << 9) | (u >>> 23);
    t = a16h ^ d1h; u = a16l ^ d1l; const b8h = (u << 13) | (t >>> 19), b8l = (t << 13) | (u >>> 19);
    t = a17h ^ d2h; u = a17l ^ d2l; const b18h = (t << 15) | (u >>> 17), b18l = (u << 15) | (t >>> 17);
    t = a18h ^ d3h; u = a18l ^ d3l; const b3h = (t << 21) | (u >>> 11), b3l = (u << 21) | (t >>> 11);
    t = a19h ^ d4h; u = a19l ^ d4l; const b13h = (t << 8) | (u >>> 24), b13l = (u << 8) | (t >>> 24);
    t = a20h ^ d0h; u = a20l ^ d0l; const b14h = (t << 18) | (u >>> 14), b14l = (u << 18) | (t >>> 14);
    t = a21h ^ d1h; u = a21l ^ d1l; const b24h = (t << 2) | (u >>> 30), b24l = (u << 2) | (t >>> 30);
    t = a22h ^ d2h; u = a22l ^ d2l; const b9h = (u << 29) | (t >>> 3), b9l = (t << 29) | (u >>> 3);
    t = a23h ^ d3h; u = a23l ^ d3l; const b19h = (u << 24) | (t >>> 8), b19l = (t << 24) | (u >>> 8);
    t = a24h ^ d4h; u = a24l ^ d4l; const b4h = (t << 14) | (u >>> 18), b4l = (u << 14) | (t >>> 18);
    a0h = b0h ^ (~b1h & b2h); a0l = b0l ^ (~b1l & b2l);
    a1h = b1h ^ (~b2h & b3h); a1l = b1l ^ (~b2l & b3l);
    a2h = b2h ^ (~b3h & b4h); a2l = b2l ^ (~b3l & b4l);
    a3h = b3h ^ (~b4h & b0h); a3l = b3l ^ (~b4l & b0l);
    a4h = b4h ^ (~b0h & b1h); a4l = b4l ^ (~b0l & b1l);
    a5h = b5h ^ (~b6h & b7h); a5l = b5l ^ (~b6l & b7l);
    a6h = b6h ^ (~b7h & b8h); a6l = b6l ^ (~b7l & b8l);
    a7h = b7h ^ (~b8h & b9h); a7l = b7l ^ (~b8l & b9l);
    a8h = b8h ^ (~b9h & b5h); a8l = b8l ^ (~b9l & b5l);
    a9h = b9h ^ (~b5h & b6h); a9l = b9l ^ (~b5l & b6l);
    a10h = b10h ^ (~b11h & b12h); a10l = b10l ^ (~b11l & b12l);
    a11h = b11h ^ (~b12h & b13h); a11l = b11l ^ (~b12l & b13l);
    a12h = b12h ^ (~b13h & b14h); a12l = b12l ^ (~b13l & b14l);
    a13h = b13h ^ (~b14h & b10h); a13l = b13l ^ (~b14l & b10l);
    a14h = b14h ^ (~b10h & b11h); a14l = b14l ^ (~b10l & b11l);
    a15h = b15h ^ (~b16h & b17h); a15l = b15l ^ (~b16l & b17l);
    a16h = b16h ^ (~b17h & b18h); a16l = b16l ^ (~b17l & b18l);
    a17h = b17h ^ (~b18h & b19h); a17l = b17l ^ (~b18l & b19l);
    a18h = b18h ^ (~b19h & b15h); a18l = b18l ^ (~b19l & b15l);
    a19h = b19h ^ (~b15h & b16h); a19l = b19l ^ (~b15l & b16l);
    a20h = b20h ^ (~b21h & b22h); a20l = b20l ^ (~b21l & b22l);
    a21h = b21h ^ (~b22h & b23h); a21l = b21l ^ (~b22l & b23l);
    a22h = b22h ^ (~b23h & b24h); a22l = b22l ^ (~b23l & b24l);
    a23h = b23h ^ (~b24h & b20h); a23l = b23l ^ (~b24l & b20l);
    a24h = b24h ^ (~b20h & b21h); a24l = b24l ^ (~b20l & b21l);
    a0h ^= RC[round]; a0l ^= RC[round + 1];
  }
  s[0] = a0h; s[1] = a0l; s[2] = a1h; s[3] = a1l; s[4] = a2h; s[5] = a2l; s[6] = a3h; s[7] = a3l; s[8] = a4h; s[9] = a4l;
  s[10] = a5h; s[11] = a5l; s[12] = a6h; s[13] = a6l; s[14] = a7h; s[15] = a7l; s[16] = a8h; s[17] = a8l; s[18] = a9h; s[19] = a9l;
  s[20] = a10h; s[21] = a10l; s[22] = a11h; s[23] = a11l; s[24] = a12h; s[25] = a12l; s[26] = a13h; s[27] = a13l; s[28] = a14h; s[29] = a14l;
  s[30] = a15h; s[31] = a15l; s[32] = a16h; s[33] = a16l; s[34] = a17h; s[35] = a17l; s[36] = a18h; s[37] = a18l; s[38] = a19h; s[39] = a19l;
  s[40] = a20h; s[41] = a20l; s[42] = a21h; s[43] = a21l; s[44] = a22h; s[45] = a22l; s[46] = a23h; s[47] = a23l; s[48] = a24h; s[49] = a24l;
}

// Per-thread scratch: the permutation state and the 40-byte input of the search loop.
const state = new Int32Array(50);
const searchInput = new Uint8Array(40);

const le32 = (b: Uint8Array, i: number): number => b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);

function putLe32(out: Uint8Array, i: number, v: number): void {
  out[i] = v;
  out[i + 1] = v >>> 8;
  out[i + 2] = v >>> 16;
  out[i + 3] = v >>> 24;
}

/** keccak256 of input[0..40) into out[0..32). Lanes are little-endian 64-bit words of the input. */
export function keccak40(input: Uint8Array, out: Uint8Array): void {
  if (input.length < 40 || out.length < 32) throw new RangeError('keccak40 needs 40 input and 32 output bytes');
  const s = state;
  for (let lane = 0; lane < 5; lane++) {
    s[2 * lane + 1] = le32(input, 8 * lane);
    s[2 * lane] = le32(input, 8 * lane + 4);
  }
  s.fill(0, 10);
  s[11] = 0x01; // keccak padding: 0x01 right after the message (byte 40 = lane 5, low byte)…
  s[32] = 0x80000000 | 0; // …and 0x80 in the last byte of the 136-byte block (lane 16, top byte)
  keccakF(s);
  for (let lane = 0; lane < 4; lane++) {
    putLe32(out, 8 * lane, s[2 * lane + 1]);
    putLe32(out, 8 * lane + 4, s[2 * lane]);
  }
}

/** uint256(mix) ≤ uint256(target), both 32 bytes big-endian; no allocation. */
export function meetsTarget(mix: Uint8Array, target: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) {
    if (mix[i] !== target[i]) return mix[i] < target[i];
  }
  return true;
}

export const jsKernel: PowKernel = {
  name: 'js',
  hash40: keccak40,
  search(sealHash, target, start, count, mixOut) {
    const input = searchInput;
    input.set(sealHash.subarray(0, 32));
    let hi = Number(start >> 32n);
    let lo = Number(start & 0xffffffffn);
    for (let i = 0; i < count; i++) {
      putBe32(input, 32, hi);
      putBe32(input, 36, lo);
      keccak40(input, mixOut);
      if (meetsTarget(mixOut, target)) return i;
      lo = (lo + 1) >>> 0;
      if (lo === 0) hi = (hi + 1) >>> 0;
    }
    return -1;
  },
};

function putBe32(out: Uint8Array, i: number, v: number): void {
  out[i] = v >>> 24;
  out[i + 1] = v >>> 16;
  out[i + 2] = v >>> 8;
  out[i + 3] = v;
}
