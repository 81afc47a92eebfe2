// Block files for a running node (admin_exportChain / admin_importChain). Imported blocks go
// through the node's one import path (BlockImporter), which commits in turn with local sealing
// and keeps its trie writes in a node store of its own. Local sealing pauses during an import.

import type { Blockchain } from '../blockchain/blockchain.js';
import type { Miner } from '../miner/miner.js';
import type { BlockImporter } from '../importer/blockImporter.js';
import { ChainFileError } from './chainFileError.js';
import { exportChain, type ExportResult } from './exportChain.js';
import { importChain, type ImportResult } from './importChain.js';

export interface LiveChainDeps {
  chain: Blockchain;
  miner: Miner;
  importer: BlockImporter;
  /** blocks handled so far by the running import */
  onImportProgress?: (done: number) => void;
}

export interface LiveChainFiles {
  exportChain(file: string, from?: bigint, to?: bigint): Promise<ExportResult>;
  importChain(file: string): Promise<ImportResult>;
}

export function liveChainFiles(deps: LiveChainDeps): LiveChainFiles {
  let importing = false;
  return {
    exportChain: (file, from, to) => exportChain(deps.chain, file, { from, to, overwrite: false }),

    async importChain(file) {
      if (importing) throw new ChainFileError('an import is already running');
      importing = true;
      const { miner } = deps;
      const mode = miner.currentMode;
      // Local sealing stops, and the round running now ends, before the first imported block.
      if (mode !== 'off') await miner.setMode('off');
      try {
        return await importChain({ chain: deps.chain, importer: deps.importer }, file, { onProgress: deps.onImportProgress });
      } finally {
        importing = false;
        if (mode !== 'off' && miner.currentMode === 'off') void miner.setMode(mode);
      }
    },
  };
}
