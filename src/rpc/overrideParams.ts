// Param codecs of the overrides calls take (design.md §17): a state override maps an address to
// {balance, nonce, code, state, stateDiff}; a block override names some of number, time, gasLimit,
// feeRecipient (or coinbase) and difficulty. Names outside those lists are refused, naming them:
// a misspelt field silently ignored would run the call on state the caller did not mean.

import { bytesToHex } from '../encoding/hex.js';
import type { BlockOverrides, CallOverrides } from '../execution/call.js';
import type { AccountOverride, StateOverrides } from '../state/overrideState.js';
import { ParamError, address, data, hash, member, objectParam, quantity, uint64, type Codec } from './params.js';

const ACCOUNT_FIELDS = new Set(['balance', 'nonce', 'code', 'state', 'stateDiff']);
const BLOCK_FIELDS = new Set(['number', 'time', 'gasLimit', 'feeRecipient', 'coinbase', 'difficulty']);

/** Storage by slot: 32-byte keys and values (geth's map[Hash]Hash). */
function slots(v: unknown, i: number, where: string): Map<string, Uint8Array> {
  const o = objectParam(v, i);
  const out = new Map<string, Uint8Array>();
  for (const [key, value] of Object.entries(o)) {
    const slot = named(i, `${where}: slot ${key}`, () => hash(key, i));
    out.set(bytesToHex(slot), named(i, `${where}: slot ${key}`, () => hash(value, i)));
  }
  return out;
}

/** Runs `decode`, its ParamError's reason prefixed with `where`. */
function named<T>(i: number, where: string, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (err instanceof ParamError) throw new ParamError(i, `${where}: ${err.reason}`);
    throw err;
  }
}

export const stateOverrides: Codec<StateOverrides> = (v, i) => {
  const out: StateOverrides = new Map();
  for (const [key, value] of Object.entries(objectParam(v, i))) {
    const account = bytesToHex(named(i, `account ${key}`, () => address(key, i)));
    const o = named(i, `account ${account}`, () => objectParam(value, i));
    for (const field of Object.keys(o)) {
      if (!ACCOUNT_FIELDS.has(field)) throw new ParamError(i, `account ${account}: unknown override field "${field}" (balance, nonce, code, state, stateDiff)`);
    }
    if (o.state != null && o.stateDiff != null) throw new ParamError(i, `account ${account} has both 'state' and 'stateDiff'`);
    const override: AccountOverride = named(i, `account ${account}`, () => ({
      balance: member(o, 'balance', quantity, i),
      nonce: member(o, 'nonce', uint64, i),
      code: member(o, 'code', data, i),
    }));
    if (o.state != null) override.state = slots(o.state, i, `account ${account}: field "state"`);
    if (o.stateDiff != null) override.stateDiff = slots(o.stateDiff, i, `account ${account}: field "stateDiff"`);
    out.set(account, override);
  }
  return out;
};

export const blockOverrides: Codec<BlockOverrides> = (v, i) => {
  const o = objectParam(v, i);
  for (const field of Object.keys(o)) {
    if (!BLOCK_FIELDS.has(field)) throw new ParamError(i, `block override field "${field}" is not supported (number, time, gasLimit, feeRecipient, difficulty)`);
  }
  return {
    number: member(o, 'number', quantity, i),
    time: member(o, 'time', uint64, i),
    gasLimit: member(o, 'gasLimit', uint64, i),
    feeRecipient: member(o, 'feeRecipient', address, i) ?? member(o, 'coinbase', address, i),
    difficulty: member(o, 'difficulty', quantity, i),
  };
};

/** The overrides of one call, or undefined when it has none (the call then runs on the shared warm state). */
export function callOverrides(state: StateOverrides | undefined, block: BlockOverrides | undefined): CallOverrides | undefined {
  return state === undefined && block === undefined ? undefined : { state, block };
}
