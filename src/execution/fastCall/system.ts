// Ops of a fast call that read or write state, or start other frames: BALANCE, EXTCODE*,
// BLOCKHASH, SELFBALANCE, SLOAD, SSTORE, LOG*, SELFDESTRUCT and the CALL and CREATE families.
// Each reads everything it needs from the world before it charges or changes anything, so that
// on a cache miss (S_NEED) the op runs again from the start once the engine has loaded the value.

import { callOp, createOp } from './callOps.js';
import type { Engine } from './engine.js';
import {
  ERR_OOG, ERR_STATIC, ERR_UNDERFLOW, EMPTY, S_GO, S_HALT, S_NEED,
  bytesToWord, copyCost, copyInto, fail, grow, memoryCost, wordsFor, type Frame,
} from './frame.js';
import { isEmptyAccount, type BaseAccount, type CallAccount } from './world.js';
import { keccak256 } from '../../encoding/bytes.js';

const MASK160 = (1n << 160n) - 1n;
const EOF_MAGIC_HASH = bytesToWord(keccak256(Uint8Array.from([0xef, 0x00])));

/** Charges `cost` (with the op's fee included); false when out of gas (the frame has failed). */
function charge(f: Frame, cost: number): boolean {
  if (f.gas < cost) {
    fail(f, ERR_OOG);
    return false;
  }
  f.gas -= cost;
  return true;
}

/** Code that starts with 0xEF00 reads as those two bytes to EXTCODE* (the library's EOF rule). */
function isEofCode(code: Uint8Array): boolean {
  return code.length >= 2 && code[0] === 0xef && code[1] === 0x00;
}

/** The EIP-2929 cost of touching `address` (0 before berlin); warms it. */
function accountAccess(e: Engine, address: bigint): number {
  if (!e.rules.eip2929) return 0;
  if (e.world.isWarm(address)) return e.rules.p.warmRead;
  e.world.warmAddress(address);
  return e.rules.p.coldAccount;
}

export function systemOp(e: Engine, f: Frame, op: number): number {
  const w = e.world;
  const stack = f.stack;
  const sp = f.sp;
  const fee = e.rules.fee[op];
  switch (op) {
    case 0x31: { // BALANCE
      const address = stack[sp - 1] & MASK160;
      const a = w.account(address);
      if (a === undefined) return S_NEED;
      if (!charge(f, fee + accountAccess(e, address))) return S_HALT;
      stack[sp - 1] = a.balance;
      break;
    }
    case 0x3b: // EXTCODESIZE
    case 0x3f: { // EXTCODEHASH
      const address = stack[sp - 1] & MASK160;
      const code = w.code(address);
      if (code === undefined) return S_NEED;
      if (!charge(f, fee + accountAccess(e, address))) return S_HALT;
      if (op === 0x3b) stack[sp - 1] = isEofCode(code) ? 2n : BigInt(code.length);
      else if (isEofCode(code)) stack[sp - 1] = EOF_MAGIC_HASH;
      else {
        const a = w.account(address)!;
        stack[sp - 1] = isEmptyAccount(a) ? 0n : bytesToWord(w.codeHash(address)!);
      }
      break;
    }
    case 0x3c: { // EXTCODECOPY
      const address = stack[sp - 1] & MASK160;
      const to = stack[sp - 2];
      const from = stack[sp - 3];
      const size = stack[sp - 4];
      const code = w.code(address);
      if (code === undefined) return S_NEED;
      const words = wordsFor(to, size);
      const p = e.rules.p;
      let cost = fee + memoryCost(f, words, p);
      cost += accountAccess(e, address);
      if (size !== 0n) cost += copyCost(size, p.copy);
      if (!charge(f, cost)) return S_HALT;
      grow(f, words, p);
      if (size !== 0n) copyInto(f, Number(to), isEofCode(code) ? EOF_BYTES : code, from, Number(size));
      f.sp = sp - 4;
      break;
    }
    case 0x40: { // BLOCKHASH (fixed fee, charged already)
      const n = stack[sp - 1];
      const diff = e.number - n;
      if (diff > 256n || diff <= 0n) {
        stack[sp - 1] = 0n;
        break;
      }
      const hash = e.blockHash(n);
      if (hash === undefined) {
        f.gas += fee;
        return S_NEED;
      }
      stack[sp - 1] = hash;
      break;
    }
    case 0x47: { // SELFBALANCE (fixed fee, charged already)
      const a = w.account(f.address);
      if (a === undefined) {
        f.gas += fee;
        return S_NEED;
      }
      stack[sp] = a.balance;
      f.sp = sp + 1;
      break;
    }
    case 0x54: { // SLOAD
      const slot = stack[sp - 1];
      const value = w.storage(f.address, slot);
      if (value === undefined) return S_NEED;
      let cost = fee;
      if (e.rules.eip2929) cost += w.warmSlot(f.address, slot) ? e.rules.p.warmRead : e.rules.p.coldSload;
      if (!charge(f, cost)) return S_HALT;
      stack[sp - 1] = value;
      break;
    }
    case 0x55: // SSTORE
      return sstore(e, f, fee);
    case 0xa0:
    case 0xa1:
    case 0xa2:
    case 0xa3:
    case 0xa4:
      return log(e, f, op - 0xa0, fee);
    case 0xff:
      return selfdestruct(e, f, fee);
    case 0xf0:
    case 0xf5:
      return createOp(e, f, op);
    default:
      return callOp(e, f, op);
  }
  f.pc++;
  return S_GO;
}

