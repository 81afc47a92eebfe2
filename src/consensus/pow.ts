// keccak-pow (docs/mining-and-ethash.md#keccak-pow): mix = keccak256(sealHash ‖ nonce as 8 bytes big-endian), valid iff
// uint256(mix) ≤ floor(2^256 / difficulty). Pure functions; the search runs on the fastest kernel
// this thread can build (WebAssembly, else the JavaScript reference), verification on the library
// keccak so that a kernel bug can never make us accept a bad seal.

import { bigintToFixed, bytesToBigint, equalBytes, keccak256 } from '../encoding/bytes.js';
// Verification uses the library keccak, independent of the WebAssembly code the search and the
// node's own hashing share, so a bug there can never make the node accept a bad seal.
import { libraryKeccak256 } from '../encoding/keccak.js';
import { jsKernel, type PowKernel } from './keccak40.js';
import { createWasmKernel } from './keccak40Wasm.js';

const TWO_POW_256 = 1n << 256n;
const MAX_UINT256 = TWO_POW_256 - 1n;
const NONCE_SPACE = 1n << 64n;
export const EPOCH_LENGTH = 30000n;
/** Epochs beyond this (≈ 2 billion blocks) are refused rather than cached. */
const MAX_EPOCH = 1 << 16;
/** The wasm kernel counts in i32; larger ranges are searched in slices. */
const MAX_SLICE = 1 << 30;

/** target = min(2^256 − 1, floor(2^256 / difficulty)). */
export function powTarget(difficulty: bigint): bigint {
  if (difficulty <= 0n) throw new RangeError('difficulty must be positive');
  const target = TWO_POW_256 / difficulty;
  return target > MAX_UINT256 ? MAX_UINT256 : target;
}

/** The target as 32 bytes big-endian, as mc_getWork hands it out. */
export function targetBytes(difficulty: bigint): Uint8Array {
  return bigintToFixed(powTarget(difficulty), 32);
}

/** The header's 8-byte nonce field. */
export function nonceBytes(nonce: bigint): Uint8Array {
  if (nonce < 0n || nonce >= NONCE_SPACE) throw new RangeError('nonce out of range');
  return bigintToFixed(nonce, 8);
}

// seeds[e] = keccak256^e(32 zero bytes); extended on demand, each epoch computed once.
const seeds: Uint8Array[] = [new Uint8Array(32)];

/** The ethash epoch seed of a block: keccak256 applied floor(number / 30000) times to 32 zero bytes. */
export function seedHash(blockNumber: bigint): Uint8Array {
  if (blockNumber < 0n) throw new RangeError('negative block number');
  const epoch = blockNumber / EPOCH_LENGTH;
  if (epoch > BigInt(MAX_EPOCH)) throw new RangeError('block number beyond the seed hash range');
  while (seeds.length <= Number(epoch)) seeds.push(keccak256(seeds[seeds.length - 1]));
  return seeds[Number(epoch)].slice();
}

/** keccak256(sealHash ‖ nonce8). */
export function powMix(sealHash: Uint8Array, nonce8: Uint8Array): Uint8Array {
  if (sealHash.length !== 32 || nonce8.length !== 8) throw new RangeError('powMix needs a 32-byte hash and an 8-byte nonce');
  const input = new Uint8Array(40);
  input.set(sealHash);
  input.set(nonce8, 32);
  return libraryKeccak256(input);
}

/** True iff mixHash is the seal's mix and meets the difficulty's target. Malformed input is just invalid. */
export function verifyPow(sealHash: Uint8Array, nonce8: Uint8Array, mixHash: Uint8Array, difficulty: bigint): boolean {
  if (sealHash.length !== 32 || nonce8.length !== 8 || mixHash.length !== 32 || difficulty <= 0n) return false;
  const mix = powMix(sealHash, nonce8);
  return equalBytes(mix, mixHash) && bytesToBigint(mix) <= powTarget(difficulty);
}

let kernel: PowKernel | undefined;

/** This thread's search kernel, built on first use. */
export function powKernel(): PowKernel {
  if (!kernel) {
    try {
      kernel = createWasmKernel() ?? jsKernel;
    } catch {
      kernel = jsKernel; // e.g. node --jitless has no WebAssembly compiler
    }
  }
  return kernel;
}

/**
 * The smallest nonce in [start, start + count) whose mix meets `target` (32 bytes BE), with its
 * mix; undefined when none does. The range stops at 2^64 (nonces are 8 bytes).
 */
export function searchNonce(
  sealHash: Uint8Array,
  target: Uint8Array,
  start: bigint,
  count: number,
): { nonce: bigint; mix: Uint8Array } | undefined {
  if (sealHash.length !== 32 || target.length !== 32) throw new RangeError('searchNonce needs a 32-byte hash and target');
  if (start < 0n || start >= NONCE_SPACE) throw new RangeError('start nonce out of range');
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError('count must be a non-negative integer');
  const k = powKernel();
  const mix = new Uint8Array(32);
  let remaining = NONCE_SPACE - start < BigInt(count) ? Number(NONCE_SPACE - start) : count;
  let from = start;
  while (remaining > 0) {
    const slice = Math.min(remaining, MAX_SLICE);
    const hit = k.search(sealHash, target, from, slice, mix);
    if (hit >= 0) return { nonce: from + BigInt(hit), mix };
    from += BigInt(slice);
    remaining -= slice;
  }
  return undefined;
}
