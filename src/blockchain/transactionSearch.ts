// What Otterscan asks of the chain beyond blocks and traces: an address's transactions page by
// page (from the address index), a sender's transaction by nonce, and who created a contract.
// Pages hold whole blocks and run newest first, as Erigon's ots_search* return them.

import type { Block, Receipt, SignedTx } from '../chain/types.js';
import { equalBytes } from '../encoding/bytes.js';
import { wrongState } from '../errors.js';
import type { AddressIndexReader, TxPlace } from './addressIndex.js';

/** The chain reads a search needs. */
export interface SearchChain {
  readonly head: Block;
  getBlockByNumber(number: bigint): Promise<Block | undefined>;
  getReceipts(blockHash: Uint8Array): Promise<Receipt[] | undefined>;
}

export interface FoundTx {
  tx: SignedTx;
  receipt: Receipt;
  block: Block;
  index: number;
  /** index of the transaction's first log in its block */
  firstLogIndex: number;
}

export interface SearchPage {
  /** newest first */
  txs: FoundTx[];
  /** no newer transaction of the address exists */
  firstPage: boolean;
  /** no older transaction of the address exists */
  lastPage: boolean;
}

export interface TransactionSearchDeps {
  chain: SearchChain;
  index: AddressIndexReader;
  /** the rebuild's progress while the index of an older datadir is being built */
  building: () => { next: bigint; end: bigint } | undefined;
  /** the account's nonce after block `number` (0 when it does not exist) */
  nonceAt: (address: Uint8Array, number: bigint) => Promise<bigint>;
  /** the contract `address` created by a frame of the transaction, with that frame's caller */
  creatorIn: (txHash: Uint8Array, address: Uint8Array) => Promise<Uint8Array | undefined>;
}

/** Candidate transactions examined for a contract's creation, oldest first. */
const CREATOR_CANDIDATES = 64;

export class TransactionSearch {
  constructor(private readonly deps: TransactionSearchDeps) {}

  /** Transactions of `address` in blocks before `block` (0: up to the head), at least `pageSize` unless fewer exist. */
  async before(address: Uint8Array, block: bigint, pageSize: number): Promise<SearchPage> {
    this.ready();
    const head = this.deps.chain.head.header.number;
    const to = block === 0n || block > head ? head : block - 1n;
    const { places, more } = await this.deps.index.search(address, 0n, to, true, pageSize);
    const firstPage = to >= head || (await this.deps.index.search(address, to + 1n, head, false, 1)).places.length === 0;
    return { txs: await this.load(places), firstPage, lastPage: !more };
  }

  /** Transactions of `address` in blocks after `block`, at least `pageSize` unless fewer exist; newest first. */
  async after(address: Uint8Array, block: bigint, pageSize: number): Promise<SearchPage> {
    this.ready();
    const head = this.deps.chain.head.header.number;
    const { places, more } = await this.deps.index.search(address, block + 1n, head, false, pageSize);
    const lastPage = (await this.deps.index.search(address, 0n, block, true, 1)).places.length === 0;
    return { txs: (await this.load(places)).reverse(), firstPage: !more, lastPage };
  }

  /** The hash of `sender`'s transaction with `nonce`, found by bisecting the sender's nonce over the blocks. */
  async bySenderAndNonce(sender: Uint8Array, nonce: bigint): Promise<SignedTx | undefined> {
    const { chain, nonceAt } = this.deps;
    let hi = chain.head.header.number;
    if ((await nonceAt(sender, hi)) <= nonce) return undefined;
    let lo = 0n; // nonce at lo is <= nonce; at hi it is > nonce
    while (lo + 1n < hi) {
      const mid = (lo + hi) / 2n;
      if ((await nonceAt(sender, mid)) > nonce) hi = mid;
      else lo = mid;
    }
    const block = await chain.getBlockByNumber(hi);
    return block?.transactions.find((tx) => tx.nonce === nonce && equalBytes(tx.from, sender));
  }

  /** The transaction that created the contract at `address` and its creator, from the address's oldest transactions. */
  async creator(address: Uint8Array): Promise<{ tx: SignedTx; creator: Uint8Array } | undefined> {
    this.ready();
    const places = await this.deps.index.first(address, CREATOR_CANDIDATES, this.deps.chain.head.header.number);
    for (const found of await this.load(places)) {
      const { tx, receipt } = found;
      if (receipt.contractAddress && equalBytes(receipt.contractAddress, address)) return { tx, creator: tx.from };
      const creator = await this.deps.creatorIn(tx.hash, address);
      if (creator) return { tx, creator };
    }
    return undefined;
  }

  private ready(): void {
    const building = this.deps.building();
    if (building) throw wrongState(`the address index is being built (block ${building.next} of ${building.end}); try again later`);
  }

  private async load(places: TxPlace[]): Promise<FoundTx[]> {
    const out: FoundTx[] = [];
    let block: Block | undefined;
    let receipts: Receipt[] | undefined;
    for (const { number, index } of places) {
      if (!block || block.header.number !== number) {
        block = await this.deps.chain.getBlockByNumber(number);
        receipts = block && (await this.deps.chain.getReceipts(block.hash));
      }
      const tx = block?.transactions[index];
      const receipt = receipts?.[index];
      if (!block || !tx || !receipt) continue;
      let firstLogIndex = 0;
      for (let i = 0; i < index; i++) firstLogIndex += receipts![i].logs.length;
      out.push({ tx, receipt, block, index, firstLogIndex });
    }
    return out;
  }
}
