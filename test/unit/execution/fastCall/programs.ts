// Hand-written programs for the differential test: helpers that other programs call, and edge
// programs (memory costs, out of gas, stack limits, jumps, reverts, return data, static calls,
// depth, gas forwarding, value transfers, creations and collisions, SELFDESTRUCT, block and
// account reads, net gas metering, precompiles, invalid opcodes).

import { generateAddress } from '@ethereumjs/util';
import { asm } from '../../../helpers/evmAsm.js';
import { EMPTY_ACCOUNT, EOA, MISSING, addr, hexAddress } from './harness.js';

export const RETURNER = 0xaa01n;
export const REVERTER = 0xaa02n;
export const WRITER = 0xaa03n;
export const DESTRUCTOR = 0xaa04n;
export const LOOPER = 0xaa05n;
export const GAS_REPORTER = 0xaa06n;
export const LOGGER = 0xaa07n;
export const RECURSER = 0xaa08n;
export const EF_CODE = 0xaa09n;
export const VALUE_CALLER = 0xaa0an;
export const CREATOR = 0xaa0bn;

const a = (n: bigint) => `PUSH20 ${hexAddress(n)}`;
/** CALL-family op with gas, target, (value), in and out regions; leaves the success flag. */
const call = (op: string, gas: string, to: bigint, value: number | undefined, inOff = 0, inLen = 0, outOff = 0, outLen = 0) =>
  `PUSH ${outLen} PUSH ${outOff} PUSH ${inLen} PUSH ${inOff} ${value === undefined ? '' : `PUSH ${value}`} ${a(to)} ${gas} ${op}`;
/** Stores the top of the stack at memory word `slot`. */
const keep = (slot: number) => `PUSH ${slot * 32} MSTORE`;
const ret = (words: number) => `PUSH ${words * 32} PUSH 0 RETURN`;
const BIG = '0x' + 'ff'.repeat(32);

export const HELPERS = new Map<bigint, string>([
  [RETURNER, asm('CALLDATASIZE PUSH 0 PUSH 0 CALLDATACOPY CALLVALUE CALLDATASIZE MSTORE PUSH 32 CALLDATASIZE ADD PUSH 0 RETURN')],
  [REVERTER, asm('PUSH 0xbeef PUSH 0 MSTORE PUSH 32 PUSH 0 REVERT')],
  [WRITER, asm('CALLVALUE PUSH 1 ADD PUSH 1 SSTORE PUSH 1 SLOAD PUSH 0 MSTORE PUSH 32 PUSH 0 RETURN')],
  [DESTRUCTOR, asm('CALLER SELFDESTRUCT')],
  // burns its gas quickly (keccak of 8 KB per turn), so that out-of-gas runs stay short
  [LOOPER, asm(':l PUSH 0x2000 PUSH 0 SHA3 POP &l JUMP')],
  [GAS_REPORTER, asm('GAS PUSH 0 MSTORE PUSH 32 PUSH 0 RETURN')],
  [LOGGER, asm('PUSH 1 PUSH 2 PUSH 0 PUSH 0 LOG2 STOP')],
  // depth+1 in memory, call self with it, return what came back (or depth+1 when the call failed)
  [RECURSER, asm(`PUSH 0 CALLDATALOAD PUSH 1 ADD PUSH 0 MSTORE ${call('CALL', 'PUSH 2000 GAS SUB', RECURSER, 0, 0, 32, 0, 32)} POP ${ret(1)}`)],
  [EF_CODE, 'ef000102'],
  [VALUE_CALLER, asm(`${call('CALL', 'GAS', RETURNER, 1)} ${keep(0)} ${ret(1)}`)],
  // creates a contract with runtime 0xff, from its own nonce
  [CREATOR, asm(`PUSH 0x60ff60005360016000f3 PUSH 0 MSTORE PUSH 10 PUSH 22 PUSH 0 CREATE ${keep(0)} ${ret(1)}`)],
]);

/** An address CREATOR's first creation lands on if its nonce were 7: taken in the state (collision). */
export const COLLIDING_CREATOR = 0xaa0cn;
export const COLLISION_TARGET = BigInt('0x' + Buffer.from(generateAddress(addr(COLLIDING_CREATOR), Uint8Array.from([1]))).toString('hex'));

