// Ethash behind the PoW interface: verification hashes with the light cache on this thread (a
// few milliseconds a block), the search runs in workers from the epoch's shared cache, or from
// the shared full dataset once `--ethash.dagdir` has it ready.

import { bytesToBigint, equalBytes } from '../../encoding/bytes.js';
import { bytesToHex } from '../../encoding/hex.js';
import { powMix, powTarget, targetBytes } from '../pow.js';
import { epochSeedOf, type PowEngine, type SealedHeader, type SearchContext } from '../powEngine.js';
import { EthashKernel } from './ethashKernel.js';
import type { EthashCaches } from './ethashCaches.js';
import type { EthashDatasets } from './ethashDataset.js';
import { datasetSize, epochOf } from './params.js';

/** Verification kernels kept (each holds one epoch's cache). */
const VERIFIERS = 2;

export class EthashEngine implements PowEngine {
  readonly name = 'ethash' as const;
  // ~1,000 hashes/s a worker: small tasks, and a look at the abort flag every few milliseconds.
  readonly tuning = { inlineMaxDifficulty: 0n, batchSize: 256, slice: 8 };
  readonly seedHash = epochSeedOf;
  readonly target = targetBytes;
  private readonly verifiers = new Map<number, EthashKernel>();

  constructor(readonly caches: EthashCaches, readonly datasets?: EthashDatasets) {}

  async check(header: SealedHeader): Promise<string | undefined> {
    const { sealHash, nonce, mixHash, difficulty } = header;
    if (sealHash.length !== 32 || nonce.length !== 8 || mixHash.length !== 32) return 'malformed seal fields';
    if (difficulty <= 0n) return 'difficulty must be positive';
    const kernel = await this.verifier(epochOf(header.number));
    const { mix, result } = kernel.hash(sealHash, bytesToBigint(nonce));
    if (!equalBytes(mix, mixHash)) {
      if (equalBytes(powMix(sealHash, nonce), mixHash)) return 'sealed with keccak-pow, but this chain seals with Ethash';
      return `wrong mix digest ${bytesToHex(mixHash)} (Ethash gives ${bytesToHex(mix)})`;
    }
    if (bytesToBigint(result) > powTarget(difficulty)) return 'Ethash result above the difficulty target';
    return undefined;
  }

  async searchContext(number: bigint): Promise<SearchContext> {
    const epoch = epochOf(number);
    const cache = await this.caches.get(epoch);
    const dataset = this.datasets?.ready(epoch);
    // A capped dataset (tests) is never mined with: its pages would give other mixes.
    if (dataset && dataset.length === datasetSize(epoch)) return { pow: 'ethash', epoch, cache, dataset };
    return { pow: 'ethash', epoch, cache };
  }

  prepare(number: bigint): void {
    const epoch = epochOf(number);
    this.caches.prepare(epoch);
    this.datasets?.prepare(epoch, () => this.caches.get(epoch));
  }

  describe(): string {
    return this.datasets ? 'ethash (full dataset from --ethash.dagdir when ready, light cache until then)' : 'ethash (light cache)';
  }

  async close(): Promise<void> {
    this.verifiers.clear();
    await this.datasets?.close();
  }

  private async verifier(epoch: number): Promise<EthashKernel> {
    const cache = await this.caches.get(epoch);
    let kernel = this.verifiers.get(epoch);
    if (!kernel) {
      kernel = new EthashKernel();
      kernel.loadCache(epoch, cache);
      this.verifiers.set(epoch, kernel);
      while (this.verifiers.size > VERIFIERS) this.verifiers.delete(this.verifiers.keys().next().value!);
    }
    return kernel;
  }
}
