// Sync's view of the chain's one import path (BlockImporter): a block whose parent we lack is
// not an error there but a reason to sync from the peer that sent it.

import { UnknownParent, type BlockImporter } from '../importer/blockImporter.js';
import type { BlockImport } from './types.js';

export function chainImport(importer: Pick<BlockImporter, 'importBlock' | 'importBlocks'>): BlockImport {
  return {
    reorgs: true,
    async importBlock(block) {
      try {
        return await importer.importBlock(block);
      } catch (err) {
        if (err instanceof UnknownParent) return 'orphan';
        throw err;
      }
    },
    async importBlocks(blocks) {
      try {
        return await importer.importBlocks(blocks);
      } catch (err) {
        // Blocks before the orphan were committed; the run stops there.
        if (err instanceof UnknownParent) return ['orphan'];
        throw err;
      }
    },
  };
}
