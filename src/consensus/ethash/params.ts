// Ethash's epoch parameters as the Ethash specification fixes them: 30,000-block epochs, a
// cache that starts at 16 MiB and a dataset at 1 GiB, both growing linearly per epoch and
// trimmed down to a prime number of rows so that indices spread evenly. Pure arithmetic.

import { keccak256 } from '../../encoding/bytes.js';

export const EPOCH_LENGTH = 30000n;
export const HASH_BYTES = 64;
export const MIX_BYTES = 128;
const CACHE_BYTES_INIT = 2 ** 24;
const CACHE_BYTES_GROWTH = 2 ** 17;
const DATASET_BYTES_INIT = 2 ** 30;
const DATASET_BYTES_GROWTH = 2 ** 23;
/** Epochs beyond this (≈ 2 billion blocks) are refused rather than sized. */
export const MAX_EPOCH = 1 << 16;

export function epochOf(blockNumber: bigint): number {
  if (blockNumber < 0n) throw new RangeError('negative block number');
  const epoch = blockNumber / EPOCH_LENGTH;
  if (epoch > BigInt(MAX_EPOCH)) throw new RangeError('block number beyond the Ethash epoch range');
  return Number(epoch);
}

/** Trial division is enough: row counts stay below 2^27, so divisors below 2^14. */
function isPrime(n: number): boolean {
  if (n < 2) return false;
  if (n % 2 === 0) return n === 2;
  for (let d = 3; d * d <= n; d += 2) if (n % d === 0) return false;
  return true;
}

/** Largest size ≤ init + growth·epoch − row whose row count is prime, stepping two rows at a time. */
function primeRows(init: number, growth: number, row: number, epoch: number): number {
  let size = init + growth * epoch - row;
  while (!isPrime(size / row)) size -= 2 * row;
  return size;
}

const cacheSizes = new Map<number, number>();
const datasetSizes = new Map<number, number>();

/** The light cache of an epoch, in bytes (a multiple of 64). */
export function cacheSize(epoch: number): number {
  let size = cacheSizes.get(epoch);
  if (size === undefined) cacheSizes.set(epoch, (size = primeRows(CACHE_BYTES_INIT, CACHE_BYTES_GROWTH, HASH_BYTES, epoch)));
  return size;
}

/** The full dataset of an epoch, in bytes (a multiple of 128). */
export function datasetSize(epoch: number): number {
  let size = datasetSizes.get(epoch);
  if (size === undefined) datasetSizes.set(epoch, (size = primeRows(DATASET_BYTES_INIT, DATASET_BYTES_GROWTH, MIX_BYTES, epoch)));
  return size;
}

// seeds[e] = keccak256^e(32 zero bytes); extended on demand, each epoch computed once.
const seeds: Uint8Array[] = [new Uint8Array(32)];

/** The epoch's seed hash: keccak256 applied `epoch` times to 32 zero bytes. */
export function epochSeed(epoch: number): Uint8Array {
  if (!Number.isInteger(epoch) || epoch < 0 || epoch > MAX_EPOCH) throw new RangeError('epoch out of range');
  while (seeds.length <= epoch) seeds.push(keccak256(seeds[seeds.length - 1]));
  return seeds[epoch].slice();
}
