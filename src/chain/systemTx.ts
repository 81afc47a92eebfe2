// System transactions: MOAC transactions with `syscnt` > 0 and no signature (v = r = s = 0) that
// carry the state changes a block makes besides its users' transactions, so that every change
// of a block can be re-executed from the block alone. This file is the one definition of their
// format (docs/chain-rules.md#system-transactions); which ones a block may hold is decided by
// execution/systemTxs.ts.
//
//   syscnt 1  settlement   from 0x…64 to 0x…65, gas 0, price 0, value 0, data RLP([[payer, payee, amount], …])
//   syscnt 2  dev setter   from 0x…64 to 0x…65, gas 0, price 0, value 0, data RLP([op, address, args…])
//   syscnt 3  impersonated from `via` (the impersonated address), otherwise a normal call/create
//
// Kinds 1 and 2 take the nonce of account 0x…64, which grows by one with each (as on MOAC), so
// two equal changes in different blocks still have different hashes.

import { RLP } from '@ethereumjs/rlp';
import { bigintToBytes, bytesToBigint, equalBytes, keccak256 } from '../encoding/bytes.js';
import { decodeTransaction, decodeUnsignedTransaction, encodeSignedTransaction } from './transaction.js';
import type { Address, SignedTx, TxFields } from './types.js';

const address = (last: number): Address => {
  const a = new Uint8Array(20);
  a[19] = last;
  return a;
};

/** Sender of settlement and setter transactions (MOAC's system sender, address 100). */
export const SYSTEM_SENDER: Address = address(0x64);
/** Recipient of settlement and setter transactions (MOAC's system contract, address 101). */
export const SYSTEM_CONTRACT: Address = address(0x65);

export const SYSCNT = { settlement: 1n, setter: 2n, impersonated: 3n } as const;

/** A payment an app-chain flush makes on the main chain (a withdrawal). */
export interface Payout {
  from: Address;
  to: Address;
  amount: bigint;
}

export type DevSetter =
  | { op: 'setBalance'; address: Address; value: bigint }
  | { op: 'setCode'; address: Address; code: Uint8Array }
  | { op: 'setNonce'; address: Address; nonce: bigint }
  | { op: 'setStorageAt'; address: Address; slot: bigint; value: bigint }
  /** records the new coinbase in the chain; changes no state */
  | { op: 'setCoinbase'; address: Address };

/** Operation codes of the setter payload, in wire order. */
const SETTER_OPS = ['setBalance', 'setCode', 'setNonce', 'setStorageAt', 'setCoinbase'] as const;

export type SystemPayload =
  | { kind: 'settlement'; payouts: Payout[] }
  | { kind: 'setter'; setter: DevSetter }
  | { kind: 'impersonated' };

/** A system transaction whose form breaks the rules above; `message` says how. */
export class MalformedSystemTx extends Error {}

export const isSystemTx = (tx: TxFields): boolean => tx.syscnt !== 0n;

/** The sender the rules give a system transaction: `via` for impersonation, else 0x…64. */
export function systemSender(tx: TxFields): Address {
  return tx.syscnt === SYSCNT.impersonated && tx.via !== null ? tx.via : SYSTEM_SENDER;
}

function seal(fields: TxFields): SignedTx {
  const full = { ...fields, v: 0n, r: 0n, s: 0n };
  const raw = encodeSignedTransaction(full);
  return { ...full, raw, hash: keccak256(raw), from: systemSender(fields) };
}

const systemCall = (nonce: bigint, syscnt: bigint, data: Uint8Array): TxFields => ({
  nonce, syscnt, gasPrice: 0n, gas: 0n, to: SYSTEM_CONTRACT, value: 0n, data, shardingFlag: 0n, via: null,
});

export function encodePayouts(payouts: readonly Payout[]): Uint8Array {
  return RLP.encode(payouts.map((p) => [p.from, p.to, bigintToBytes(p.amount)]));
}

export function encodeSetter(s: DevSetter): Uint8Array {
  const op = bigintToBytes(BigInt(SETTER_OPS.indexOf(s.op) + 1));
  switch (s.op) {
    case 'setBalance': return RLP.encode([op, s.address, bigintToBytes(s.value)]);
    case 'setCode': return RLP.encode([op, s.address, s.code]);
    case 'setNonce': return RLP.encode([op, s.address, bigintToBytes(s.nonce)]);
    case 'setStorageAt': return RLP.encode([op, s.address, bigintToBytes(s.slot), bigintToBytes(s.value)]);
    case 'setCoinbase': return RLP.encode([op, s.address]);
  }
}

/** The settlement of a block; `nonce` is account 0x…64's nonce before it. */
export const settlementTx = (nonce: bigint, payouts: readonly Payout[]): SignedTx =>
  seal(systemCall(nonce, SYSCNT.settlement, encodePayouts(payouts)));

/** A dev-control setter; `nonce` is account 0x…64's nonce before it. */
export const setterTx = (nonce: bigint, setter: DevSetter): SignedTx => seal(systemCall(nonce, SYSCNT.setter, encodeSetter(setter)));

export interface ImpersonatedCall {
  from: Address;
  /** the impersonated account's nonce */
  nonce: bigint;
  /** null creates a contract */
  to: Address | null;
  value: bigint;
  data: Uint8Array;
  gas: bigint;
  gasPrice: bigint;
}

/** A call or creation from `from` without its key (devControls chains only). */
export const impersonatedTx = (c: ImpersonatedCall): SignedTx =>
  seal({ nonce: c.nonce, syscnt: SYSCNT.impersonated, gasPrice: c.gasPrice, gas: c.gas, to: c.to, value: c.value, data: c.data, shardingFlag: 0n, via: c.from });

