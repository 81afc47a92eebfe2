// Block files for a running node (admin_exportChain / admin_importChain). Imported blocks are
// committed through the miner's queue, in turn with local sealing, and their trie writes collect
// in a node store of their own so that a block being mined meanwhile cannot mix with them.
// Local sealing pauses during an import; a block sealed anyway makes the import stop cleanly.

import type { Blockchain } from '../blockchain/blockchain.js';
import type { DifficultyRule } from '../consensus/difficulty.js';
import type { PowEngine } from '../consensus/powEngine.js';
import { bytesToBigint } from '../encoding/bytes.js';
import type { BlockBuilder } from '../miner/blockBuilder.js';
import type { Miner } from '../miner/miner.js';
import { TrieNodeStore } from '../state/trieNodeStore.js';
import type { Database } from '../store/database.js';
import { ChainFileError } from './chainFileError.js';
import { exportChain, type ExportResult } from './exportChain.js';
import { importChain, type ImportResult } from './importChain.js';

export interface LiveChainDeps {
  db: Database;
  chain: Blockchain;
  builder: BlockBuilder;
  miner: Miner;
  chainId: bigint;
  difficulty: DifficultyRule;
  pow: PowEngine;
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
      if (mode !== 'off') miner.setMode('off');
      try {
        return await importChain(
          {
            chain: deps.chain,
            builder: deps.builder,
            nodes: new TrieNodeStore(deps.db, 20_000),
            chainId: deps.chainId,
            difficulty: deps.difficulty,
            pow: deps.pow,
            commit: ({ block, built }, nodes) =>
              miner.commitSealed(built, { nonce: bytesToBigint(block.header.nonce), mix: block.header.mixHash }, nodes),
          },
          file,
          { onProgress: deps.onImportProgress },
        );
      } finally {
        importing = false;
        if (mode !== 'off' && miner.currentMode === 'off') miner.setMode(mode);
      }
    },
  };
}
