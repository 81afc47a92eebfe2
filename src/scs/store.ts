// App-chain data in the node's LevelDB, under schema.ts's app prefix (`keys.app(sub)`). Every
// sub-key starts with a one-letter tag and the app chain's address:
//   c addr                    → spec, creation main-chain block, ordinal
//   H addr                    → head block number (8 bytes)
//   b addr number(8)          → block: [header, [[raw tx, sender]…], [receipt…]]
//   t addr txHash             → [block number, index]
//   n addr sender nonce(8)    → tx hash
//   j addr txHash             → [raw tx, sender]: acknowledged, not yet in a block (journal)
//   d addr index(4)           → Dapp list entry [address, owner, ABI text]
//   x addr seq(8)             → exchange record
// Writes are returned as batch operations; the caller puts them in the right batch.

import { RLP } from '@ethereumjs/rlp';
import type { Header, Log, SignedTx } from '../chain/types.js';
import { decodeHeader, encodeHeader, headerHash, logsBloom } from '../chain/block.js';
import { decodeTrustedTransaction } from '../chain/transaction.js';
import { bigintToBytes, bigintToFixed, bytesToBigint, concatBytes } from '../encoding/bytes.js';
import type { BatchOp, Database } from '../store/database.js';
import { keys } from '../store/schema.js';
import { decodeSpec, encodeSpec, type AppChainSpec } from './appChainSpec.js';

export interface AppReceipt {
  status: 0 | 1;
  contractAddress: Uint8Array | null;
  logs: Log[];
  logsBloom: Uint8Array;
  /** what the call returned (the `result` of an SCS receipt) */
  returnValue: Uint8Array;
}

export interface AppBlock {
  header: Header;
  hash: Uint8Array;
  transactions: SignedTx[];
  receipts: AppReceipt[];
}

export interface DappEntry {
  address: Uint8Array;
  owner: Uint8Array;
  abi: string;
}

export type RecordKind = 'deposit' | 'withdraw';

/** One exchange between the main chain and an app chain; in flight until `settled` is set. */
export interface ExchangeRecord {
  seq: number;
  kind: RecordKind;
  user: Uint8Array;
  /** deposits: sha sent on the main chain; withdrawals: app-chain base units */
  amount: bigint;
  /** unix seconds of the request */
  time: bigint;
  /** main-chain block of a deposit; app-chain block of a withdrawal */
  requestBlock: bigint;
  settled?: { time: bigint; mainBlock: bigint };
}

export interface StoredChain {
  spec: AppChainSpec;
  /** main-chain head number when the app chain was created (flushes count from it) */
  createdAt: bigint;
  ordinal: number;
}

const enc = new TextEncoder();
const tag = (letter: string, ...parts: Uint8Array[]) => keys.app(concatBytes(enc.encode(letter), ...parts));
const num = (n: bigint | number) => bigintToFixed(BigInt(n), 8);

/** [gte, lt) over every key that starts with `prefix`. */
function prefixRange(prefix: Uint8Array): { gte: Uint8Array; lt: Uint8Array } {
  const end = prefix.slice();
  let i = end.length - 1;
  while (i >= 0 && end[i] === 0xff) i--;
  end[i] += 1;
  return { gte: prefix, lt: end.subarray(0, i + 1) };
}

export const appKeys = {
  chain: (chain: Uint8Array) => tag('c', chain),
  chains: () => prefixRange(tag('c')),
  head: (chain: Uint8Array) => tag('H', chain),
  block: (chain: Uint8Array, n: bigint) => tag('b', chain, num(n)),
  tx: (chain: Uint8Array, txHash: Uint8Array) => tag('t', chain, txHash),
  nonce: (chain: Uint8Array, sender: Uint8Array, nonce: bigint) => tag('n', chain, sender, num(nonce)),
  journal: (chain: Uint8Array, txHash: Uint8Array) => tag('j', chain, txHash),
  journals: (chain: Uint8Array) => prefixRange(tag('j', chain)),
  dapp: (chain: Uint8Array, index: number) => tag('d', chain, bigintToFixed(BigInt(index), 4)),
  dapps: (chain: Uint8Array) => prefixRange(tag('d', chain)),
  record: (chain: Uint8Array, seq: number) => tag('x', chain, num(seq)),
  records: (chain: Uint8Array) => prefixRange(tag('x', chain)),
};

const put = (key: Uint8Array, value: Uint8Array): BatchOp => ({ type: 'put', key, value });

// --- codecs ------------------------------------------------------------------------------

const encodeLog = (l: Log) => [l.address, l.topics, l.data];

function encodeReceipt(r: AppReceipt) {
  return [Uint8Array.of(r.status), r.contractAddress ?? new Uint8Array(), r.logs.map(encodeLog), r.returnValue];
}

function decodeReceipt(f: unknown): AppReceipt {
  const [status, contract, logs, returnValue] = f as [Uint8Array, Uint8Array, [Uint8Array, Uint8Array[], Uint8Array][], Uint8Array];
  const decodedLogs = logs.map(([address, topics, data]) => ({ address, topics, data }));
  return {
    status: status[0] === 1 ? 1 : 0,
    contractAddress: contract.length ? contract : null,
    logs: decodedLogs,
    logsBloom: logsBloom(decodedLogs),
    returnValue,
  };
}

function encodeRecord(r: ExchangeRecord): Uint8Array {
  return RLP.encode([
    Uint8Array.of(r.kind === 'deposit' ? 0 : 1), r.user, bigintToBytes(r.amount), bigintToBytes(r.time),
    bigintToBytes(r.requestBlock), r.settled ? [bigintToBytes(r.settled.time), bigintToBytes(r.settled.mainBlock)] : [],
  ]);
}

