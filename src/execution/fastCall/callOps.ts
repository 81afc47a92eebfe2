// The CALL and CREATE families of a fast call: each reads the state it needs (S_NEED otherwise,
// before anything changes), charges gas as the library's gas handlers do, then hands the message
// to the engine, which runs the callee's frame or settles the result at once.

import { generateAddress, generateAddress2 } from '@ethereumjs/util';
import type { Engine } from './engine.js';
import {
  EMPTY, ERR_OOG, ERR_STATIC, MAX_CALL_GAS, S_GO, S_HALT, S_NEED, WAIT_CALL, WAIT_CREATE,
  bytesToWord, copyCost, fail, grow, memoryCost, reserve, wordsFor, type Frame,
} from './frame.js';
import { isEmptyAccount, toAddress, toWord } from './world.js';

const MASK160 = (1n << 160n) - 1n;
const MAX_NONCE = (1n << 64n) - 1n;
const BIG_GAS = BigInt(MAX_CALL_GAS);

/** CALL, CALLCODE, DELEGATECALL, STATICCALL: charge, transfer, then the callee's frame (or its result at once). */
export function callOp(e: Engine, f: Frame, op: number): number {
  const stack = f.stack;
  const sp = f.sp;
  const r = e.rules;
  const p = r.p;
  const w = e.world;
  const hasValue = op === 0xf1 || op === 0xf2;
  const requested = stack[sp - 1];
  const target = stack[sp - 2] & MASK160;
  const value = hasValue ? stack[sp - 3] : 0n;
  const i = hasValue ? sp - 4 : sp - 3;
  const inOffset = stack[i];
  const inSize = stack[i - 1];
  const outOffset = stack[i - 2];
  const outSize = stack[i - 3];
  if (op === 0xf1 && f.isStatic && value !== 0n) return fail(f, ERR_STATIC);
  const account = w.account(target);
  if (account === undefined) return S_NEED;
  if (!r.precompiles.has(target) && w.code(target) === undefined) return S_NEED;
  const self = w.account(f.address);
  if (self === undefined) return S_NEED;

  const words = Math.max(wordsFor(inOffset, inSize), wordsFor(outOffset, outSize));
  let cost = r.fee[op] + memoryCost(f, words, p);
  if (r.eip2929) cost += w.isWarm(target) ? p.warmRead : p.coldAccount;
  if (hasValue && value !== 0n) cost += p.callValue;
  if (op === 0xf1 && (value !== 0n || !r.eip161)) {
    if (r.eip161 ? isEmptyAccount(account) : !account.exists) cost += p.callNewAccount;
  }
  const available = f.gas - cost;
  let gasLimit = callGasLimit(e, requested, available);
  if (gasLimit > available || cost > f.gas) return fail(f, ERR_OOG);
  f.gas = available;
  grow(f, words, p);
  if (r.eip2929) w.warmAddress(target);
  f.sp = hasValue ? sp - 7 : sp - 6;
  const data = inSize === 0n ? EMPTY : f.mem.subarray(Number(inOffset), Number(inOffset) + Number(inSize));
  if (hasValue && value !== 0n) {
    f.gas += p.callStipend;
    gasLimit += p.callStipend;
  }
  f.returnData = EMPTY;
  if (f.depth >= p.stackLimit || (op !== 0xf4 && self.balance < value)) {
    f.stack[f.sp++] = 0n;
    f.pc++;
    return S_GO;
  }
  f.wait = WAIT_CALL;
  f.outOffset = outSize === 0n ? 0 : Number(outOffset);
  f.outLength = outSize === 0n ? 0 : Number(outSize);
  const depth = f.depth + 1;
  let status: number;
  if (op === 0xf1) status = e.enterCall(f.address, target, target, value, data, gasLimit, depth, f.isStatic, false);
  else if (op === 0xf2) status = e.enterCall(f.address, f.address, target, value, data, gasLimit, depth, f.isStatic, false);
  else if (op === 0xf4) status = e.enterCall(f.caller, f.address, target, f.value, data, gasLimit, depth, f.isStatic, true);
  else status = e.enterCall(f.address, target, target, 0n, data, gasLimit, depth, true, false);
  w.journaling = f.depth > 0;
  return status === S_HALT ? S_GO : status;
}

/** CREATE, CREATE2: charge, then the init code's frame (or its result at once). */
export function createOp(e: Engine, f: Frame, op: number): number {
  const stack = f.stack;
  const sp = f.sp;
  const r = e.rules;
  const p = r.p;
  const w = e.world;
  const value = stack[sp - 1];
  const offset = stack[sp - 2];
  const size = stack[sp - 3];
  if (f.isStatic) return fail(f, ERR_STATIC);
  const words = wordsFor(offset, size);
  let cost = r.fee[op] + memoryCost(f, words, p);
  if (op === 0xf5) cost += copyCost(size, p.keccakWord);
  if (cost > f.gas) return fail(f, ERR_OOG);
  reserve(f, words * 32);
  const init = size === 0n ? EMPTY : f.mem.subarray(Number(offset), Number(offset) + Number(size));
  const self = w.account(f.address);
  if (self === undefined) return S_NEED;
  const eof = init.length >= 2 && init[0] === 0xef && init[1] === 0x00;
  const target = eof ? 0n : createdAddress(f.address, self.nonce, op === 0xf5 ? toWord(stack[sp - 4]) : undefined, init);
  if (!eof && w.account(target) === undefined) return S_NEED;

  f.gas -= cost;
  grow(f, words, p);
  if (r.eip2929) w.warmAddress(f.address);
  f.sp = op === 0xf5 ? sp - 4 : sp - 3;
  if (eof) {
    f.stack[f.sp++] = 0n;
    f.pc++;
    return S_GO;
  }
  f.returnData = EMPTY;
  const gasLimit = r.eip150 ? f.gas - Math.trunc(f.gas / 64) : f.gas;
  if (f.depth >= p.stackLimit || self.balance < value || self.nonce >= MAX_NONCE) {
    f.stack[f.sp++] = 0n;
    f.pc++;
    return S_GO;
  }
  w.setNonce(f.address, self.nonce + 1n);
  if (r.eip2929) w.warmAddress(target);
  f.wait = WAIT_CREATE;
  const status = e.enterCreate(f.address, target, value, init, gasLimit, f.depth + 1);
  w.journaling = f.depth > 0;
  return status === S_HALT ? S_GO : status;
}

/** Gas a CALL-family op may pass on (EIP-150: all but 1/64 of what is left), or the requested amount before it. */
function callGasLimit(e: Engine, requested: bigint, available: number): number {
  const req = requested > BIG_GAS ? Infinity : Number(requested);
  if (!e.rules.eip150) return req;
  const capped = available - Math.trunc(available / 64);
  return req < capped ? req : capped;
}

/** The address a creation by `creator` deploys to (CREATE: from its nonce; CREATE2: from salt and code). */
export function createdAddress(creator: bigint, nonce: bigint, salt: Uint8Array | undefined, code: Uint8Array): bigint {
  const from = toAddress(creator).bytes;
  const bytes = salt === undefined ? generateAddress(from, nonceBytes(nonce)) : generateAddress2(from, salt, code);
  return bytesToWord(bytes);
}

function nonceBytes(nonce: bigint): Uint8Array {
  if (nonce === 0n) return EMPTY;
  let hex = nonce.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  return Uint8Array.from(hex.match(/../g)!.map((b) => parseInt(b, 16)));
}
