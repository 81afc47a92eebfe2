// A fork's block file (docs/fork-mode.md#export-and-import): before its blocks, records that hold
// what re-executing them needs besides the blocks themselves, so `import` rebuilds the fork in an
// empty datadir with the upstream down. Each record is an RLP list whose first item is the bytes
// "mcnode-fork" (no block starts so: a block's first item is its header, a list):
//
//   [magic, 1, number, hash, header, total difficulty, chain id, network id, difficulty, pow, classicTxBlock]
//                                              the fork block and the fork's chain (one, first)
//   [magic, 2, [[number, hash], …]]            upstream block hashes below the fork block (BLOCKHASH)
//   [magic, 3, [[address, account], …]]        accounts read at the fork block (account: RLP [nonce,
//                                              balance, code hash], or RLP [] for none)
//   [magic, 4, [code, …]]                      their code
//   [magic, 5, [[address, slot, word], …]]     storage slots read at the fork block
//
// A plain (non-fork) export holds no such record: its bytes are what they always were.

import { RLP } from '@ethereumjs/rlp';
import type { Header } from '../chain/types.js';
import { decodeHeader, encodeHeader } from '../chain/block.js';
import { bigintToBytes, bytesToBigint, equalBytes } from '../encoding/bytes.js';
import { decodeAccountRecord, encodeAccountRecord, type BaseRecord } from '../fork/forkCache.js';
import { ChainFileError } from './chainFileError.js';
import { fileChunks, readItems } from './rlpStream.js';

const MAGIC = new TextEncoder().encode('mcnode-fork');
const KIND = { fork: 1, hashes: 2, accounts: 3, code: 4, slots: 5 } as const;
/** Entries per record: records stay a few hundred kilobytes. */
const CHUNK = 1000;

/** The fork block and the chain a fork file's blocks belong to. */
export interface ForkFileHead {
  number: bigint;
  hash: Uint8Array;
  header: Header;
  totalDifficulty: bigint;
  chainId: bigint;
  networkId: bigint;
  /** local blocks' difficulty */
  difficulty: bigint;
  pow: string;
  /** undefined: never */
  classicTxBlock: bigint | undefined;
}

/** What a fork file holds before its blocks. */
export interface ForkPreamble {
  head: ForkFileHead;
  hashes: [bigint, Uint8Array][];
  base: BaseRecord[];
}

/** Where an export of a fork reads its preamble (node/forkChain.ts builds one from the fork and its cache). */
export interface ForkExportSource {
  head: ForkFileHead;
  hashes(): Promise<[bigint, Uint8Array][]>;
  base(): AsyncIterable<BaseRecord>;
}

const record = (kind: number, ...items: unknown[]) => RLP.encode([MAGIC, bigintToBytes(BigInt(kind)), ...items] as never);

/** True when `item` (one top-level RLP item of a block file) is a fork record. */
export function isForkRecord(item: Uint8Array): boolean {
  // A list whose first item is the magic string: [0xc0+len or 0xf8.., 0x8b, "mcnode-fork", …]
  const start = item[0] >= 0xf8 ? 1 + item[0] - 0xf7 : 1;
  if (item[0] < 0xc0 || item[start] !== 0x80 + MAGIC.length) return false;
  return equalBytes(item.subarray(start + 1, start + 1 + MAGIC.length), MAGIC);
}

function* chunks<T>(items: T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += CHUNK) yield items.slice(i, i + CHUNK);
}

/** The records of a fork file, in order. */
export async function* forkRecords(src: ForkExportSource): AsyncGenerator<Uint8Array> {
  const h = src.head;
  yield record(
    KIND.fork, bigintToBytes(h.number), h.hash, encodeHeader(h.header), bigintToBytes(h.totalDifficulty), bigintToBytes(h.chainId),
    bigintToBytes(h.networkId), bigintToBytes(h.difficulty), new TextEncoder().encode(h.pow),
    h.classicTxBlock === undefined ? [] : [bigintToBytes(h.classicTxBlock)],
  );
  const hashes = await src.hashes();
  for (const part of chunks(hashes)) yield record(KIND.hashes, part.map(([n, hash]) => [bigintToBytes(n), hash]));
  const accounts: Uint8Array[][] = [];
  const codes: Uint8Array[] = [];
  const slots: Uint8Array[][] = [];
  for await (const r of src.base()) {
    if (r.kind === 'account') accounts.push([r.address, encodeAccountRecord(r.account)]);
    else if (r.kind === 'code') codes.push(r.code);
    else slots.push([r.address, r.slot, bigintToBytes(r.word)]);
    if (accounts.length === CHUNK) yield record(KIND.accounts, accounts.splice(0));
    if (codes.length === CHUNK) yield record(KIND.code, codes.splice(0));
    if (slots.length === CHUNK) yield record(KIND.slots, slots.splice(0));
  }
  if (accounts.length) yield record(KIND.accounts, accounts);
  if (codes.length) yield record(KIND.code, codes);
  if (slots.length) yield record(KIND.slots, slots);
}

/** Adds one fork record to `into` (the first must be the fork's head). */
export function readForkRecord(item: Uint8Array, into: Partial<ForkPreamble>): void {
  const [, kindBytes, ...f] = RLP.decode(item) as unknown as [Uint8Array, Uint8Array, ...unknown[]];
  const kind = Number(bytesToBigint(kindBytes));
  if (kind !== KIND.fork && !into.head) throw new ChainFileError('a fork record comes before the fork block\'s record');
  const b = f as Uint8Array[];
  switch (kind) {
    case KIND.fork: {
      const classic = f[8] as unknown as Uint8Array[];
      into.head = {
        number: bytesToBigint(b[0]), hash: b[1], header: decodeHeader(b[2]), totalDifficulty: bytesToBigint(b[3]), chainId: bytesToBigint(b[4]),
        networkId: bytesToBigint(b[5]), difficulty: bytesToBigint(b[6]), pow: new TextDecoder().decode(b[7]),
        classicTxBlock: classic.length ? bytesToBigint(classic[0]) : undefined,
      };
      into.hashes ??= [];
      into.base ??= [];
      return;
    }
    case KIND.hashes:
      for (const [n, hash] of f[0] as Uint8Array[][]) into.hashes!.push([bytesToBigint(n), hash]);
      return;
    case KIND.accounts:
      for (const [address, account] of f[0] as Uint8Array[][]) into.base!.push({ kind: 'account', address, account: decodeAccountRecord(account) });
      return;
    case KIND.code:
      for (const code of f[0] as Uint8Array[]) into.base!.push({ kind: 'code', code });
      return;
    case KIND.slots:
      for (const [address, slot, word] of f[0] as Uint8Array[][]) into.base!.push({ kind: 'slot', address, slot, word: bytesToBigint(word) });
      return;
    default:
      throw new ChainFileError(`unknown fork record kind ${kind}`);
  }
}

/** The fork records a block file starts with, or undefined for a plain block file. */
export async function readForkPreamble(file: string): Promise<ForkPreamble | undefined> {
  const into: Partial<ForkPreamble> = {};
  const items = readItems(fileChunks(file));
  try {
    for await (const item of items) {
      if (!isForkRecord(item)) break;
      readForkRecord(item, into);
    }
  } finally {
    await items.return(undefined);
  }
  return into.head ? (into as ForkPreamble) : undefined;
}
