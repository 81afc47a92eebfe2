// The canonical chain as readers see it in a fork (docs/fork-mode.md#history): blocks above the
// fork block from the store, the fork block and everything below it from the fork's history
// source (the upstream's chain, fetched and cached by src/fork/). The store holds the fork block
// only as the parent of the first local block (its header, no body), so a reader asking for it
// gets the upstream's block with its transactions. Writers (miner, importer, rewinds) keep using
// the Blockchain itself.

import type { Block, Receipt } from '../chain/types.js';
import type { Blockchain, TxLocation } from './blockchain.js';

/** The upstream's chain at and below the fork block (src/fork/forkHistory.ts). */
export interface HistorySource {
  /** the fork block's number: the history serves it and every block below */
  readonly forkNumber: bigint;
  hashByNumber(n: bigint): Promise<Uint8Array | undefined>;
  block(hash: Uint8Array): Promise<{ block: Block; totalDifficulty: bigint } | undefined>;
  receipts(hash: Uint8Array): Promise<Receipt[] | undefined>;
  findTransaction(hash: Uint8Array): Promise<TxLocation | undefined>;
}

/** The reads of the chain that RPC, filters and BLOCKHASH make (Blockchain has them all). */
export interface ChainReader {
  readonly head: Block;
  getHashByNumber(number: bigint): Promise<Uint8Array | undefined>;
  getBlockByNumber(number: bigint): Promise<Block | undefined>;
  getBlockByHash(hash: Uint8Array): Promise<Block | undefined>;
  getReceipts(blockHash: Uint8Array): Promise<Receipt[] | undefined>;
  getTotalDifficulty(blockHash: Uint8Array): Promise<bigint | undefined>;
  findTransaction(txHash: Uint8Array): Promise<TxLocation | undefined>;
}

export class ChainHistory implements ChainReader {
  /** a transaction the node holds (its pool): not looked for upstream, a receipt poll costs nothing there */
  isLocal: (txHash: Uint8Array) => boolean = () => false;

  constructor(
    private readonly chain: Blockchain,
    private readonly history: HistorySource,
  ) {}

  get head(): Block {
    return this.chain.head;
  }

  private get forkNumber(): bigint {
    return this.history.forkNumber;
  }

  getHashByNumber(number: bigint): Promise<Uint8Array | undefined> {
    // The fork block's hash is the stored anchor's: BLOCKHASH needs no upstream for it.
    return number >= this.forkNumber ? this.chain.getHashByNumber(number) : this.history.hashByNumber(number);
  }

  async getBlockByNumber(number: bigint): Promise<Block | undefined> {
    if (number > this.forkNumber) return this.chain.getBlockByNumber(number);
    const hash = await this.history.hashByNumber(number);
    return hash && (await this.history.block(hash))?.block;
  }

  async getBlockByHash(hash: Uint8Array): Promise<Block | undefined> {
    const local = await this.chain.getBlockByHash(hash);
    if (local && local.header.number > this.forkNumber) return local;
    return (await this.history.block(hash))?.block;
  }

  async getReceipts(blockHash: Uint8Array): Promise<Receipt[] | undefined> {
    const local = await this.chain.getBlockByHash(blockHash);
    if (local && local.header.number > this.forkNumber) return this.chain.getReceipts(blockHash);
    return this.history.receipts(blockHash);
  }

  async getTotalDifficulty(blockHash: Uint8Array): Promise<bigint | undefined> {
    return (await this.chain.getTotalDifficulty(blockHash)) ?? (await this.history.block(blockHash))?.totalDifficulty;
  }

  async findTransaction(txHash: Uint8Array): Promise<TxLocation | undefined> {
    // The pool first: a sealed transaction leaves it only once its block is stored, so a
    // transaction pooled now is found below if sealed meanwhile, and never asked upstream.
    const pooled = this.isLocal(txHash);
    const local = await this.chain.findTransaction(txHash);
    if (local || pooled) return local;
    return this.history.findTransaction(txHash);
  }
}
