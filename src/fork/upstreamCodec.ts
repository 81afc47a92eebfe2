// The upstream's JSON answers as the node's domain values, in one place: blocks, transactions,
// receipts and logs of mcnode or MOAC (`mc_*`) and of Ethereum nodes (`eth_*`). Numbers are read
// leniently (leading zeros, JSON numbers), as nodes other than mcnode write them; anything that is
// not what the method promises is refused with the method named.

import type { Block, Header, Log, Receipt, SignedTx } from '../chain/types.js';
import { encodeClassicTransaction, encodeSignedTransaction } from '../chain/transaction.js';
import { equalBytes, keccak256 } from '../encoding/bytes.js';
import { forkUnavailable } from './upstreamClient.js';

/** An answer of the wrong shape: the fork cannot use it. */
const bad = (what: string, value: unknown) =>
  forkUnavailable(`unexpected answer for ${what}: ${JSON.stringify(value)?.slice(0, 80) ?? String(value)}`);

export function quantity(value: unknown, what: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^0x[0-9a-f]*$/i.test(value)) return value.length === 2 ? 0n : BigInt(value);
  if (typeof value === 'string' && /^[0-9]+$/.test(value)) return BigInt(value);
  throw bad(what, value);
}

const optionalQuantity = (value: unknown, what: string, fallback = 0n): bigint => (value == null ? fallback : quantity(value, what));

export function data(value: unknown, what: string, length?: number): Uint8Array {
  if (typeof value !== 'string' || !/^0x([0-9a-f]{2})*$/i.test(value)) throw bad(what, value);
  const bytes = Buffer.from(value.slice(2), 'hex');
  if (length !== undefined && bytes.length !== length) throw bad(what, value);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
}

const optionalAddress = (value: unknown, what: string): Uint8Array | null => (value == null || value === '0x' ? null : data(value, what, 20));

const record = (value: unknown, what: string): Record<string, unknown> => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad(what, value);
  return value as Record<string, unknown>;
};

/** A block of the upstream: the 15 fields mcnode's header has, the upstream's own hash and total difficulty. */
export interface UpstreamBlock {
  block: Block;
  totalDifficulty: bigint;
}

export function decodeHeader(j: Record<string, unknown>, what: string): Header {
  return {
    parentHash: data(j.parentHash, `${what} parentHash`, 32),
    sha3Uncles: data(j.sha3Uncles, `${what} sha3Uncles`, 32),
    miner: data(j.miner ?? j.author, `${what} miner`, 20),
    stateRoot: data(j.stateRoot, `${what} stateRoot`, 32),
    transactionsRoot: data(j.transactionsRoot, `${what} transactionsRoot`, 32),
    receiptsRoot: data(j.receiptsRoot, `${what} receiptsRoot`, 32),
    logsBloom: data(j.logsBloom, `${what} logsBloom`, 256),
    difficulty: optionalQuantity(j.difficulty, `${what} difficulty`),
    number: quantity(j.number, `${what} number`),
    gasLimit: quantity(j.gasLimit, `${what} gasLimit`),
    gasUsed: quantity(j.gasUsed, `${what} gasUsed`),
    timestamp: quantity(j.timestamp, `${what} timestamp`),
    extraData: data(j.extraData ?? '0x', `${what} extraData`),
    mixHash: j.mixHash == null ? new Uint8Array(32) : data(j.mixHash, `${what} mixHash`, 32),
    nonce: j.nonce == null ? new Uint8Array(8) : data(j.nonce, `${what} nonce`, 8),
  };
}

/**
 * A transaction as mcnode carries one: the exact bytes when the fields re-encode to the upstream's
 * hash as a MOAC (12 items) or a classic (9 items) transaction. A typed Ethereum transaction keeps
 * the fields mcnode's shapes have and its upstream hash; its `raw` is not the upstream's encoding.
 */
