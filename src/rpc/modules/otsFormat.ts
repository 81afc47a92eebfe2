// Otterscan's JSON shapes (API level 8, as Erigon and Anvil answer): internal operations, the
// flat trace list, block details with issuance and fees, search pages with receipt timestamps.

import type { Block, Receipt, SignedTx } from '../../chain/types.js';
import { bytesToHex, encodeQuantity } from '../../encoding/hex.js';
import type { FoundTx, SearchPage } from '../../blockchain/transactionSearch.js';
import type { TraceFrame } from '../../tracing/flatCallTracer.js';
import { flattenFrames } from '../../tracing/traceFilter.js';
import { formatBlock, formatReceipt, formatTransaction } from '../format.js';

/** Otterscan's operation types. */
const OP = { transfer: 0, selfDestruct: 1, create: 2, create2: 3 } as const;

/** Frames in the order they ran: each frame before the frames it opened. */
const preOrder = (root: TraceFrame | undefined): TraceFrame[] => flattenFrames(root).map((e) => e.frame);

/**
 * Value moved inside a transaction (Erigon's operations tracer): CALLs with value, creations and
 * self-destructs below the top frame; the transaction's own transfer is not internal.
 */
export function formatInternalOperations(root: TraceFrame | undefined) {
  const ops: { type: number; from: string; to: string; value: string }[] = [];
  for (const f of preOrder(root)) {
    if (f.depth === 0) continue;
    const type = f.type === 'CALL' ? (f.value > 0n ? OP.transfer : undefined)
      : f.type === 'CREATE' ? OP.create : f.type === 'CREATE2' ? OP.create2 : f.type === 'SELFDESTRUCT' ? OP.selfDestruct : undefined;
    if (type === undefined || !f.to) continue;
    ops.push({ type, from: bytesToHex(f.from), to: bytesToHex(f.to), value: encodeQuantity(f.value) });
  }
  return ops;
}

/** ots_traceTransaction: every frame with its depth; no value for DELEGATECALL and STATICCALL. */
export function formatOtsTrace(root: TraceFrame | undefined) {
  return preOrder(root).map((f) => ({
    type: f.type,
    depth: f.depth,
    from: bytesToHex(f.from),
    to: f.to ? bytesToHex(f.to) : null,
    value: f.type === 'DELEGATECALL' || f.type === 'STATICCALL' ? null : encodeQuantity(f.value),
    input: bytesToHex(f.input),
    output: bytesToHex(f.output),
  }));
}

export interface BlockDetailsInput {
  block: Block;
  totalDifficulty: bigint;
  receipts: Receipt[];
  blockReward: bigint;
}

const fees = (block: Block, receipts: Receipt[]) =>
  block.transactions.reduce((sum, tx, i) => sum + (receipts[i]?.gasUsed ?? 0n) * tx.gasPrice, 0n);

/** ots_getBlockDetails: the block without its transactions, their count, the issuance and the fees paid. */
export function formatBlockDetails({ block, totalDifficulty, receipts, blockReward }: BlockDetailsInput) {
  const { transactions: _omitted, ...rest } = formatBlock(block, totalDifficulty, false);
  return {
    block: { ...rest, transactionCount: block.transactions.length },
    issuance: { blockReward: encodeQuantity(blockReward), uncleReward: '0x0', issuance: encodeQuantity(blockReward) },
    totalFees: encodeQuantity(fees(block, receipts)),
  };
}

function receiptWithTime(tx: SignedTx, receipt: Receipt, block: Block, index: number, firstLogIndex: number) {
  return { ...formatReceipt(tx, receipt, block, index, firstLogIndex), timestamp: encodeQuantity(block.header.timestamp) };
}

/** ots_getBlockTransactions: one page of the block's transactions (full, input cut to its selector, as Erigon) with their receipts. */
export function formatBlockTransactions(block: Block, totalDifficulty: bigint, receipts: Receipt[], page: number, pageSize: number) {
  const full = formatBlock(block, totalDifficulty, true);
  const start = page * pageSize;
  const end = Math.min(start + pageSize, block.transactions.length);
  let firstLogIndex = 0;
  for (let i = 0; i < start && i < receipts.length; i++) firstLogIndex += receipts[i].logs.length;
  const pageReceipts = [];
  for (let i = start; i < end; i++) {
    pageReceipts.push(receiptWithTime(block.transactions[i], receipts[i], block, i, firstLogIndex));
    firstLogIndex += receipts[i].logs.length;
  }
  return {
    fullblock: {
      ...full,
      transactions: full.transactions.slice(start, Math.max(start, end)).map((tx) => ({ ...(tx as { input: string }), input: (tx as { input: string }).input.slice(0, 10) })),
      transactionCount: block.transactions.length,
    },
    receipts: pageReceipts,
  };
}

const txAt = (f: FoundTx) => formatTransaction(f.tx, { blockHash: f.block.hash, blockNumber: f.block.header.number, index: f.index });

/** ots_searchTransactionsBefore / After. */
export function formatSearchPage(page: SearchPage) {
  return {
    txs: page.txs.map(txAt),
    receipts: page.txs.map((f) => receiptWithTime(f.tx, f.receipt, f.block, f.index, f.firstLogIndex)),
    firstPage: page.firstPage,
    lastPage: page.lastPage,
  };
}
