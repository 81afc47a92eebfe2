// The block import sync uses until the chain has its own import path with side chains: a peer's
// block that extends our head is verified completely (verifyBlock) and committed through the
// miner's write queue, as a mined block is. A block on another branch is not stored.

import type { Blockchain } from '../blockchain/blockchain.js';
import type { DifficultyRule } from '../consensus/difficulty.js';
import { bytesToBigint, equalBytes } from '../encoding/bytes.js';
import type { BlockBuilder } from '../miner/blockBuilder.js';
import type { Miner } from '../miner/miner.js';
import type { TrieNodeStore } from '../state/trieNodeStore.js';
import { verifyBlock } from '../chainFile/verifyBlock.js';
import type { BlockImport, ImportOutcome, IncomingBlock } from './types.js';

export interface HeadImportDeps {
  chain: Blockchain;
  builder: BlockBuilder;
  miner: Miner;
  nodes: TrieNodeStore;
  chainId: bigint;
  difficulty: DifficultyRule;
}

export function headImport(deps: HeadImportDeps): BlockImport {
  const { chain } = deps;
  // One block at a time: the verification's trie writes share one node store.
  let queue: Promise<unknown> = Promise.resolve();
  const one = async (block: IncomingBlock): Promise<ImportOutcome> => {
    const canonical = await chain.getHashByNumber(block.header.number);
    if (canonical && equalBytes(canonical, block.hash)) return 'known';
    const parent = chain.head;
    if (!equalBytes(block.header.parentHash, parent.hash)) return 'side';
    const verified = await verifyBlock(parent, { header: block.header, rawTxs: block.rawTxs }, block.encoded, deps);
    const stored = await deps.miner.commitSealed(
      verified.built,
      { nonce: bytesToBigint(block.header.nonce), mix: block.header.mixHash },
      deps.nodes,
    );
    return stored ? 'extended' : 'side';
  };
  return {
    reorgs: false,
    importBlock(block) {
      const job = queue.then(() => one(block));
      queue = job.catch(() => undefined);
      return job;
    },
  };
}
