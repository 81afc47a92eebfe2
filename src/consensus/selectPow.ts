// Builds the PoW engine a chain seals with (docs/mining-and-ethash.md).

import path from 'node:path';
import { EthashCaches, type CacheLog } from './ethash/ethashCaches.js';
import { EthashDatasets } from './ethash/ethashDataset.js';
import { EthashEngine } from './ethash/ethashEngine.js';
import { keccakPow, type PowEngine, type PowName } from './powEngine.js';

export interface PowSetup {
  /** Ethash caches go to <datadir>/ethash/; none keeps them in memory */
  datadir?: string;
  log?: CacheLog;
  /** generate Ethash caches on the calling thread instead of a worker */
  inline?: boolean;
  /** `--ethash.dagdir`: mine with the full dataset, generated or read there; none: light cache only */
  dagdir?: string;
  /** dataset generation threads (default 1) */
  dagWorkers?: number;
}

export function createPowEngine(name: PowName, setup: PowSetup = {}): PowEngine {
  if (name === 'keccak-pow') return keccakPow;
  const dir = setup.datadir === undefined ? undefined : path.join(setup.datadir, 'ethash');
  const datasets = setup.dagdir ? new EthashDatasets({ dir: setup.dagdir, workers: setup.dagWorkers ?? 1, log: setup.log }) : undefined;
  return new EthashEngine(new EthashCaches({ dir, log: setup.log, inline: setup.inline }), datasets);
}