function decodeRecord(seq: number, bytes: Uint8Array): ExchangeRecord {
  const [kind, user, amount, time, requestBlock, settled] = RLP.decode(bytes) as unknown as [
    Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array[],
  ];
  return {
    seq,
    kind: kind[0] === 0 ? 'deposit' : 'withdraw',
    user,
    amount: bytesToBigint(amount),
    time: bytesToBigint(time),
    requestBlock: bytesToBigint(requestBlock),
    settled: settled.length ? { time: bytesToBigint(settled[0]), mainBlock: bytesToBigint(settled[1]) } : undefined,
  };
}

// --- writes ------------------------------------------------------------------------------

export const appOps = {
  chain: (c: StoredChain): BatchOp =>
    put(appKeys.chain(c.spec.address), RLP.encode([encodeSpec(c.spec), bigintToBytes(c.createdAt), bigintToBytes(BigInt(c.ordinal))])),

  /** A block with its indexes, and the head pointer moved to it. */
  block(chain: Uint8Array, b: AppBlock): BatchOp[] {
    const n = b.header.number;
    const ops = [
      put(appKeys.block(chain, n), RLP.encode([encodeHeader(b.header), b.transactions.map((tx) => [tx.raw, tx.from]), b.receipts.map(encodeReceipt)])),
      put(appKeys.head(chain), num(n)),
    ];
    b.transactions.forEach((tx, index) => {
      ops.push(put(appKeys.tx(chain, tx.hash), RLP.encode([bigintToBytes(n), bigintToBytes(BigInt(index))])));
      ops.push(put(appKeys.nonce(chain, tx.from, tx.nonce), tx.hash));
      ops.push({ type: 'del', key: appKeys.journal(chain, tx.hash) });
    });
    return ops;
  },

  journal: (chain: Uint8Array, tx: SignedTx): BatchOp => put(appKeys.journal(chain, tx.hash), RLP.encode([tx.raw, tx.from])),
  unjournal: (chain: Uint8Array, txHash: Uint8Array): BatchOp => ({ type: 'del', key: appKeys.journal(chain, txHash) }),
  dapp: (chain: Uint8Array, index: number, d: DappEntry): BatchOp =>
    put(appKeys.dapp(chain, index), RLP.encode([d.address, d.owner, enc.encode(d.abi)])),
  record: (chain: Uint8Array, r: ExchangeRecord): BatchOp => put(appKeys.record(chain, r.seq), encodeRecord(r)),
};

// --- reads -------------------------------------------------------------------------------

export class AppStore {
  constructor(readonly db: Database) {}

  async chains(): Promise<StoredChain[]> {
    const out: StoredChain[] = [];
    for await (const [, value] of this.db.entries(appKeys.chains())) {
      const [spec, createdAt, ordinal] = RLP.decode(value) as unknown as [Uint8Array[], Uint8Array, Uint8Array];
      out.push({ spec: decodeSpec(spec), createdAt: bytesToBigint(createdAt), ordinal: Number(bytesToBigint(ordinal)) });
    }
    return out.sort((a, b) => a.ordinal - b.ordinal);
  }

  async headNumber(chain: Uint8Array): Promise<bigint | undefined> {
    const stored = await this.db.get(appKeys.head(chain));
    return stored && bytesToBigint(stored);
  }

  async block(chain: Uint8Array, n: bigint): Promise<AppBlock | undefined> {
    const stored = await this.db.get(appKeys.block(chain, n));
    if (!stored) return undefined;
    const [headerBytes, txs, receipts] = RLP.decode(stored) as unknown as [Uint8Array, [Uint8Array, Uint8Array][], unknown[]];
    const header = decodeHeader(headerBytes);
    return {
      header,
      hash: headerHash(header),
      transactions: txs.map(([raw, from]) => decodeTrustedTransaction(raw, from)),
      receipts: receipts.map(decodeReceipt),
    };
  }

  async txLocation(chain: Uint8Array, txHash: Uint8Array): Promise<{ number: bigint; index: number } | undefined> {
    const stored = await this.db.get(appKeys.tx(chain, txHash));
    if (!stored) return undefined;
    const [n, index] = RLP.decode(stored) as Uint8Array[];
    return { number: bytesToBigint(n), index: Number(bytesToBigint(index)) };
  }

  async txHashByNonce(chain: Uint8Array, sender: Uint8Array, nonce: bigint): Promise<Uint8Array | undefined> {
    return this.db.get(appKeys.nonce(chain, sender, nonce));
  }

  async journal(chain: Uint8Array): Promise<SignedTx[]> {
    const out: SignedTx[] = [];
    for await (const [, value] of this.db.entries(appKeys.journals(chain))) {
      const [raw, from] = RLP.decode(value) as Uint8Array[];
      out.push(decodeTrustedTransaction(raw, from));
    }
    return out;
  }

  async dapps(chain: Uint8Array): Promise<DappEntry[]> {
    const out: DappEntry[] = [];
    for await (const [, value] of this.db.entries(appKeys.dapps(chain))) {
      const [address, owner, abi] = RLP.decode(value) as Uint8Array[];
      out.push({ address, owner, abi: new TextDecoder().decode(abi) });
    }
    return out;
  }

  async records(chain: Uint8Array): Promise<ExchangeRecord[]> {
    const out: ExchangeRecord[] = [];
    for await (const [key, value] of this.db.entries(appKeys.records(chain))) {
      out.push(decodeRecord(Number(bytesToBigint(key.subarray(key.length - 8))), value));
    }
    return out;
  }
}
