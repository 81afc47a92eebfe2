// SCS wire shapes (docs/scs.md), built once for both variants: an
// integer is a bigint here, written as a QUANTITY by the `rpc` variant (toRpc) and as an exact
// JSON number by `rpcdebug` (rawJson.ts); a JS number is a plain JSON number in both.

import type { SignedTx } from '../../chain/types.js';
import { bytesToHex, encodeQuantity } from '../../encoding/hex.js';
import { toChecksumAddress } from '../../encoding/address.js';
import type { AppChain, FoundTx } from '../../scs/appChain.js';
import type { AppBlock, AppReceipt, ExchangeRecord } from '../../scs/store.js';
import { page, recordsIn, type RecordList } from '../../scs/exchange.js';
import type { AppPoolContent } from '../../scs/appTxPool.js';

export type Shape = bigint | number | string | boolean | null | Shape[] | { [key: string]: Shape };

const d = bytesToHex;

/** The `rpc` variant: integers as QUANTITY strings. */
export function toRpc(value: Shape): unknown {
  if (typeof value === 'bigint') return encodeQuantity(value);
  if (Array.isArray(value)) return value.map(toRpc);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toRpc(v)]));
  }
  return value;
}

interface Position {
  block: AppBlock;
  index: number;
}

export function scsTransaction(tx: SignedTx, at?: Position): { [key: string]: Shape } {
  return {
    blockHash: at ? d(at.block.hash) : null,
    blockNumber: at ? at.block.header.number : null,
    transactionIndex: at ? BigInt(at.index) : null,
    transactionHash: d(tx.hash),
    hash: d(tx.hash),
    from: d(tx.from),
    to: tx.to ? d(tx.to) : null,
    input: d(tx.data),
    nonce: tx.nonce,
    value: tx.value,
    gas: tx.gas,
    gasPrice: tx.gasPrice,
    shardingFlag: tx.shardingFlag,
    via: tx.via ? d(tx.via) : null,
    v: tx.v,
    r: tx.r,
    s: tx.s,
  };
}

export function scsReceipt(receipt: AppReceipt, at: Position): { [key: string]: Shape } {
  const { block, index } = at;
  const tx = block.transactions[index];
  let logIndex = block.receipts.slice(0, index).reduce((n, r) => n + r.logs.length, 0);
  const out: { [key: string]: Shape } = {
    transactionHash: d(tx.hash),
    transactionIndex: BigInt(index),
    blockHash: d(block.hash),
    blockNumber: block.header.number,
    contractAddress: receipt.contractAddress ? d(receipt.contractAddress) : null,
    logs: receipt.logs.map((log) => ({
      address: d(log.address),
      topics: log.topics.map(d),
      // The real SCS writes log data as base64 (Go's []byte JSON) and the positions as numbers.
      data: Buffer.from(log.data).toString('base64'),
      blockNumber: Number(block.header.number),
      transactionHash: d(tx.hash),
      transactionIndex: index,
      blockHash: d(block.hash),
      logIndex: logIndex++,
      removed: false,
    })),
    logsBloom: d(receipt.logsBloom),
    failed: receipt.status === 0,
    // QUANTITY in both variants (rpcdebug too): the one integer field the SCS writes as hex.
    status: encodeQuantity(receipt.status),
  };
  if (tx.shardingFlag === 1n) out.result = d(receipt.returnValue);
  return out;
}

/** scs_getTransactionBy*: the transaction with its receipt fields once mined. */
export function scsTransactionResult(found: FoundTx | undefined): Shape {
  if (!found) return null;
  if (!found.block || found.index === undefined || !found.receipt) return scsTransaction(found.tx);
  const at = { block: found.block, index: found.index };
  return { ...scsTransaction(found.tx, at), ...scsReceipt(found.receipt, at) };
}

export function scsReceiptResult(found: FoundTx | undefined): Shape {
  if (!found?.block || found.index === undefined || !found.receipt) return null;
  return scsReceipt(found.receipt, { block: found.block, index: found.index });
}

function headerShape(b: AppBlock) {
  const h = b.header;
  return {
    extraData: d(h.extraData),
    hash: d(b.hash),
    miner: d(h.miner),
    number: h.number,
    parentHash: d(h.parentHash),
    receiptsRoot: d(h.receiptsRoot),
    stateRoot: d(h.stateRoot),
    timestamp: h.timestamp,
    transactionsRoot: d(h.transactionsRoot),
  };
}

const blockTxs = (b: AppBlock): Shape[] => b.transactions.map((tx, index) => scsTransaction(tx, { block: b, index }));

/** scs_getBlock: header fields and the transactions as objects. */
export function scsBlock(b: AppBlock): Shape {
  return { ...headerShape(b), transactions: blockTxs(b) };
}

/** rpcdebug GetBlock / GetBlocks (our choice, after the official explorer's reading): `{Hash, Header, Txs}`. */
export function debugBlock(b: AppBlock): Shape {
  return { Hash: d(b.hash), Header: headerShape(b), Txs: blockTxs(b) };
}

export function chainInfo(chain: AppChain, balance: bigint, capitalised: boolean): Shape {
  const s = chain.spec;
  const owner = toChecksumAddress(s.owner);
  const scsList = s.scsList.map(toChecksumAddress);
  return capitalised
    ? { Balance: balance, BlockReward: s.blockReward, BondLimit: s.bondLimit, Sender: owner, ScsList: scsList, TxReward: s.txReward, ViaReward: s.viaReward }
    : { balance, blockReward: s.blockReward, bondLimit: s.bondLimit, owner, scsList, txReward: s.txReward, viaReward: s.viaReward };
}

/** pending/queued: sender (checksummed) → nonce (decimal) → transaction. */
export function poolShape(content: AppPoolContent): Shape {
  const group = (m: Map<string, SignedTx[]>): Shape =>
    Object.fromEntries(
      [...m.values()].map((txs) => [
        toChecksumAddress(txs[0].from),
        Object.fromEntries(txs.map((tx) => [tx.nonce.toString(), scsTransaction(tx)])),
      ]),
    );
  return { pending: group(content.pending), queued: group(content.queued) };
}

// --- exchange records --------------------------------------------------------------------

export interface PageRequest {
  index: number;
  count: number;
}

function entry(list: RecordList, r: ExchangeRecord): Shape {
  // Deposits and withdrawals show their settlement time, the -ing lists their request time.
  const time = list === 'Deposit' || list === 'Withdraw' ? r.settled!.time : r.time;
  return { [`${list}Amt`]: r.amount, [`${list}time`]: time };
}

/** `<List>RecordCount` (the total) and `<List>Records` (the page, or null) for each list. */
export function recordLists(records: readonly ExchangeRecord[], pages: [RecordList, PageRequest][], user?: Uint8Array) {
  const out: { [key: string]: Shape } = {};
  for (const [list, p] of pages) {
    const all = recordsIn(records, list, user);
    out[`${list}RecordCount`] = all.length;
    out[`${list}Records`] = page(all, p.index, p.count)?.map((r) => entry(list, r)) ?? null;
  }
  return out;
}
