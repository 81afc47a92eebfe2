// The op loop of a fast call: one frame at a time, synchronous, stack words as bigints, gas as a
// Number. Arithmetic, stack, memory and environment ops run here; ops that touch state, other
// frames or the journal are in system.ts. Checks run in the library's order: a fixed-fee op pays
// before its stack is checked, an op with computed gas checks its stack first. Every op counts
// down the run's clock; at 0 the frame stops before its next op (S_NEED) for the engine to look
// at the time.

import { keccak256 } from '../../encoding/bytes.js';
import type { Engine } from './engine.js';
import {
  ERR_INVALID, ERR_JUMP, ERR_OOG, ERR_OVERFLOW, ERR_REVERT, ERR_UNDERFLOW, EMPTY, S_ABORT, S_GO, S_HALT, S_NEED,
  bytesToWord, copyCost, copyInto, grow, loadWord, memoryCost, readWord, wordsFor, writeWord, type Frame,
} from './frame.js';
import { MAX_SP, OP_DYNAMIC, OP_INVALID, OP_STATIC, POPS } from './rules.js';
import { systemOp } from './system.js';

const U256 = (1n << 256n) - 1n;
const TWO256 = 1n << 256n;
const SIGN = 1n << 255n;

/** Runs `f` from its pc until it halts, needs state, or starts a child frame. */
export function execute(e: Engine, f: Frame): number {
  const code = f.code;
  const length = code.length;
  const jumpdests = f.info.jumpdests;
  const pushes = f.info.pushes;
  const stack = f.stack;
  const kind = e.rules.kind;
  const fee = e.rules.fee;
  const p = e.rules.p;
  const clock = e.clock;
  let steps = clock.steps;
  let pc = f.pc;
  let sp = f.sp;
  let gas = f.gas;
  let err = 0;

  for (;;) {
    if (--steps <= 0) {
      clock.steps = 0;
      f.pc = pc;
      f.sp = sp;
      f.gas = gas;
      return S_NEED;
    }
    if (pc >= length) {
      f.output = EMPTY;
      break;
    }
    const op = code[pc];
    const k = kind[op];
    if (k === OP_STATIC) {
      gas -= fee[op];
      if (gas < 0) {
        err = ERR_OOG;
        break;
      }
      if (sp < POPS[op]) {
        err = ERR_UNDERFLOW;
        break;
      }
      if (sp > MAX_SP[op]) {
        err = ERR_OVERFLOW;
        break;
      }
    } else if (k === OP_DYNAMIC) {
      if (sp < POPS[op]) {
        err = ERR_UNDERFLOW;
        break;
      }
    } else if (k === OP_INVALID) {
      err = ERR_INVALID;
      break;
    } else {
      return S_ABORT;
    }

    if (op >= 0x60 && op <= 0x7f) {
      stack[sp++] = pushes[pc];
      pc += op - 0x5e;
      continue;
    }
    if (op >= 0x80 && op <= 0x8f) {
      stack[sp] = stack[sp - (op - 0x7f)];
      sp++;
      pc++;
      continue;
    }
    if (op >= 0x90 && op <= 0x9f) {
      const i = sp - 2 - (op - 0x90);
      const t = stack[sp - 1];
      stack[sp - 1] = stack[i];
      stack[i] = t;
      pc++;
      continue;
    }

    switch (op) {
      case 0x00: // STOP
        f.output = EMPTY;
        f.pc = pc;
        f.gas = gas;
        clock.steps = steps;
        return S_HALT;
      case 0x01: {
        const r = stack[sp - 1] + stack[sp - 2];
        stack[sp - 2] = r > U256 ? r - TWO256 : r;
        sp--;
        break;
      }
      case 0x02:
        stack[sp - 2] = (stack[sp - 1] * stack[sp - 2]) & U256;
        sp--;
        break;
      case 0x03: {
        const r = stack[sp - 1] - stack[sp - 2];
        stack[sp - 2] = r < 0n ? r + TWO256 : r;
        sp--;
        break;
      }
      case 0x04: {
        const b = stack[sp - 2];
        stack[sp - 2] = b === 0n ? 0n : stack[sp - 1] / b;
        sp--;
        break;
      }
      case 0x05: {
        const b = stack[sp - 2];
        stack[sp - 2] = b === 0n ? 0n : BigInt.asUintN(256, BigInt.asIntN(256, stack[sp - 1]) / BigInt.asIntN(256, b));
        sp--;
        break;
      }
      case 0x06: {
        const b = stack[sp - 2];
        stack[sp - 2] = b === 0n ? 0n : stack[sp - 1] % b;
        sp--;
        break;
      }
      case 0x07: {
        const b = stack[sp - 2];
        stack[sp - 2] = b === 0n ? 0n : BigInt.asUintN(256, BigInt.asIntN(256, stack[sp - 1]) % BigInt.asIntN(256, b));
        sp--;
        break;
      }
      case 0x08: {
        const c = stack[sp - 3];
        stack[sp - 3] = c === 0n ? 0n : (stack[sp - 1] + stack[sp - 2]) % c;
        sp -= 2;
        break;
      }
      case 0x09: {
        const c = stack[sp - 3];
        stack[sp - 3] = c === 0n ? 0n : (stack[sp - 1] * stack[sp - 2]) % c;
        sp -= 2;
        break;
      }
      case 0x0a: { // EXP
        const base = stack[sp - 1];
        const exponent = stack[sp - 2];
        const bytes = exponent === 0n ? 0 : Math.ceil(exponent.toString(16).length / 2);
        gas -= fee[op] + bytes * p.expByte;
        if (gas < 0) {
          err = ERR_OOG;
          break;
        }
        stack[sp - 2] = power(base, exponent);
        sp--;
        break;
      }
      case 0x0b: {
        const k2 = stack[sp - 1];
        let v = stack[sp - 2];
        if (k2 < 31n) {
          const bit = k2 * 8n + 7n;
          const mask = (1n << bit) - 1n;
          v = ((v >> bit) & 1n) === 1n ? v | (U256 ^ mask) : v & mask;
        }
        stack[sp - 2] = v;
        sp--;
        break;
      }
      case 0x10:
        stack[sp - 2] = stack[sp - 1] < stack[sp - 2] ? 1n : 0n;
        sp--;
        break;
      case 0x11:
        stack[sp - 2] = stack[sp - 1] > stack[sp - 2] ? 1n : 0n;
        sp--;
        break;
      case 0x12:
        stack[sp - 2] = signed(stack[sp - 1]) < signed(stack[sp - 2]) ? 1n : 0n;
        sp--;
        break;
      case 0x13:
        stack[sp - 2] = signed(stack[sp - 1]) > signed(stack[sp - 2]) ? 1n : 0n;
        sp--;
        break;
      case 0x14:
        stack[sp - 2] = stack[sp - 1] === stack[sp - 2] ? 1n : 0n;
        sp--;
        break;
      case 0x15:
        stack[sp - 1] = stack[sp - 1] === 0n ? 1n : 0n;
        break;
      case 0x16:
        stack[sp - 2] = stack[sp - 1] & stack[sp - 2];
        sp--;
        break;
      case 0x17:
        stack[sp - 2] = stack[sp - 1] | stack[sp - 2];
        sp--;
        break;
      case 0x18:
        stack[sp - 2] = stack[sp - 1] ^ stack[sp - 2];
        sp--;
        break;
      case 0x19:
        stack[sp - 1] = U256 ^ stack[sp - 1];
        break;
      case 0x1a: {
        const i = stack[sp - 1];
        stack[sp - 2] = i >= 32n ? 0n : (stack[sp - 2] >> ((31n - i) * 8n)) & 0xffn;
        sp--;
        break;
      }
      case 0x1b: {
        const shift = stack[sp - 1];
        stack[sp - 2] = shift >= 256n ? 0n : (stack[sp - 2] << shift) & U256;
        sp--;
        break;
      }
      case 0x1c: {
        const shift = stack[sp - 1];
        stack[sp - 2] = shift >= 256n ? 0n : stack[sp - 2] >> shift;
        sp--;
        break;
      }
      case 0x1d: {
        const shift = stack[sp - 1];
        const v = BigInt.asIntN(256, stack[sp - 2]);
        stack[sp - 2] = BigInt.asUintN(256, v >> (shift >= 256n ? 255n : shift));
        sp--;
        break;
      }
      case 0x20: { // KECCAK256
        const offset = stack[sp - 1];
        const size = stack[sp - 2];
        const words = wordsFor(offset, size);
        gas -= fee[op] + memoryCost(f, words, p) + copyCost(size, p.keccakWord);
        if (gas < 0) {
          err = ERR_OOG;
          break;
        }
        grow(f, words, p);
        const start = size === 0n ? 0 : Number(offset);
        stack[sp - 2] = bytesToWord(keccak256(f.mem.subarray(start, start + Number(size))));
        sp--;
        break;
      }
      case 0x30:
        stack[sp++] = f.address;
        break;
      case 0x32:
        stack[sp++] = e.origin;
        break;
      case 0x33:
        stack[sp++] = f.caller;
        break;
      case 0x34:
        stack[sp++] = f.value;
        break;
      case 0x35:
        stack[sp - 1] = loadWord(f, stack[sp - 1]);
        break;
      case 0x36:
        stack[sp++] = BigInt(f.data.length);
        break;
      case 0x37: // CALLDATACOPY
      case 0x39: // CODECOPY
      case 0x3e: { // RETURNDATACOPY
        const to = stack[sp - 1];
        const from = stack[sp - 2];
        const size = stack[sp - 3];
        const source = op === 0x37 ? f.data : op === 0x39 ? code : f.returnData;
        if (op === 0x3e && from + size > BigInt(source.length)) {
          err = ERR_OOG;
          break;
        }
        const words = wordsFor(to, size);
        gas -= fee[op] + memoryCost(f, words, p) + (size === 0n ? 0 : copyCost(size, p.copy));
        if (gas < 0) {
          err = ERR_OOG;
          break;
        }
        grow(f, words, p);
        if (size !== 0n) copyInto(f, Number(to), source, from, Number(size));
        sp -= 3;
        break;
      }
      case 0x38:
        stack[sp++] = BigInt(length);
        break;
      case 0x3a:
        stack[sp++] = e.gasPrice;
        break;
      case 0x3d:
        stack[sp++] = BigInt(f.returnData.length);
        break;
      case 0x41:
        stack[sp++] = e.coinbase;
        break;
      case 0x42:
        stack[sp++] = e.timestamp;
        break;
      case 0x43:
        stack[sp++] = e.number;
        break;
      case 0x44:
        stack[sp++] = e.difficulty;
        break;
      case 0x45:
        stack[sp++] = e.blockGasLimit;
        break;
      case 0x46:
        stack[sp++] = e.rules.chainId;
        break;
      case 0x50:
        sp--;
        break;
      case 0x51: { // MLOAD
        const offset = stack[sp - 1];
        const words = wordsFor(offset, 32n);
        gas -= fee[op] + memoryCost(f, words, p);
        if (gas < 0) {
          err = ERR_OOG;
          break;
        }
        grow(f, words, p);
        stack[sp - 1] = readWord(f, Number(offset));
        break;
      }
      case 0x52: { // MSTORE
        const offset = stack[sp - 1];
        const words = wordsFor(offset, 32n);
        gas -= fee[op] + memoryCost(f, words, p);
        if (gas < 0) {
          err = ERR_OOG;
          break;
        }
        if (sp < 2) {
          err = ERR_UNDERFLOW;
          break;
        }
        grow(f, words, p);
        writeWord(f, Number(offset), stack[sp - 2]);
        sp -= 2;
        break;
      }
      case 0x53: { // MSTORE8
        const offset = stack[sp - 1];
        const words = wordsFor(offset, 1n);
        gas -= fee[op] + memoryCost(f, words, p);
        if (gas < 0) {
          err = ERR_OOG;
          break;
        }
        if (sp < 2) {
          err = ERR_UNDERFLOW;
          break;
        }
        grow(f, words, p);
        f.mem[Number(offset)] = Number(stack[sp - 2] & 0xffn);
        sp -= 2;
        break;
      }
      case 0x56: { // JUMP
        const dest = stack[--sp];
        if (dest >= BigInt(length) || jumpdests[Number(dest)] !== 1) {
          err = ERR_JUMP;
          break;
        }
        pc = Number(dest);
        continue;
      }
      case 0x57: { // JUMPI
        const dest = stack[sp - 1];
        const cond = stack[sp - 2];
        sp -= 2;
        if (cond !== 0n) {
          if (dest >= BigInt(length) || jumpdests[Number(dest)] !== 1) {
            err = ERR_JUMP;
            break;
          }
          pc = Number(dest);
          continue;
        }
        break;
      }
      case 0x58:
        stack[sp++] = BigInt(pc);
        break;
      case 0x59:
        stack[sp++] = BigInt(f.memWords * 32);
        break;
      case 0x5a:
        stack[sp++] = BigInt(gas);
        break;
      case 0x5b:
        break;
      case 0xf3: // RETURN
      case 0xfd: { // REVERT
        const offset = stack[sp - 1];
        const size = stack[sp - 2];
        const words = wordsFor(offset, size);
        gas -= fee[op] + memoryCost(f, words, p);
        if (gas < 0) {
          err = ERR_OOG;
          break;
        }
        grow(f, words, p);
        sp -= 2;
        if (size === 0n) f.output = EMPTY;
        else {
          const start = Number(offset);
          f.output = f.mem.slice(start, start + Number(size));
        }
        f.pc = pc;
        f.sp = sp;
        f.gas = gas;
        clock.steps = steps;
        if (op === 0xfd) f.error = ERR_REVERT;
        return S_HALT;
      }
      default: {
        f.pc = pc;
        f.sp = sp;
        f.gas = gas;
        clock.steps = steps;
        const status = systemOp(e, f, op);
        if (status !== S_GO) return status;
        pc = f.pc;
        sp = f.sp;
        gas = f.gas;
        continue;
      }
    }
    if (err !== 0) break;
    pc++;
  }
  f.pc = pc;
  f.sp = sp;
  clock.steps = steps;
  if (err !== 0) {
    f.error = err;
    f.errorPc = pc;
    f.gas = 0;
    f.output = EMPTY;
  } else {
    f.gas = gas;
  }
  return S_HALT;
}

function signed(v: bigint): bigint {
  return v >= SIGN ? v - TWO256 : v;
}

/** base^exponent mod 2^256. */
function power(base: bigint, exponent: bigint): bigint {
  if (exponent === 0n) return 1n;
  if (base === 0n) return 0n;
  if (base === 2n) return exponent >= 256n ? 0n : 1n << exponent;
  let result = 1n;
  let b = base;
  let x = exponent;
  while (x > 0n) {
    if ((x & 1n) === 1n) result = (result * b) & U256;
    b = (b * b) & U256;
    x >>= 1n;
  }
  return result;
}
