// Anvil's state format (anvil_dumpState / anvil_loadState, --dump-state / --load-state):
// JSON `{block, accounts: {address: {nonce, balance, code, storage: {slot: value}}},
// best_block_number, blocks, transactions, historical_states}`. The RPC methods carry it as hex
// of its gzipped bytes, the files as plain JSON. mcnode writes and reads the accounts; blocks and
// transactions are Anvil's own history, which a MOAC chain cannot take: they are written empty
// and ignored when read (docs/coming-from-anvil-hardhat.md#state-files).

import { gunzipSync, gzipSync } from 'node:zlib';
import { DecodeError } from '../errors.js';
import { bytesToHex, decodeData, decodeQuantity, encodeQuantity } from '../encoding/hex.js';
import type { DumpedAccount } from '../state/stateDump.js';

export interface AnvilAccount {
  nonce: number;
  balance: string;
  code: string;
  storage: Record<string, string>;
}

export interface AnvilState {
  block: null;
  accounts: Record<string, AnvilAccount>;
  best_block_number: number;
  blocks: [];
  transactions: [];
  historical_states: null;
}

const word = (n: bigint) => '0x' + n.toString(16).padStart(64, '0');

export function toAnvilState(accounts: DumpedAccount[], headNumber: bigint): AnvilState {
  const out: Record<string, AnvilAccount> = {};
  for (const a of accounts) {
    out[bytesToHex(a.address)] = {
      nonce: Number(a.nonce),
      balance: encodeQuantity(a.balance),
      code: bytesToHex(a.code),
      storage: Object.fromEntries(a.storage.map(([slot, value]) => [word(slot), word(value)])),
    };
  }
  return { block: null, accounts: out, best_block_number: Number(headNumber), blocks: [], transactions: [], historical_states: null };
}

/** What anvil_dumpState answers: the JSON gzipped, as bytes (the caller hex-encodes). */
export const packState = (state: AnvilState): Uint8Array => gzipSync(JSON.stringify(state));

/** anvil_loadState's bytes: gzipped JSON (what Anvil's dump gives) or the JSON itself. */
export function unpackState(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = gunzipSync(bytes).toString('utf8');
  } catch {
    text = Buffer.from(bytes).toString('utf8');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new DecodeError('state: neither gzipped JSON nor JSON');
  }
}

const fail = (reason: string): never => {
  throw new DecodeError(`state: ${reason}`);
};

/** A number Anvil writes as a JSON number or as hex. */
function integerOf(v: unknown, where: string): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string') {
    try {
      return /^0x/i.test(v) ? BigInt(v) : decodeQuantity(v);
    } catch {
      return fail(`${where}: not a number`);
    }
  }
  return fail(`${where}: not a number`);
}

/** The accounts of an Anvil state (its blocks and transactions are not read). */
export function fromAnvilState(json: unknown): DumpedAccount[] {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return fail('expected an object');
  const accounts = (json as { accounts?: unknown }).accounts;
  if (typeof accounts !== 'object' || accounts === null || Array.isArray(accounts)) return fail('"accounts" must be an object');
  return Object.entries(accounts).map(([hex, raw]) => {
    const where = `account ${hex}`;
    let address: Uint8Array;
    try {
      address = decodeData(hex, 20);
    } catch {
      return fail(`${where}: not a 20-byte address`);
    }
    if (typeof raw !== 'object' || raw === null) return fail(`${where}: expected an object`);
    const a = raw as Record<string, unknown>;
    const storage = (a.storage ?? {}) as Record<string, unknown>;
    if (typeof storage !== 'object' || Array.isArray(storage)) return fail(`${where}: "storage" must be an object`);
    let code: Uint8Array;
    try {
      code = decodeData(a.code ?? '0x');
    } catch {
      return fail(`${where}: "code" is not hex`);
    }
    return {
      address,
      nonce: integerOf(a.nonce ?? 0, `${where} nonce`),
      balance: integerOf(a.balance ?? '0x0', `${where} balance`),
      code,
      storage: Object.entries(storage).map(([slot, value]) => [integerOf(slot, `${where} slot`), integerOf(value, `${where} slot ${slot}`)] as [bigint, bigint]),
    };
  });
}
