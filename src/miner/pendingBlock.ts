// The `pending` block: the pool's executable transactions applied on the head, built on demand
// and reused until the head or the pool changes. Its trie writes go to a scratch node store over
// the chain's (reads share the chain's cache), so nothing of it reaches the database.

import { blockFromParts } from '../chain/block.js';
import type { Blockchain } from '../blockchain/blockchain.js';
import type { TxPool } from '../txpool/txPool.js';
import { TrieNodeStore } from '../state/trieNodeStore.js';
import type { BuiltBlock } from '../execution/blockProcessor.js';
import type { Miner } from './miner.js';

export interface PendingBlock extends BuiltBlock {
  size: number;
}

export class PendingBlockCache {
  private current: Promise<PendingBlock> | undefined;
  private readonly scratch: TrieNodeStore;

  constructor(
    nodes: TrieNodeStore,
    chain: Blockchain,
    pool: TxPool,
    private readonly miner: Miner,
  ) {
    this.scratch = TrieNodeStore.scratchOver(nodes);
    const invalidate = () => {
      this.current = undefined;
    };
    chain.on('newHead', invalidate);
    chain.on('rewound', invalidate);
    pool.on('pendingTx', invalidate);
    pool.on('dropped', invalidate);
  }

  get(): Promise<PendingBlock> {
    if (!this.current) {
      this.scratch.discardWrites();
      const building = this.miner.buildPending(this.scratch).then((built) => ({
        ...built,
        size: blockFromParts(built.header, built.transactions).size,
      }));
      building.catch(() => {
        if (this.current === building) this.current = undefined;
      });
      this.current = building;
    }
    return this.current;
  }
}
