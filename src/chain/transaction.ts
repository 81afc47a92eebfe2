// MOAC-native transactions (vectors of the real client in test/unit/chain/transaction.test.ts): the 12-item RLP wire format, the EIP-155-style
// signing hash over the nine unsigned fields, signing, strict decoding and sender recovery.
// Classic (Ethereum legacy, EIP-155) transactions are the 9-item list; the decoder tells the two
// apart by the list's length and keeps a classic one's own bytes as `raw` (docs/clients.md#classic-transactions).

import { RLP } from '@ethereumjs/rlp';
import { SECP256K1_N, secp256k1 } from './secp256k1.js';
import { DecodeError, invalidTransaction } from '../errors.js';
import { bigintToBytes, bytesToBigint, keccak256 } from '../encoding/bytes.js';
import { publicKeyToAddress } from '../encoding/address.js';
import type { Address, SignedTx, TxFields } from './types.js';

/** A transaction's fields plus its signature values, as encodeSignedTransaction takes them. */
export type SignatureFields = TxFields & { v: bigint; r: bigint; s: bigint };

const EMPTY = new Uint8Array(0);
const SECP256K1_HALF_N = SECP256K1_N >> 1n;
/** shardingFlag: 0 main chain, 1 Dapp call, 2 token transfer, 3 Dapp deploy. */
const MAX_SHARDING_FLAG = 3n;

function unsignedItems(tx: TxFields): Uint8Array[] {
  return [
    bigintToBytes(tx.nonce),
    bigintToBytes(tx.syscnt),
    bigintToBytes(tx.gasPrice),
    bigintToBytes(tx.gas),
    tx.to ?? EMPTY,
    bigintToBytes(tx.value),
    tx.data,
    bigintToBytes(tx.shardingFlag),
    tx.via ?? EMPTY,
  ];
}

/** RLP([nonce, syscnt, gasPrice, gas, to, value, data, shardingFlag, via, chainId, 0, 0]). */
export function encodeSigningPayload(tx: TxFields, chainId: bigint): Uint8Array {
  return RLP.encode([...unsignedItems(tx), bigintToBytes(chainId), EMPTY, EMPTY]);
}

export function signingHash(tx: TxFields, chainId: bigint): Uint8Array {
  return keccak256(encodeSigningPayload(tx, chainId));
}

/** Classic signing payload: RLP([nonce, gasPrice, gas, to, value, data, chainId, 0, 0]). */
export function encodeClassicSigningPayload(tx: TxFields, chainId: bigint): Uint8Array {
  return RLP.encode([
    bigintToBytes(tx.nonce), bigintToBytes(tx.gasPrice), bigintToBytes(tx.gas), tx.to ?? EMPTY, bigintToBytes(tx.value), tx.data,
    bigintToBytes(chainId), EMPTY, EMPTY,
  ]);
}

/** The 9-item classic wire form [nonce, gasPrice, gas, to, value, data, v, r, s]. */
export function encodeClassicTransaction(tx: SignatureFields): Uint8Array {
  return RLP.encode([
    bigintToBytes(tx.nonce), bigintToBytes(tx.gasPrice), bigintToBytes(tx.gas), tx.to ?? EMPTY, bigintToBytes(tx.value), tx.data,
    bigintToBytes(tx.v), bigintToBytes(tx.r), bigintToBytes(tx.s),
  ]);
}

/** The 12-item wire form; its keccak is the transaction hash. */
export function encodeSignedTransaction(tx: SignatureFields): Uint8Array {
  return RLP.encode([...unsignedItems(tx), bigintToBytes(tx.v), bigintToBytes(tx.r), bigintToBytes(tx.s)]);
}

/** RFC 6979 deterministic, low-S (libsecp256k1), v = recovery + 35 + 2·chainId. */
export function signTransaction(tx: TxFields, privateKey: Uint8Array, chainId: bigint): SignedTx {
  const { signature, recid } = secp256k1().ecdsaSign(signingHash(tx, chainId), privateKey);
  const fields: SignatureFields = {
    nonce: tx.nonce,
    syscnt: tx.syscnt,
    gasPrice: tx.gasPrice,
    gas: tx.gas,
    to: tx.to,
    value: tx.value,
    data: tx.data,
    shardingFlag: tx.shardingFlag,
    via: tx.via,
    v: BigInt(recid) + 35n + 2n * chainId,
    r: bytesToBigint(signature.subarray(0, 32)),
    s: bytesToBigint(signature.subarray(32, 64)),
  };
  const raw = encodeSignedTransaction(fields);
  const from = publicKeyToAddress(secp256k1().publicKeyCreate(privateKey, false));
  return { ...fields, hash: keccak256(raw), raw, from };
}