const EOF_BYTES = Uint8Array.from([0xef, 0x00]);

function sstore(e: Engine, f: Frame, fee: number): number {
  if (f.isStatic) return fail(f, ERR_STATIC);
  const sp = f.sp;
  if (sp < 2) return fail(f, ERR_UNDERFLOW);
  const slot = f.stack[sp - 1];
  const value = f.stack[sp - 2];
  const w = e.world;
  const r = e.rules;
  const p = r.p;
  const current = w.storage(f.address, slot);
  if (current === undefined) return S_NEED;
  let cost = fee;
  if (r.eip1283 || r.eip2200) {
    const original = w.originalStorage(f.address, slot);
    if (original === undefined) return S_NEED;
    if (r.eip1283) {
      cost += current === value ? p.netNoop : original === current ? (original === 0n ? p.netInit : p.netClean) : p.netDirty;
    } else {
      // The 2300 sentry: at most the stipend left fails, before anything is charged.
      if (f.gas <= p.sentry) return fail(f, ERR_OOG);
      if (current === value) cost += r.eip2929 && w.isWarmSlot(f.address, slot) ? p.warmRead : p.noop2200;
      else if (original === current) cost += original === 0n ? p.init2200 : p.clean2200;
      else cost += p.dirty2200;
    }
  } else {
    cost += current === 0n && value !== 0n ? p.sstoreSet : p.sstoreReset;
  }
  if (r.eip2929 && !w.warmSlot(f.address, slot)) cost += p.coldSload;
  if (!charge(f, cost)) return S_HALT;
  w.setStorage(f.address, slot, value);
  f.sp = sp - 2;
  f.pc++;
  return S_GO;
}

function log(e: Engine, f: Frame, topics: number, fee: number): number {
  if (f.isStatic) return fail(f, ERR_STATIC);
  const sp = f.sp;
  // The library checks the two memory arguments first and the topics after charging.
  if (sp < 2) return fail(f, ERR_UNDERFLOW);
  const offset = f.stack[sp - 1];
  const size = f.stack[sp - 2];
  const p = e.rules.p;
  const words = wordsFor(offset, size);
  const dataCost = size > 0x1_0000_0000n ? Infinity : Number(size) * p.logData;
  if (!charge(f, fee + memoryCost(f, words, p) + topics * p.logTopic + dataCost)) return S_HALT;
  grow(f, words, p);
  if (sp < 2 + topics) return fail(f, ERR_UNDERFLOW);
  f.sp = sp - 2 - topics;
  f.pc++;
  return S_GO;
}

function selfdestruct(e: Engine, f: Frame, fee: number): number {
  if (f.isStatic) return fail(f, ERR_STATIC);
  const sp = f.sp;
  if (sp < 1) return fail(f, ERR_UNDERFLOW);
  const w = e.world;
  const r = e.rules;
  const beneficiary = f.stack[sp - 1] & MASK160;
  const self = w.account(f.address);
  if (self === undefined) return S_NEED;
  const to = w.account(beneficiary);
  if (to === undefined) return S_NEED;
  const balance = self.balance;
  let cost = fee;
  if (r.eip161) {
    if (balance > 0n && (!to.exists || isEmptyAccount(to))) cost += r.p.callNewAccount;
  } else if (r.eip150) {
    if (!to.exists) cost += r.p.callNewAccount;
  }
  if (r.eip2929 && !w.isWarm(beneficiary)) {
    cost += r.p.coldAccount;
    w.warmAddress(beneficiary);
  }
  if (!charge(f, cost)) return S_HALT;
  if (beneficiary !== f.address) w.setBalance(beneficiary, (to as CallAccount | BaseAccount).balance + balance);
  w.setBalance(f.address, 0n);
  f.sp = sp - 1;
  f.output = EMPTY;
  return S_HALT;
}