export function decodeTransaction(value: unknown, what = 'transaction'): SignedTx {
  const j = record(value, what);
  const fields = {
    nonce: quantity(j.nonce, `${what} nonce`),
    syscnt: optionalQuantity(j.syscnt, `${what} syscnt`),
    gasPrice: optionalQuantity(j.gasPrice ?? j.maxFeePerGas, `${what} gasPrice`),
    gas: quantity(j.gas, `${what} gas`),
    to: optionalAddress(j.to, `${what} to`),
    value: quantity(j.value, `${what} value`),
    data: data(j.input ?? j.data ?? '0x', `${what} input`),
    shardingFlag: optionalQuantity(j.shardingFlag, `${what} shardingFlag`),
    via: optionalAddress(j.via, `${what} via`),
    v: optionalQuantity(j.v ?? j.yParity, `${what} v`),
    r: optionalQuantity(j.r, `${what} r`),
    s: optionalQuantity(j.s, `${what} s`),
  };
  const hash = data(j.hash, `${what} hash`, 32);
  const from = data(j.from, `${what} from`, 20);
  const moac = encodeSignedTransaction(fields);
  if (equalBytes(keccak256(moac), hash)) return { ...fields, hash, from, raw: moac };
  const raw = encodeClassicTransaction(fields);
  return { ...fields, syscnt: 0n, shardingFlag: 0n, via: null, hash, from, raw, classic: true };
}

export function decodeBlock(value: unknown, what: string): UpstreamBlock {
  const j = record(value, what);
  const header = decodeHeader(j, what);
  const txs = Array.isArray(j.transactions) ? j.transactions : [];
  const transactions = txs.map((tx, i) => decodeTransaction(tx, `${what} transaction ${i}`));
  return {
    block: { header, hash: data(j.hash, `${what} hash`, 32), transactions, size: Number(optionalQuantity(j.size, `${what} size`)) },
    totalDifficulty: optionalQuantity(j.totalDifficulty, `${what} totalDifficulty`),
  };
}

export function decodeLog(value: unknown, what: string): { log: Log; blockHash: Uint8Array; blockNumber: bigint; txHash: Uint8Array; txIndex: number; logIndex: number } {
  const j = record(value, what);
  const topics = Array.isArray(j.topics) ? j.topics.map((t, i) => data(t, `${what} topic ${i}`, 32)) : [];
  return {
    log: { address: data(j.address, `${what} address`, 20), topics, data: data(j.data ?? '0x', `${what} data`) },
    blockHash: data(j.blockHash, `${what} blockHash`, 32),
    blockNumber: quantity(j.blockNumber, `${what} blockNumber`),
    txHash: data(j.transactionHash, `${what} transactionHash`, 32),
    txIndex: Number(quantity(j.transactionIndex, `${what} transactionIndex`)),
    logIndex: Number(quantity(j.logIndex, `${what} logIndex`)),
  };
}

export function decodeReceipt(value: unknown, what: string): Receipt {
  const j = record(value, what);
  const logs = Array.isArray(j.logs) ? j.logs.map((l, i) => decodeLog(l, `${what} log ${i}`).log) : [];
  const receipt: Receipt = {
    status: j.status == null ? 1 : quantity(j.status, `${what} status`) === 1n ? 1 : 0,
    cumulativeGasUsed: quantity(j.cumulativeGasUsed, `${what} cumulativeGasUsed`),
    gasUsed: quantity(j.gasUsed, `${what} gasUsed`),
    logsBloom: data(j.logsBloom, `${what} logsBloom`, 256),
    logs,
    contractAddress: optionalAddress(j.contractAddress, `${what} contractAddress`),
  };
  if (j.root != null && j.root !== '0x') receipt.root = data(j.root, `${what} root`, 32);
  return receipt;
}

/** `eth_getAccountInfo`'s answer: balance, nonce, code. */
export function decodeAccountInfo(value: unknown): { balance: bigint; nonce: bigint; code: Uint8Array } {
  const j = record(value, 'getAccountInfo');
  return {
    balance: quantity(j.balance, 'getAccountInfo balance'),
    nonce: quantity(j.nonce, 'getAccountInfo nonce'),
    code: data(j.code ?? '0x', 'getAccountInfo code'),
  };
}

/** A 32-byte storage word answered by getStorageAt (some nodes answer it unpadded). */
export function decodeWord(value: unknown, what: string): bigint {
  const word = quantity(value, what);
  if (word >> 256n !== 0n) throw bad(what, value);
  return word;
}

export const encodeNumber = (n: bigint): string => '0x' + n.toString(16);
export const encodeBytes = (b: Uint8Array): string => '0x' + Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