// Field layout for the strict decoder: integer limits follow the Go types (uint64 / big.Int,
// the latter capped at 256 bits because the EVM and the pool work in 256-bit words).
const FIELD_NAMES = ['nonce', 'syscnt', 'gasPrice', 'gas', 'to', 'value', 'input', 'shardingFlag', 'via', 'v', 'r', 's'];
const INT_MAX_BYTES: Record<number, number> = { 0: 8, 1: 8, 2: 32, 3: 32, 5: 32, 7: 8, 9: 32, 10: 32, 11: 32 };
/** Where each classic item sits in the MOAC layout above (so both share the item checks). */
const CLASSIC_SLOTS = [0, 2, 3, 4, 5, 6, 9, 10, 11];

const malformed = (what: string) => new DecodeError(`rlp: ${what}`);
const invalidSignature = () => invalidTransaction('invalid sender: invalid signature');

function byteItem(items: unknown[], index: number): Uint8Array {
  const item = items[index];
  if (!(item instanceof Uint8Array)) throw malformed(`expected input string or byte for ${FIELD_NAMES[index]}`);
  return item;
}

function intItem(items: unknown[], index: number): Uint8Array {
  const item = byteItem(items, index);
  if (item.length > 0 && item[0] === 0) {
    throw malformed(`non-canonical integer (leading zero bytes) for ${FIELD_NAMES[index]}`);
  }
  if (item.length > INT_MAX_BYTES[index]) {
    throw malformed(`input string too long for ${FIELD_NAMES[index]} (max ${INT_MAX_BYTES[index]} bytes)`);
  }
  return item;
}

function addressItem(items: unknown[], index: number): Address | null {
  const item = byteItem(items, index);
  if (item.length === 0) return null;
  if (item.length !== 20) {
    throw malformed(`input string too ${item.length < 20 ? 'short' : 'long'} for ${FIELD_NAMES[index]} (want 20 bytes)`);
  }
  return item;
}

function decodeList(raw: Uint8Array): { items: unknown[]; classic: boolean } {
  if (raw.length === 0) throw malformed('empty input');
  // EIP-2718 typed envelopes (access-list, dynamic-fee, …) start with their type byte.
  if (raw[0] < 0x80) throw invalidTransaction('transaction type not supported');
  if (raw[0] < 0xc0) throw malformed('expected input list for transaction');
  let decoded;
  try {
    decoded = RLP.decode(raw, true);
  } catch (err) {
    // ethereumjs messages start with "invalid RLP…"; keep only what went wrong
    const message = err instanceof Error ? err.message.replace(/^invalid RLP[^:]*:\s*/i, '') : String(err);
    throw malformed(message);
  }
  if (decoded.remainder.length !== 0) throw malformed('input contains more than one value');
  const items = decoded.data as unknown[];
  if (items.length === 9) {
    // Spread into the MOAC slots; syscnt, shardingFlag and via stay empty.
    const spread: unknown[] = new Array(12).fill(EMPTY);
    CLASSIC_SLOTS.forEach((slot, i) => (spread[slot] = items[i]));
    return { items: spread, classic: true };
  }
  if (items.length < 12) throw malformed('too few elements for transaction (want 12, or 9 for a classic transaction)');
  if (items.length > 12) throw malformed('input list has too many elements for transaction (want 12)');
  return { items, classic: false };
}

/** The twelve items as checked byte strings; integers are still minimal big-endian bytes. */
interface WireFields {
  nonce: Uint8Array; syscnt: Uint8Array; gasPrice: Uint8Array; gas: Uint8Array; to: Address | null;
  value: Uint8Array; data: Uint8Array; shardingFlag: Uint8Array; via: Address | null;
  v: Uint8Array; r: Uint8Array; s: Uint8Array;
  classic: boolean;
}

function parseWire(raw: Uint8Array): WireFields {
  const { items, classic } = decodeList(raw);
  return {
    classic,
    nonce: intItem(items, 0),
    syscnt: intItem(items, 1),
    gasPrice: intItem(items, 2),
    gas: intItem(items, 3),
    to: addressItem(items, 4),
    value: intItem(items, 5),
    data: byteItem(items, 6),
    shardingFlag: intItem(items, 7),
    via: addressItem(items, 8),
    v: intItem(items, 9),
    r: intItem(items, 10),
    s: intItem(items, 11),
  };
}

