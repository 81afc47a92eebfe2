// Random programs for the differential test: mostly well-formed steps (arguments pushed before
// the op that takes them) so that programs get deep into memory, storage, calls and creations,
// with some raw bytes, bad jumps and extreme values mixed in. Seeded, so a failure reproduces.

import { hexAddress } from './harness.js';

export type Rng = (n: number) => number;

/** mulberry32: a small seeded generator; rng(n) is an integer in [0, n). */
export function seeded(seed: number): Rng {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return (((x ^ (x >>> 14)) >>> 0) / 4294967296) * n | 0;
  };
}

const SPECIAL = [
  '0', '1', '2', '31', '32', '33', '255', '256', '257', '0x10000', '0xffffffff', '0x10000000000000000',
  '0x' + 'ff'.repeat(20), '0x8' + '0'.repeat(63), '0x' + 'ff'.repeat(32), '0x7' + 'f'.repeat(63),
];
const ARITH = [
  'ADD', 'MUL', 'SUB', 'DIV', 'SDIV', 'MOD', 'SMOD', 'EXP', 'SIGNEXTEND', 'LT', 'GT', 'SLT', 'SGT', 'EQ', 'AND',
  'OR', 'XOR', 'BYTE', 'SHL', 'SHR', 'SAR',
];
const ENV = [
  'ADDRESS', 'ORIGIN', 'CALLER', 'CALLVALUE', 'CALLDATASIZE', 'CODESIZE', 'GASPRICE', 'RETURNDATASIZE', 'COINBASE',
  'TIMESTAMP', 'NUMBER', 'DIFFICULTY', 'GASLIMIT', 'GAS', 'PC', 'MSIZE', 'CHAINID', 'SELFBALANCE',
];

export function randomProgram(rng: Rng, targets: bigint[]): string {
  const pick = <T>(xs: readonly T[]): T => xs[rng(xs.length)];
  const small = () => `PUSH ${rng(4) === 0 ? pick(SPECIAL) : rng(70)}`;
  const offset = () => `PUSH ${rng(24) === 0 ? pick(SPECIAL) : rng(100)}`;
  const size = () => `PUSH ${rng(24) === 0 ? pick(SPECIAL) : rng(70)}`;
  const target = () => `PUSH20 ${hexAddress(pick(targets))}`;
  const labels: string[] = [];
  const steps: string[] = [];
  const count = 6 + rng(36);
  // Step kinds by weight: most steps keep the program running; bad jumps, stack faults and raw
  // bytes are rarer, so that programs also get to their later steps.
  const KINDS = [0, 1, 1, 1, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 8, 9, 9, 10, 10, 11, 12, 12, 13, 14];
  for (let i = 0; i < count; i++) {
    const kind = rng(40) === 0 ? 15 : KINDS[rng(KINDS.length)];
    switch (kind) {
      case 0:
        steps.push(small());
        break;
      case 1:
        steps.push(`${small()} ${small()} ${pick(ARITH)}`);
        break;
      case 2:
        steps.push(`${small()} ${pick(['ISZERO', 'NOT', 'POP', 'DUP1', 'DUP2', 'SWAP1', 'SWAP2', 'ISZERO', 'NOT', 'DUP1', 'DUP2', 'SWAP1', 'DUP16', 'SWAP16'].slice(0, rng(20) === 0 ? 14 : 12))}`);
        break;
      case 3:
        steps.push(`${small()} ${offset()} ${pick(['MSTORE', 'MSTORE8'])}`);
        break;
      case 4:
        steps.push(pick([
          `${offset()} MLOAD`, `${size()} ${offset()} SHA3`, `${size()} ${offset()} ${offset()} ${pick(['CALLDATACOPY', 'CODECOPY'])}`,
          `RETURNDATASIZE PUSH 0 ${offset()} RETURNDATACOPY`, `${size()} PUSH 0 ${offset()} RETURNDATACOPY`,
        ]));
        break;
      case 5:
        steps.push(pick([`PUSH ${rng(4)} SLOAD`, `${small()} PUSH ${rng(4)} SSTORE`]));
        break;
      case 6:
        steps.push(pick([pick(ENV), `${offset()} CALLDATALOAD`, `PUSH ${290 + rng(20)} BLOCKHASH`]));
        break;
      case 7:
        steps.push(`${target()} ${pick(['BALANCE', 'EXTCODESIZE', 'EXTCODEHASH'])}`);
        break;
      case 8:
        steps.push(`${size()} ${offset()} ${offset()} ${target()} EXTCODECOPY`);
        break;
      case 9:
      case 10: {
        const op = pick(['CALL', 'CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL']);
        const value = op === 'CALL' || op === 'CALLCODE' ? `PUSH ${pick(['0', '0', '1', '0x3e8', '0x' + 'ff'.repeat(32)])} ` : '';
        const gas = pick(['GAS', 'GAS', 'PUSH 0', 'PUSH 2300', 'PUSH 5000', 'PUSH 30000', 'PUSH32 0x' + 'ff'.repeat(32)]);
        steps.push(`PUSH ${pick([0, 32, 64])} ${offset()} PUSH ${rng(40)} ${offset()} ${value}${target()} ${gas} ${op}`);
        break;
      }
      case 11: {
        const op = pick(['CREATE', 'CREATE2']);
        // init code from memory: often a stored "return 1 byte" program, sometimes whatever is there
        const init = rng(2) === 0 ? 'PUSH 0x60016000f3 PUSH 0 MSTORE PUSH 5 PUSH 27' : `${size()} ${offset()}`;
        steps.push(`${op === 'CREATE2' ? `PUSH ${rng(3)} ` : ''}${init.includes('MSTORE') ? `${init}` : init} PUSH ${pick([0, 0, 1])} ${op}`);
        break;
      }
      case 12: {
        const name = `j${labels.length}`;
        labels.push(name);
        steps.push(`:${name}`);
        break;
      }
      case 13:
        // mostly a JUMPI whose condition is 0 or a gas test (loops end), sometimes a plain jump or a bad target
        if (labels.length > 0 && rng(6) !== 0) {
          const cond = pick(['PUSH 0', 'PUSH 0', 'PUSH 50000 GAS GT', 'PUSH 200000 GAS GT', small()]);
          steps.push(`${cond} &${pick(labels)} ${rng(6) === 0 ? 'JUMP' : 'JUMPI'}`);
        } else steps.push(`${small()} ${pick(['JUMP', 'JUMPI'])}`);
        break;
      case 14:
        steps.push(`${rng(3) === 0 ? small() + ' ' : ''}${small()} ${size()} ${offset()} ${pick(['LOG0', 'LOG1', 'LOG2'])}`);
        break;
      default: {
        // any byte but BASEFEE (0x48), which goes to the library in london (fastCall.edges.test.ts)
        const byte = rng(255);
        steps.push(`0x${(byte >= 0x48 ? byte + 1 : byte).toString(16).padStart(2, '0')}`);
      }
    }
  }
  // Forward references only for labels defined later would fail to assemble: jumps above only use earlier labels.
  steps.push(pick([
    'STOP', `${size()} ${offset()} RETURN`, `${size()} ${offset()} RETURN`, `${size()} ${offset()} REVERT`,
    `${target()} SELFDESTRUCT`, 'INVALID', '',
  ]));
  return steps.join(' ');
}
