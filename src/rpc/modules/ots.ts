// ots_* (Otterscan API level 8) and erigon_getHeaderByNumber: reads of blocks, traces of mined
// transactions and the address index's searches, in Erigon's and Anvil's shapes (docs/explorer.md).

import type { Block, Receipt } from '../../chain/types.js';
import { bytesToHex, type BlockTag } from '../../encoding/hex.js';
import { notFound } from '../../errors.js';
import type { TransactionSearch } from '../../blockchain/transactionSearch.js';
import type { ChainTraces } from '../../tracing/chainTraces.js';
import { FlatCallTracer } from '../../tracing/flatCallTracer.js';
import { address, blockTag, count, hash, integer, method } from '../params.js';
import { formatBlock } from '../format.js';
import type { RpcMethod } from '../types.js';
import {
  formatBlockDetails, formatBlockTransactions, formatInternalOperations, formatOtsTrace, formatSearchPage,
} from './otsFormat.js';

/** What the ots module reads. */
export interface OtsBackend {
  chain: {
    readonly head: Block;
    getBlockByNumber(number: bigint): Promise<Block | undefined>;
    getBlockByHash(hash: Uint8Array): Promise<Block | undefined>;
    getReceipts(blockHash: Uint8Array): Promise<Receipt[] | undefined>;
    getTotalDifficulty(blockHash: Uint8Array): Promise<bigint | undefined>;
  };
  traces: ChainTraces;
  search: TransactionSearch;
  /** the account's code at the block `tag` names */
  codeAt(address: Uint8Array, tag: BlockTag): Promise<Uint8Array>;
  /** the miner's reward for block `number` */
  blockReward(number: bigint): bigint;
}

/** The Otterscan API level served (Erigon's and Anvil's current one). */
export const OTS_API_LEVEL = 8;
/** Largest page a search or block page returns, whatever is asked. */
const MAX_PAGE = 1000;

export function otsMethods(b: OtsBackend): Record<string, RpcMethod> {
  const { chain } = b;
  const page = (n: number) => Math.max(1, Math.min(n, MAX_PAGE));
  const td = async (block: Block) => (await chain.getTotalDifficulty(block.hash)) ?? 0n;
  const details = async (block: Block | undefined) => {
    if (!block) return null;
    const receipts = (await chain.getReceipts(block.hash)) ?? [];
    return formatBlockDetails({ block, totalDifficulty: await td(block), receipts, blockReward: b.blockReward(block.header.number) });
  };
  const traced = async (txHash: Uint8Array) => {
    const found = await b.traces.transaction(txHash, () => new FlatCallTracer());
    if (!found) throw notFound(`transaction ${bytesToHex(txHash)} not found`);
    return found.result;
  };

  return {
    ots_getApiLevel: method([], () => OTS_API_LEVEL),
    ots_hasCode: method([address, blockTag], async (a, tag) => (await b.codeAt(a, tag)).length > 0),
    ots_getInternalOperations: method([hash], async (h) => formatInternalOperations((await traced(h)).root)),
    ots_getTransactionError: method([hash], async (h) => {
      const { root } = await traced(h);
      return root?.error !== undefined ? bytesToHex(root.output) : '0x';
    }),
    ots_traceTransaction: method([hash], async (h) => formatOtsTrace((await traced(h)).root)),
    ots_getBlockDetails: method([integer], async (n) => details(await chain.getBlockByNumber(n))),
    ots_getBlockDetailsByHash: method([hash], async (h) => details(await chain.getBlockByHash(h))),
    ots_getBlockTransactions: method([integer, count, count], async (n, pageNumber, pageSize) => {
      const block = await chain.getBlockByNumber(n);
      if (!block) return null;
      return formatBlockTransactions(block, await td(block), (await chain.getReceipts(block.hash)) ?? [], pageNumber, page(pageSize));
    }),
    ots_searchTransactionsBefore: method([address, integer, count], async (a, n, size) => formatSearchPage(await b.search.before(a, n, page(size)))),
    ots_searchTransactionsAfter: method([address, integer, count], async (a, n, size) => formatSearchPage(await b.search.after(a, n, page(size)))),
    ots_getTransactionBySenderAndNonce: method([address, integer], async (a, nonce) => {
      const tx = await b.search.bySenderAndNonce(a, nonce);
      return tx ? bytesToHex(tx.hash) : null;
    }),
    ots_getContractCreator: method([address], async (a) => {
      if ((await b.codeAt(a, 'latest')).length === 0) return null;
      const found = await b.search.creator(a);
      return found ? { hash: bytesToHex(found.tx.hash), creator: bytesToHex(found.creator) } : null;
    }),
    erigon_getHeaderByNumber: method([integer], async (n) => {
      const block = await chain.getBlockByNumber(n);
      return block ? formatBlock(block, await td(block), false) : null;
    }),
  };
}