function toSignedTx(w: WireFields, raw: Uint8Array, from: Address): SignedTx {
  return {
    nonce: bytesToBigint(w.nonce),
    syscnt: bytesToBigint(w.syscnt),
    gasPrice: bytesToBigint(w.gasPrice),
    gas: bytesToBigint(w.gas),
    to: w.to,
    value: bytesToBigint(w.value),
    data: w.data,
    shardingFlag: bytesToBigint(w.shardingFlag),
    via: w.via,
    v: bytesToBigint(w.v),
    r: bytesToBigint(w.r),
    s: bytesToBigint(w.s),
    hash: keccak256(raw),
    raw,
    from,
    ...(w.classic ? { classic: true as const } : {}),
  };
}

/**
 * Strictly decodes a raw transaction from a user and recovers its sender. `raw` is kept by
 * reference as `SignedTx.raw`; the caller must not modify it afterwards.
 */
export function decodeTransaction(raw: Uint8Array, chainId: bigint): SignedTx {
  const w = parseWire(raw);
  // System transactions (syscnt > 0) skip the signature check on the real node; users may not send them.
  if (w.syscnt.length !== 0) throw invalidTransaction('invalid transaction: syscnt must be 0 for user transactions');
  if (bytesToBigint(w.shardingFlag) > MAX_SHARDING_FLAG) throw invalidTransaction('shardingFlag error');

  const v = bytesToBigint(w.v);
  if (v === 27n || v === 28n) throw invalidTransaction('invalid sender: unprotected transaction (v = 27/28) is not accepted');
  if (v < 35n) throw invalidSignature();
  const txChainId = (v - 35n) >> 1n;
  if (txChainId !== chainId) throw invalidTransaction(`invalid chain id: have ${txChainId}, want ${chainId}`);
  const r = bytesToBigint(w.r);
  const s = bytesToBigint(w.s);
  // Homestead rule: reject s in the upper half so a transaction has one valid encoding.
  if (r === 0n || s === 0n || r >= SECP256K1_N || s > SECP256K1_HALF_N) throw invalidSignature();

  const signature = new Uint8Array(64);
  signature.set(w.r, 32 - w.r.length);
  signature.set(w.s, 64 - w.s.length);
  const payload = w.classic
    ? RLP.encode([w.nonce, w.gasPrice, w.gas, w.to ?? EMPTY, w.value, w.data, bigintToBytes(chainId), EMPTY, EMPTY])
    : RLP.encode([
      w.nonce, w.syscnt, w.gasPrice, w.gas, w.to ?? EMPTY, w.value, w.data, w.shardingFlag, w.via ?? EMPTY,
      bigintToBytes(chainId), EMPTY, EMPTY,
    ]);
  let publicKey: Uint8Array;
  try {
    publicKey = secp256k1().ecdsaRecover(signature, Number(v - 35n - 2n * chainId), keccak256(payload), false);
  } catch {
    throw invalidSignature();
  }
  return toSignedTx(w, raw, publicKeyToAddress(publicKey));
}

/**
 * Decodes a transaction the node stored itself, with its already recovered sender: no policy
 * or signature checks. Malformed bytes mean a corrupt database, so this throws a plain Error.
 */
export function decodeTrustedTransaction(raw: Uint8Array, from: Address): SignedTx {
  let w: WireFields;
  try {
    w = parseWire(raw);
  } catch (err) {
    throw new Error(`stored transaction is corrupt: ${(err as Error).message}`);
  }
  return toSignedTx(w, raw, from);
}

/**
 * Decodes the twelve items as strictly as decodeTransaction (canonical integers, lengths) but
 * checks no signature: for system transactions, whose sender the rules give (chain/systemTx.ts).
 */
export function decodeUnsignedTransaction(raw: Uint8Array, senderOf: (fields: TxFields) => Address): SignedTx {
  const w = parseWire(raw);
  const tx = toSignedTx(w, raw, EMPTY);
  tx.from = senderOf(tx);
  return tx;
}

/** Address of a contract created by `sender` at `nonce`: keccak(rlp([sender, nonce]))[12:]. */
export function contractAddress(sender: Uint8Array, nonce: bigint): Uint8Array {
  return keccak256(RLP.encode([sender, bigintToBytes(nonce)])).slice(12);
}

/**
 * Classic transactions count from the genesis `config.classicTxBlock` on (undefined: never, as
 * on MOAC's mainnet). Returns `tx` when it may go into block `blockNumber`.
 */
export function checkClassicAllowed(tx: SignedTx, blockNumber: bigint, classicTxBlock: bigint | undefined): SignedTx {
  if (!tx.classic) return tx;
  if (classicTxBlock === undefined) throw invalidTransaction('transaction type not supported: classic transactions are not enabled on this chain');
  if (blockNumber < classicTxBlock) throw invalidTransaction(`transaction type not supported: classic transactions from block ${classicTxBlock}`);
  return tx;
}
