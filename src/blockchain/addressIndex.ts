// Otterscan's address index: for each address, the canonical transactions that touched it (as
// sender, recipient, created contract, or in any call frame of their execution). Each block's
// touched addresses are stored by block hash on every branch (`t:`); the canonical entries
// (`o:` address ‖ number ‖ index) are written in the block's batch and moved by the one head
// switch (headSwitch.ts), so a reorg or rewind leaves exactly the canonical chain's entries.

import { RLP } from '@ethereumjs/rlp';
import type { Block, Receipt } from '../chain/types.js';
import { bytesToBigint } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import type { BatchOp, Database } from '../store/database.js';
import { keys } from '../store/schema.js';

/** Per transaction of a block, the distinct addresses it touched. */
export type TouchedAddresses = Uint8Array[][];

/** What a block's receipts say each transaction touched: sender, recipient, created contract and the execution's frames. */
export function touchedOf(block: Block, receipts: readonly Receipt[]): TouchedAddresses {
  return block.transactions.map((tx, i) => {
    const receipt = receipts[i];
    const seen = new Map<string, Uint8Array>();
    const add = (a: Uint8Array | null | undefined) => {
      if (a) seen.set(bytesToHex(a), a);
    };
    add(tx.from);
    add(tx.to);
    add(receipt?.contractAddress);
    for (const a of receipt?.touched ?? []) add(a);
    return [...seen.values()];
  });
}

export const encodeTouched = (touched: TouchedAddresses): Uint8Array => RLP.encode(touched);

export function decodeTouched(bytes: Uint8Array): TouchedAddresses {
  return RLP.decode(bytes) as unknown as TouchedAddresses;
}

/** The block's touched addresses by hash (any branch); nothing for a block without transactions. */
export function touchedOps(block: Block, touched: TouchedAddresses): BatchOp[] {
  if (block.transactions.length === 0) return [];
  return [{ type: 'put', key: keys.touched(block.hash), value: encodeTouched(touched) }];
}

const EMPTY = new Uint8Array(0);

/** The canonical index entries of `block`: `put` when it joins the canonical chain, `del` when it leaves. */
export function indexOps(type: 'put' | 'del', block: Block, touched: TouchedAddresses): BatchOp[] {
  const n = block.header.number;
  const ops: BatchOp[] = [];
  touched.forEach((addresses, index) => {
    for (const address of addresses) {
      const key = keys.addressTx(address, n, index);
      ops.push(type === 'put' ? { type, key, value: EMPTY } : { type, key });
    }
  });
  return ops;
}

/** A transaction's place: block number and index in the block. */
export interface TxPlace {
  number: bigint;
  index: number;
}

const ADDRESS_KEY_START = 2 + 20;

function placeOf(key: Uint8Array): TxPlace {
  return {
    number: bytesToBigint(key.subarray(ADDRESS_KEY_START, ADDRESS_KEY_START + 8)),
    index: Number(bytesToBigint(key.subarray(ADDRESS_KEY_START + 8, ADDRESS_KEY_START + 12))),
  };
}

/** Reads the canonical index. */
export class AddressIndexReader {
  constructor(private readonly db: Database) {}

  /**
   * Transactions touching `address` in blocks `from`..`to` (inclusive), newest first when
   * `descending`; stops after the block in which the count reached `atLeast` (whole blocks, as
   * Otterscan pages them). `more` is true when entries beyond the ones returned exist in the range.
   */
  async search(address: Uint8Array, from: bigint, to: bigint, descending: boolean, atLeast: number): Promise<{ places: TxPlace[]; more: boolean }> {
    const places: TxPlace[] = [];
    if (from > to) return { places, more: false };
    for await (const key of this.db.keys({ ...keys.addressTxRange(address, from, to), reverse: descending })) {
      const place = placeOf(key);
      if (places.length >= atLeast && place.number !== places[places.length - 1].number) return { places, more: true };
      places.push(place);
    }
    return { places, more: false };
  }

  /** The first (oldest) canonical transactions touching `address`, up to `limit`. */
  async first(address: Uint8Array, limit: number, to: bigint): Promise<TxPlace[]> {
    const out: TxPlace[] = [];
    for await (const key of this.db.keys(keys.addressTxRange(address, 0n, to))) {
      out.push(placeOf(key));
      if (out.length >= limit) break;
    }
    return out;
  }
}
