// The one proof-of-work interface: what the sealer, work packages, import and fixtures ask of
// "the PoW", so that none of them needs to know whether keccak-pow or Ethash runs. The search
// itself happens in workers from a plain-data SearchContext (see powSearchStep.ts).

import { bytesToBigint, equalBytes } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import { powMix, powTarget, targetBytes } from './pow.js';
import { epochOf, epochSeed } from './ethash/params.js';
import type { PowName } from './powNames.js';

export { POW_NAMES, type PowName } from './powNames.js';

/** What a search needs besides the seal hash and target; plain data that crosses threads. */
export type SearchContext =
  | { pow: 'keccak-pow' }
  /** cache (and dataset in full mode) live on SharedArrayBuffers: posting them to a worker copies nothing */
  | { pow: 'ethash'; epoch: number; cache: Uint8Array; dataset?: Uint8Array };

/** The seal fields of a header, as verification needs them. */
export interface SealedHeader {
  number: bigint;
  sealHash: Uint8Array;
  /** 8 bytes big-endian, as in the header */
  nonce: Uint8Array;
  mixHash: Uint8Array;
  difficulty: bigint;
}

/** How the sealer splits a search: hashes per worker task and between looks at the abort flag. */
export interface SearchTuning {
  /** at or below this difficulty the search runs inline on the calling thread */
  inlineMaxDifficulty: bigint;
  batchSize: number;
  slice: number;
}

export interface PowEngine {
  readonly name: PowName;
  readonly tuning: SearchTuning;
  /** mc_getWork's seed hash of block `number`: the Ethash epoch seed */
  seedHash(number: bigint): Uint8Array;
  /** mc_getWork's target: floor(2^256 / difficulty), 32 bytes big-endian */
  target(difficulty: bigint): Uint8Array;
  /** undefined when the seal is valid, else why not (a short phrase) */
  check(header: SealedHeader): Promise<string | undefined>;
  /** the data a search for block `number` needs (Ethash waits for that epoch's cache) */
  searchContext(number: bigint): Promise<SearchContext>;
  /** Starts preparing what a head at `number` will need (Ethash: current and next cache); never waits. */
  prepare(number: bigint): void;
  /** what start-up logs and admin_nodeInfo show */
  describe(): string;
  close(): Promise<void>;
}

export function epochSeedOf(number: bigint): Uint8Array {
  return epochSeed(epochOf(number));
}

/** Checks one keccak-pow seal, naming what is wrong. */
export function checkKeccakSeal(header: SealedHeader): string | undefined {
  const { sealHash, nonce, mixHash, difficulty } = header;
  if (sealHash.length !== 32 || nonce.length !== 8 || mixHash.length !== 32) return 'malformed seal fields';
  if (difficulty <= 0n) return 'difficulty must be positive';
  const mix = powMix(sealHash, nonce);
  if (!equalBytes(mix, mixHash)) return `wrong mix digest ${bytesToHex(mixHash)} (keccak-pow gives ${bytesToHex(mix)})`;
  if (bytesToBigint(mix) > powTarget(difficulty)) return 'keccak-pow seal above the difficulty target';
  return undefined;
}

/** keccak-pow (docs/mining-and-ethash.md#keccak-pow): the fast devnet default. */
export const keccakPow: PowEngine = {
  name: 'keccak-pow',
  tuning: { inlineMaxDifficulty: 50_000n, batchSize: 1 << 15, slice: 4096 },
  seedHash: epochSeedOf,
  target: targetBytes,
  check: async (header) => checkKeccakSeal(header),
  searchContext: async () => ({ pow: 'keccak-pow' }),
  prepare: () => undefined,
  describe: () => 'keccak-pow',
  close: async () => undefined,
};