/** init code returning `n` bytes of runtime code starting with `first` */
const initReturning = (n: number, first = 0x60) => `PUSH ${first} PUSH 0 MSTORE8 PUSH ${n} PUSH 0 RETURN`;
/** memory-stored init code (as PUSH32 words) then CREATE it: leaves the address (or 0) */
function createFrom(init: string, op = 'CREATE', value = 0, salt = 1): string {
  const hex = init.padEnd(Math.ceil(init.length / 64) * 64, '0');
  let out = '';
  for (let i = 0; i < hex.length; i += 64) out += `PUSH32 0x${hex.slice(i, i + 64)} PUSH ${i / 2} MSTORE `;
  return out + (op === 'CREATE2' ? `PUSH ${salt} ` : '') + `PUSH ${init.length / 2} PUSH 0 PUSH ${value} ${op}`;
}

/** [label, program, gas for the call (default 1,000,000)] */
export const EDGES: [string, string, bigint?][] = [
  ['memory expansion', `PUSH 1 PUSH 0 MSTORE PUSH 1 PUSH 0x400 MSTORE PUSH 7 PUSH 0x10000 MSTORE8 MSIZE ${keep(0)} ${ret(1)}`],
  ['mload far', `PUSH 0x100000 MLOAD POP MSIZE ${keep(0)} ${ret(1)}`],
  ['mstore huge offset', `PUSH 1 PUSH32 ${BIG} MSTORE STOP`],
  ['mstore just past 32 MB', `PUSH 1 PUSH 0x2000000 MSTORE STOP`],
  ['zero size at huge offset', `PUSH 0 PUSH32 ${BIG} PUSH 0 CALLDATACOPY PUSH 0 PUSH32 ${BIG} SHA3 PUSH 0 PUSH32 ${BIG} RETURN`],
  ['keccak of 5000 bytes', `PUSH 5000 PUSH 7 SHA3 ${keep(0)} PUSH 0 PUSH 0 SHA3 ${keep(1)} ${ret(2)}`],
  ['calldatacopy past the data', `PUSH 64 PUSH 2 PUSH 0 CALLDATACOPY PUSH 40 PUSH 1000 PUSH 64 CALLDATACOPY ${ret(4)}`],
  ['codecopy past the code', `PUSH 100 PUSH 3 PUSH 0 CODECOPY PUSH 10 PUSH32 ${BIG} PUSH 100 CODECOPY ${ret(4)}`],
  ['calldataload edges', `PUSH 0 CALLDATALOAD ${keep(0)} PUSH 3 CALLDATALOAD ${keep(1)} CALLDATASIZE CALLDATALOAD ${keep(2)} PUSH32 ${BIG} CALLDATALOAD ${keep(3)} ${ret(4)}`],
  ['stack underflow ADD', 'ADD'],
  ['stack underflow DUP16', `${'PUSH 1 '.repeat(15)} DUP16`],
  ['stack underflow SWAP16', `${'PUSH 1 '.repeat(16)} SWAP16`],
  ['stack underflow CALL', `${'PUSH 0 '.repeat(6)} CALL`],
  ['stack underflow SLOAD', 'SLOAD'],
  ['stack overflow', ':l PUSH 1 &l JUMP'],
  ['endless loop', ':l &l JUMP', 100_000n],
  ['stack of 1024', `${'PUSH 1 '.repeat(1024)} STOP`],
  ['stack of 1025', `${'PUSH 1 '.repeat(1025)} STOP`],
  ['DUP at 1024', `${'PUSH 1 '.repeat(1024)} DUP1`],
  ['jump into push data', 'PUSH 4 JUMP PUSH1 0x5b STOP'],
  ['jump past the code', 'PUSH 200 JUMP'],
  ['jump to the end', 'PUSH 3 JUMP'],
  ['jump to a non-JUMPDEST', 'PUSH 0 JUMP'],
  ['jump huge', `PUSH32 ${BIG} JUMP`],
  ['jumpi false to nowhere', `PUSH 0 PUSH 200 JUMPI PUSH 1 ${keep(0)} ${ret(1)}`],
  ['jumpi true to nowhere', 'PUSH 1 PUSH 200 JUMPI'],
  ['jumpi valid', `PUSH 1 &t JUMPI INVALID :t PUSH 9 ${keep(0)} ${ret(1)}`],
  ['revert with data', `PUSH 0xbeef ${keep(0)} PUSH 32 PUSH 0 REVERT`],
  ['revert empty', 'PUSH 0 PUSH 0 REVERT'],
  ['revert zero size huge offset', `PUSH 0 PUSH32 ${BIG} REVERT`],
  ['return data in bounds', `${call('CALL', 'GAS', RETURNER, 0, 0, 4)} POP PUSH 36 PUSH 0 PUSH 0 RETURNDATACOPY RETURNDATASIZE ${keep(2)} ${ret(3)}`],
  ['return data out of bounds', `${call('CALL', 'GAS', RETURNER, 0, 0, 4)} POP PUSH 37 PUSH 0 PUSH 0 RETURNDATACOPY STOP`],
  ['return data offset overflow', `${call('CALL', 'GAS', RETURNER, 0, 0, 4)} POP PUSH 1 PUSH32 ${BIG} PUSH 0 RETURNDATACOPY STOP`],
  ['return data of a revert', `${call('CALL', 'GAS', REVERTER, 0, 0, 0, 0, 64)} ${keep(2)} RETURNDATASIZE ${keep(3)} ${ret(4)}`],
  ['return data after a failure', `${call('CALL', 'GAS', RETURNER, 0, 0, 4)} POP ${call('CALL', 'PUSH 30000', LOOPER, 0)} RETURNDATASIZE ${keep(0)} ${ret(1)}`],
  ['static call to a writer', `${call('STATICCALL', 'GAS', WRITER, undefined)} ${keep(0)} ${call('CALL', 'GAS', WRITER, 0, 0, 0, 32, 32)} ${keep(2)} ${ret(3)}`],
  ['static call to a logger', `${call('STATICCALL', 'GAS', LOGGER, undefined)} ${keep(0)} ${ret(1)}`],
  ['static call to a value call', `${call('STATICCALL', 'GAS', VALUE_CALLER, undefined)} ${keep(0)} ${ret(1)}`],
  ['static call to a creator', `${call('STATICCALL', 'GAS', CREATOR, undefined)} ${keep(0)} ${ret(1)}`],
  ['static call to a selfdestruct', `${call('STATICCALL', 'GAS', DESTRUCTOR, undefined)} ${keep(0)} ${ret(1)}`],
  // before tangerineWhistle a call may ask for nearly all gas, and the recursion meets the 1024 limit
  ['call depth', `${call('CALL', 'PUSH 5000 GAS SUB', RECURSER, 0, 0, 32, 0, 32)} POP ${ret(1)}`, 5_000_000n],
  ['gas forwarding 63/64', `${call('CALL', `PUSH32 ${BIG}`, GAS_REPORTER, 0, 0, 0, 0, 32)} POP ${call('CALL', 'PUSH 5000', GAS_REPORTER, 0, 0, 0, 32, 32)} POP ${ret(2)}`],
  ['gas request over the rest', `${call('CALL', 'GAS PUSH 1 ADD', GAS_REPORTER, 0, 0, 0, 0, 32)} ${keep(1)} ${ret(2)}`],
  ['stipend on a value call', `${call('CALL', 'PUSH 0', GAS_REPORTER, 1, 0, 0, 0, 32)} POP ${call('CALL', 'PUSH 0', LOGGER, 1)} ${keep(1)} GAS ${keep(2)} ${ret(3)}`],
  ['value to a new account', `${call('CALL', 'GAS', MISSING, 1)} ${keep(0)} GAS ${keep(1)} ${ret(2)}`],
  ['no value to a new account', `${call('CALL', 'GAS', MISSING + 1n, 0)} ${keep(0)} GAS ${keep(1)} ${a(MISSING + 1n)} EXTCODEHASH ${keep(2)} ${ret(3)}`],
  ['value to an empty account', `${call('CALL', 'GAS', EMPTY_ACCOUNT, 1)} ${keep(0)} GAS ${keep(1)} ${ret(2)}`],
  ['value over the balance', `${call('CALL', 'GAS', RETURNER, 5000)} ${keep(0)} GAS ${keep(1)} SELFBALANCE ${keep(2)} ${ret(3)}`],
  ['callcode with value', `${call('CALLCODE', 'GAS', WRITER, 3, 0, 0, 0, 32)} ${keep(1)} PUSH 1 SLOAD ${keep(2)} ${ret(3)}`],
  ['delegatecall', `PUSH 0x1234 ${keep(0)} ${call('DELEGATECALL', 'GAS', RETURNER, undefined, 0, 32, 0, 96)} ${keep(3)} ${ret(4)}`],
  ['delegatecall writes here', `${call('DELEGATECALL', 'GAS', WRITER, undefined)} POP PUSH 1 SLOAD ${keep(0)} ${ret(1)}`],
  ['create', `${createFrom(asm(initReturning(1, 0xff)))} DUP1 ${keep(0)} DUP1 EXTCODESIZE ${keep(1)} DUP1 EXTCODEHASH ${keep(2)} BALANCE ${keep(3)} RETURNDATASIZE ${keep(4)} ${ret(5)}`],
  ['create with value', `${createFrom(asm(initReturning(2)), 'CREATE', 7)} DUP1 ${keep(0)} BALANCE ${keep(1)} SELFBALANCE ${keep(2)} ${ret(3)}`],
  ['create2 twice (collision)', `${createFrom(asm(initReturning(1)), 'CREATE2', 0, 5)} ${keep(0)} ${createFrom(asm(initReturning(1)), 'CREATE2', 0, 5)} ${keep(1)} ${ret(2)}`],
  ['create2 then call it', `${createFrom(asm('PUSH 0x6042600052602060' + '00f3 PUSH 0 MSTORE PUSH 10 PUSH 22 RETURN'), 'CREATE2', 0, 9)} DUP1 ${keep(0)} PUSH 32 PUSH 32 PUSH 0 PUSH 0 DUP5 GAS STATICCALL ${keep(2)} ${ret(3)}`],
  ['create reverts', `${createFrom(asm('PUSH 0xabcd PUSH 0 MSTORE PUSH 32 PUSH 0 REVERT'))} ${keep(0)} RETURNDATASIZE ${keep(1)} PUSH 32 PUSH 0 PUSH 64 RETURNDATACOPY ${ret(3)}`],
  ['create runs out of gas', `${createFrom(asm(':l PUSH 0x2000 PUSH 0 SHA3 POP &l JUMP'))} ${keep(0)} GAS ${keep(1)} ${ret(2)}`],
  ['create with a large deposit', `${createFrom(asm(initReturning(20000)))} ${keep(0)} ${ret(1)}`],
  ['create over the code size limit', `${createFrom(asm(initReturning(24577)))} ${keep(0)} ${ret(1)}`, 6_000_000n],
  ['create at the code size limit', `${createFrom(asm(initReturning(24576)))} ${keep(0)} ${ret(1)}`, 6_000_000n],
  ['create code starting 0xEF', `${createFrom(asm(initReturning(1, 0xef)))} ${keep(0)} ${ret(1)}`],
  ['create from 0xEF00 init code', `${createFrom('ef00' + asm(initReturning(1)))} ${keep(0)} RETURNDATASIZE ${keep(1)} ${ret(2)}`],
  ['create empty init code', `PUSH 0 PUSH 0 PUSH 0 CREATE DUP1 ${keep(0)} EXTCODESIZE ${keep(1)} ${ret(2)}`],
  ['create nested creator', `${call('CALL', 'GAS', CREATOR, 0, 0, 0, 0, 32)} POP ${call('CALL', 'GAS', CREATOR, 0, 0, 0, 32, 32)} POP ${ret(2)}`],
  ['create with huge size', `PUSH32 ${BIG} PUSH 0 PUSH 0 CREATE`],
  ['selfdestruct in a call', `${call('CALL', 'GAS', DESTRUCTOR, 5)} ${keep(0)} ${a(DESTRUCTOR)} BALANCE ${keep(1)} SELFBALANCE ${keep(2)} ${a(DESTRUCTOR)} EXTCODESIZE ${keep(3)} ${call('CALL', 'GAS', DESTRUCTOR, 0)} ${keep(4)} ${ret(5)}`],
  ['selfdestruct to itself', 'ADDRESS SELFDESTRUCT'],
  ['selfdestruct to a new account', `${a(MISSING + 2n)} SELFDESTRUCT`],
  ['block environment', `PUSH 299 BLOCKHASH ${keep(0)} PUSH 44 BLOCKHASH ${keep(1)} PUSH 43 BLOCKHASH ${keep(2)} PUSH 300 BLOCKHASH ${keep(3)} COINBASE ${keep(4)} TIMESTAMP ${keep(5)} NUMBER ${keep(6)} DIFFICULTY ${keep(7)} GASLIMIT ${keep(8)} GASPRICE ${keep(9)} ORIGIN ${keep(10)} CALLER ${keep(11)} CALLVALUE ${keep(12)} ${ret(13)}`],
  ['blockhash of a huge number', `PUSH32 ${BIG} BLOCKHASH ${keep(0)} ${ret(1)}`],
  ['chain id and self balance', `CHAINID ${keep(0)} SELFBALANCE ${keep(1)} ${ret(2)}`],
  ['extcode reads', [RETURNER, EOA, MISSING, EMPTY_ACCOUNT, 1n, EF_CODE].map((x, i) => `${a(x)} EXTCODESIZE ${keep(2 * i)} ${a(x)} EXTCODEHASH ${keep(2 * i + 1)}`).join(' ') + ` ADDRESS EXTCODESIZE ${keep(12)} ${ret(13)}`],
  ['extcodecopy', `PUSH 40 PUSH 2 PUSH 0 ${a(RETURNER)} EXTCODECOPY PUSH 8 PUSH 0 PUSH 64 ${a(EF_CODE)} EXTCODECOPY PUSH 4 PUSH 0 PUSH 80 ${a(MISSING)} EXTCODECOPY ${ret(3)}`],
  ['balances', [RETURNER, EOA, MISSING, EMPTY_ACCOUNT, 1n].map((x, i) => `${a(x)} BALANCE ${keep(i)}`).join(' ') + ` ADDRESS BALANCE ${keep(5)} ${ret(6)}`],
  ['arithmetic', [
    `PUSH 255 PUSH 2 EXP`, `PUSH32 ${BIG} PUSH 3 EXP`, `PUSH 0 PUSH 0 EXP`, `PUSH 300 PUSH 2 EXP`,
    `PUSH 0xff PUSH 0 SIGNEXTEND`, `PUSH 0x7f PUSH 0 SIGNEXTEND`, `PUSH32 ${BIG} PUSH 40 SIGNEXTEND`, `PUSH 0x8000 PUSH 1 SIGNEXTEND`,
    `PUSH 7 PUSH 0 SUB PUSH 2 SDIV`, `PUSH 2 PUSH 7 PUSH 0 SUB SDIV`, `PUSH 1 PUSH 0 SUB PUSH 1 PUSH 255 SHL SDIV`,
    `PUSH 3 PUSH 7 PUSH 0 SUB SMOD`, `PUSH 0 PUSH 5 SMOD`, `PUSH 0 PUSH 5 SDIV`, `PUSH 0 PUSH 5 DIV`, `PUSH 0 PUSH 5 MOD`,
    `PUSH 7 PUSH32 ${BIG} PUSH32 ${BIG} ADDMOD`, `PUSH 7 PUSH32 ${BIG} PUSH32 ${BIG} MULMOD`, `PUSH 0 PUSH 1 PUSH 1 MULMOD`,
    `PUSH32 ${BIG} PUSH 31 BYTE`, `PUSH32 ${BIG} PUSH 32 BYTE`, `PUSH 0x1234 PUSH 30 BYTE`,
    `PUSH 1 PUSH 255 SHL`, `PUSH 1 PUSH 256 SHL`, `PUSH32 ${BIG} PUSH 1 SHR`, `PUSH32 ${BIG} PUSH 257 SAR`, `PUSH 8 PUSH 2 SAR`,
    `PUSH32 ${BIG} PUSH 4 SAR`, `PUSH 1 PUSH 0 SUB PUSH 2 SLT`, `PUSH 1 PUSH 0 SUB PUSH 2 SGT`, `PUSH32 ${BIG} NOT`, `PUSH 5 PUSH 3 LT`,
  ].map((x, i) => `${x} ${keep(i)}`).join(' ') + ` ${ret(32)}`],
  ['net gas metering', `PUSH 1 PUSH 1 SSTORE PUSH 2 PUSH 1 SSTORE PUSH 0 PUSH 1 SSTORE PUSH 0 PUSH 1 SSTORE PUSH 42 PUSH 0 SSTORE PUSH 0 PUSH 0 SSTORE PUSH 42 PUSH 0 SSTORE PUSH 5 PUSH 0 SSTORE PUSH 0 SLOAD ${keep(0)} GAS ${keep(1)} ${ret(2)}`],
  ['sstore with little gas', [2300, 2301, 4999, 5000, 5100, 20100, 22200].map((g, i) => `${call('CALL', `PUSH ${g}`, WRITER, 0)} ${keep(i)}`).join(' ') + ` ${ret(7)}`],
  ['precompiles', [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n].map((p, i) => `${call('CALL', 'PUSH 100000', p, 0, 0, 96, 0, 0)} ${keep(i)} RETURNDATASIZE ${keep(9 + i)}`).join(' ') + ` ${ret(18)}`],
  ['precompiles with little gas', [1n, 2n, 4n, 8n].map((p, i) => `${call('CALL', 'PUSH 20', p, 0, 0, 32, 0, 0)} ${keep(i)}`).join(' ') + ` ${ret(4)}`],
  ['precompile with value', `${call('CALL', 'GAS', 4n, 3, 0, 32, 0, 32)} ${keep(1)} ${ret(2)}`],
  ['log2 with 3 items', 'PUSH 1 PUSH 0 PUSH 0 LOG2'],
  ['log2 with 1 item', 'PUSH 0 LOG2'],
  ['log of a huge size', `PUSH32 ${BIG} PUSH 0 LOG0`],
  ['invalid opcode 0xfe', 'INVALID'],
  ['unassigned opcode 0x0c', '0x0c'],
  ['PUSH0 before shanghai', '0x5f'],
  ['BASEFEE', 'BASEFEE PUSH 0 MSTORE PUSH 32 PUSH 0 RETURN'],
  // under london the first goes to the library with memory written: the next frame must start zeroed
  ['BASEFEE after writing memory', `PUSH 0xff PUSH 0 MSTORE PUSH 0xee PUSH 4000 MSTORE ${call('CALL', 'GAS', GAS_REPORTER, 0)} POP BASEFEE`],
  ['memory starts zeroed', `PUSH 0 MLOAD ${keep(1)} PUSH 4000 MLOAD ${keep(2)} MSIZE ${keep(3)} ${ret(4)}`],
  ['pc gas msize', `PC ${keep(0)} GAS ${keep(1)} MSIZE ${keep(2)} PC ${keep(3)} ${ret(4)}`],
  ['push at the end of code', '0x63aabb'],
  // Too few stack items for an op that also expands memory: which error comes first (the library's
  // gas step reads some arguments, charges the memory, and the op takes the rest).
  ['mstore with one item, unpayable offset', 'PUSH4 0xffffffff MSTORE'],
  ['mstore8 with one item, unpayable offset', 'PUSH4 0xffffffff MSTORE8'],
  ['mstore with one item', 'PUSH 64 MSTORE'],
  ['mstore with no item', 'MSTORE'],
  ['mload with no item', 'MLOAD'],
  ['sha3 with one item, unpayable', 'PUSH4 0xffffffff SHA3'],
  ['return with one item, unpayable', 'PUSH4 0xffffffff RETURN'],
  ['revert with an unpayable range', 'PUSH1 0xda PUSH5 0x0100000000 REVERT'],
  ['revert with a huge length', 'PUSH4 0x10000000 PUSH 0 REVERT'],
  ['return with a huge length', 'PUSH4 0x10000000 PUSH 0 RETURN'],
  ['calldatacopy with two items, unpayable', 'PUSH4 0xffffffff PUSH 0 CALLDATACOPY'],
  ['returndatacopy with two items', 'PUSH 0 PUSH 0 RETURNDATACOPY'],
  ['extcodecopy with three items, unpayable', `PUSH4 0xffffffff PUSH 0 ${a(RETURNER)} EXTCODECOPY`],
  ['log1 with two items, unpayable', 'PUSH4 0xffffffff PUSH 0 LOG1'],
  ['create with two items, unpayable', 'PUSH4 0xffffffff PUSH 0 CREATE'],
  ['create2 with three items', 'PUSH 5 PUSH 0 PUSH 0 CREATE2'],
  ['call with six items, unpayable', `PUSH4 0xffffffff PUSH 0 PUSH 0 PUSH 0 ${a(RETURNER)} GAS CALL`],
];
