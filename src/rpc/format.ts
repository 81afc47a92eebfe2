// Domain values → wire objects (docs/methods.md; every field pinned by test/rpc/golden). Only rpc/ knows these shapes.

import type { Block, Header, Log, Receipt, SignedTx } from '../chain/types.js';
import { bytesToHex, encodeQuantity } from '../encoding/hex.js';

const q = encodeQuantity;
const d = bytesToHex;

export interface TxPosition {
  blockHash: Uint8Array;
  blockNumber: bigint;
  index: number;
}

export function formatTransaction(tx: SignedTx, at?: TxPosition, zeroPendingHash = false) {
  return {
    blockHash: at ? d(at.blockHash) : zeroPendingHash ? ZERO_HASH_HEX : null,
    blockNumber: at ? q(at.blockNumber) : null,
    from: d(tx.from),
    gas: q(tx.gas),
    gasPrice: q(tx.gasPrice),
    hash: d(tx.hash),
    input: d(tx.data),
    nonce: q(tx.nonce),
    syscnt: q(tx.syscnt),
    to: tx.to ? d(tx.to) : null,
    transactionIndex: at ? q(at.index) : zeroPendingHash ? '0x0' : null,
    value: q(tx.value),
    v: q(tx.v),
    r: q(tx.r),
    s: q(tx.s),
    shardingFlag: q(tx.shardingFlag),
    // Ethereum libraries read the envelope type; MOAC and classic transactions are both legacy (0).
    type: '0x0',
  };
}

export const ZERO_HASH_HEX = '0x' + '0'.repeat(64);

function headerFields(h: Header) {
  return {
    parentHash: d(h.parentHash),
    sha3Uncles: d(h.sha3Uncles),
    miner: d(h.miner),
    stateRoot: d(h.stateRoot),
    transactionsRoot: d(h.transactionsRoot),
    receiptsRoot: d(h.receiptsRoot),
    difficulty: q(h.difficulty),
    extraData: d(h.extraData),
    gasLimit: q(h.gasLimit),
    gasUsed: q(h.gasUsed),
    timestamp: q(h.timestamp),
  };
}

/** A block's header as `newHeads` notifications carry it (no transactions, no total difficulty). */
export function formatHeader(block: Block) {
  const h = block.header;
  return { number: q(h.number), hash: d(block.hash), nonce: d(h.nonce), mixHash: d(h.mixHash), logsBloom: d(h.logsBloom), ...headerFields(h) };
}

export function formatBlock(block: Block, totalDifficulty: bigint, fullTransactions: boolean) {
  const h = block.header;
  const at = (index: number): TxPosition => ({ blockHash: block.hash, blockNumber: h.number, index });
  return {
    number: q(h.number),
    hash: d(block.hash),
    nonce: d(h.nonce),
    mixHash: d(h.mixHash),
    logsBloom: d(h.logsBloom),
    ...headerFields(h),
    totalDifficulty: q(totalDifficulty),
    size: q(block.size),
    transactions: fullTransactions
      ? block.transactions.map((tx, i) => formatTransaction(tx, at(i)))
      : block.transactions.map((tx) => d(tx.hash)),
    uncles: [],
  };
}

/** The pending block: number, hash, nonce and logsBloom are null (docs/methods.md#blocks-transactions-state). */
export function formatPendingBlock(header: Header, txs: SignedTx[], size: number, totalDifficulty: bigint, full: boolean) {
  return {
    number: null,
    hash: null,
    nonce: null,
    mixHash: d(header.mixHash),
    logsBloom: null,
    ...headerFields(header),
    totalDifficulty: q(totalDifficulty),
    size: q(size),
    transactions: full ? txs.map((tx) => formatTransaction(tx)) : txs.map((tx) => d(tx.hash)),
    uncles: [],
  };
}

export interface LogPosition extends TxPosition {
  txHash: Uint8Array;
  logIndex: number;
}

export function formatLog(log: Log, at: LogPosition | undefined, removed = false) {
  const dataHex = d(log.data);
  return {
    removed,
    logIndex: at ? q(at.logIndex) : null,
    transactionIndex: at ? q(at.index) : null,
    transactionHash: at ? d(at.txHash) : null,
    blockHash: at ? d(at.blockHash) : null,
    blockNumber: at ? q(at.blockNumber) : null,
    address: d(log.address),
    data: dataHex,
    // The real node's client library reads log data from `TxData` (chain3's formatter).
    TxData: dataHex,
    topics: log.topics.map(d),
  };
}

export function formatReceipt(tx: SignedTx, receipt: Receipt, block: Block, index: number, firstLogIndex: number) {
  const at: TxPosition = { blockHash: block.hash, blockNumber: block.header.number, index };
  return {
    transactionHash: d(tx.hash),
    transactionIndex: q(index),
    blockHash: d(block.hash),
    blockNumber: q(block.header.number),
    from: d(tx.from),
    to: tx.to ? d(tx.to) : null,
    cumulativeGasUsed: q(receipt.cumulativeGasUsed),
    gasUsed: q(receipt.gasUsed),
    contractAddress: receipt.contractAddress ? d(receipt.contractAddress) : null,
    logs: receipt.logs.map((log, i) => formatLog(log, { ...at, txHash: tx.hash, logIndex: firstLogIndex + i })),
    logsBloom: d(receipt.logsBloom),
    ...(receipt.root ? { root: d(receipt.root) } : { status: q(receipt.status) }),
    type: '0x0',
    effectiveGasPrice: q(tx.gasPrice),
  };
}