// --- decoding and form checks ------------------------------------------------------------

function rlpList(data: Uint8Array, what: string): unknown[] {
  let decoded: unknown;
  try {
    decoded = RLP.decode(data);
  } catch (err) {
    throw new MalformedSystemTx(`${what}: ${(err as Error).message}`);
  }
  if (!Array.isArray(decoded)) throw new MalformedSystemTx(`${what}: expected an RLP list`);
  return decoded;
}

function bytesAt(items: unknown[], i: number, what: string, length?: number): Uint8Array {
  const item = items[i];
  if (!(item instanceof Uint8Array)) throw new MalformedSystemTx(`${what}: item ${i} is not a byte string`);
  if (length !== undefined && item.length !== length) throw new MalformedSystemTx(`${what}: item ${i} has ${item.length} bytes, want ${length}`);
  return item;
}

function intAt(items: unknown[], i: number, what: string, maxBytes: number): bigint {
  const item = bytesAt(items, i, what);
  if (item.length > maxBytes) throw new MalformedSystemTx(`${what}: item ${i} is longer than ${maxBytes} bytes`);
  return bytesToBigint(item);
}

function decodePayouts(data: Uint8Array): Payout[] {
  const what = 'settlement payload';
  const payouts = rlpList(data, what).map((entry, k) => {
    if (!Array.isArray(entry) || entry.length !== 3) throw new MalformedSystemTx(`${what}: payout ${k} is not [payer, payee, amount]`);
    const amount = intAt(entry, 2, `${what} payout ${k}`, 32);
    if (amount === 0n) throw new MalformedSystemTx(`${what}: payout ${k} pays nothing`);
    return { from: bytesAt(entry, 0, `${what} payout ${k}`, 20), to: bytesAt(entry, 1, `${what} payout ${k}`, 20), amount };
  });
  if (payouts.length === 0) throw new MalformedSystemTx(`${what}: no payouts`);
  return payouts;
}

function decodeSetter(data: Uint8Array): DevSetter {
  const what = 'setter payload';
  const items = rlpList(data, what);
  const op = SETTER_OPS[Number(intAt(items, 0, what, 1)) - 1];
  if (op === undefined) throw new MalformedSystemTx(`${what}: unknown operation`);
  const want = { setBalance: 3, setCode: 3, setNonce: 3, setStorageAt: 4, setCoinbase: 2 }[op];
  if (items.length !== want) throw new MalformedSystemTx(`${what}: ${op} takes ${want} items, got ${items.length}`);
  const target = bytesAt(items, 1, what, 20);
  switch (op) {
    case 'setBalance': return { op, address: target, value: intAt(items, 2, what, 32) };
    case 'setCode': return { op, address: target, code: bytesAt(items, 2, what) };
    case 'setNonce': return { op, address: target, nonce: intAt(items, 2, what, 8) };
    case 'setStorageAt': return { op, address: target, slot: intAt(items, 2, what, 32), value: intAt(items, 3, what, 32) };
    case 'setCoinbase': return { op, address: target };
  }
}

/** Checks the form of a system transaction and decodes its payload. */
export function decodeSystemPayload(tx: SignedTx): SystemPayload {
  if (tx.v !== 0n || tx.r !== 0n || tx.s !== 0n) throw new MalformedSystemTx('a system transaction carries no signature (v = r = s = 0)');
  if (tx.shardingFlag !== 0n) throw new MalformedSystemTx('a system transaction has shardingFlag 0');
  if (tx.syscnt === SYSCNT.impersonated) {
    if (tx.via === null) throw new MalformedSystemTx('an impersonated transaction names its sender in via');
    return { kind: 'impersonated' };
  }
  if (tx.syscnt !== SYSCNT.settlement && tx.syscnt !== SYSCNT.setter) throw new MalformedSystemTx(`unknown system transaction kind (syscnt ${tx.syscnt})`);
  if (tx.gas !== 0n || tx.gasPrice !== 0n || tx.value !== 0n) throw new MalformedSystemTx('a settlement or setter has gas, gas price and value 0');
  if (tx.to === null || !equalBytes(tx.to, SYSTEM_CONTRACT) || tx.via !== null) {
    throw new MalformedSystemTx('a settlement or setter goes to 0x0000000000000000000000000000000000000065 without via');
  }
  // Re-encoding must give the same bytes: one change, one encoding, one hash.
  if (tx.syscnt === SYSCNT.settlement) {
    const payouts = decodePayouts(tx.data);
    if (!equalBytes(encodePayouts(payouts), tx.data)) throw new MalformedSystemTx('settlement payload is not canonical RLP');
    return { kind: 'settlement', payouts };
  }
  const setter = decodeSetter(tx.data);
  if (!equalBytes(encodeSetter(setter), tx.data)) throw new MalformedSystemTx('setter payload is not canonical RLP');
  return { kind: 'setter', setter };
}

/**
 * Decodes a transaction of a block (import, sync): a user transaction with its signature
 * checked, or a system transaction in its exact form. Users may not send system transactions:
 * decodeTransaction (mc_sendRawTransaction) keeps refusing syscnt > 0.
 */
export function decodeBlockTransaction(raw: Uint8Array, chainId: bigint): SignedTx {
  try {
    return decodeTransaction(raw, chainId);
  } catch (err) {
    let tx: SignedTx;
    try {
      tx = decodeUnsignedTransaction(raw, systemSender);
    } catch {
      throw err;
    }
    if (!isSystemTx(tx)) throw err;
    try {
      decodeSystemPayload(tx);
    } catch (e) {
      if (e instanceof MalformedSystemTx) throw new MalformedSystemTx(`system transaction: ${e.message}`);
      throw e;
    }
    return tx;
  }
}
