// The rules a fast call runs under, read once from the library EVM's own Common and opcode table:
// the same static fees, the same set of valid opcodes and the same gas parameters as the library
// (test/unit/execution/fastCall.*.test.ts and test/rpc/mc/fastCallDifferential.test.ts run both
// and compare). A hardfork or EIP this engine does not implement gives no rules, and every call
// runs on the library.

import type { EVM } from '@ethereumjs/evm';
import { isHardfork } from '../../chain/hardforks.js';

/** EIPs those hardforks activate; any other active EIP sends every call to the library. */
const KNOWN_EIPS = new Set([1, 606, 607, 608, 609, 1013, 1559, 1679, 1716, 2384, 2565, 2718, 2929, 2930, 3198, 3529, 3541]);

/** Opcode kinds in `CallRules.kind`. */
export const OP_INVALID = 0;
/** fixed fee: charged before the stack is checked */
export const OP_STATIC = 1;
/** fee computed by the op: the stack is checked first */
export const OP_DYNAMIC = 2;
/** valid in the fork but not implemented here: the call goes to the library */
export const OP_UNSUPPORTED = 3;

/** Items each op takes from the stack (checked before it runs). */
export const POPS = new Uint8Array(256);
/** The highest stack height at which the op does not overflow. */
export const MAX_SP = new Int16Array(256).fill(1024);
{
  const set = (op: number, pops: number, pushes: number) => {
    POPS[op] = pops;
    MAX_SP[op] = 1024 + pops - pushes;
  };
  for (const op of [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x18, 0x1a, 0x1b, 0x1c, 0x1d, 0x20]) set(op, 2, 1);
  set(0x08, 3, 1);
  set(0x09, 3, 1);
  for (const op of [0x15, 0x19, 0x31, 0x35, 0x3b, 0x3f, 0x40, 0x51, 0x54]) set(op, 1, 1);
  for (const op of [0x30, 0x32, 0x33, 0x34, 0x36, 0x38, 0x3a, 0x3d, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x58, 0x59, 0x5a]) set(op, 0, 1);
  for (const op of [0x37, 0x39, 0x3e]) set(op, 3, 0);
  set(0x3c, 4, 0);
  set(0x50, 1, 0);
  // MSTORE and MSTORE8: the library's gas step reads only the offset, so with one item on the
  // stack the memory is charged (out of gas if unpayable) before the missing value is noticed.
  set(0x52, 1, 0);
  set(0x53, 1, 0);
  set(0x56, 1, 0);
  set(0x57, 2, 0);
  for (let op = 0x60; op <= 0x7f; op++) set(op, 0, 1);
  for (let n = 1; n <= 16; n++) set(0x7f + n, n, n + 1);
  for (let n = 1; n <= 16; n++) set(0x8f + n, n + 1, n + 1);
  set(0xf0, 3, 1);
  set(0xf1, 7, 1);
  set(0xf2, 7, 1);
  set(0xf3, 2, 0);
  set(0xf4, 6, 1);
  set(0xf5, 4, 1);
  set(0xfa, 6, 1);
  set(0xfd, 2, 0);
  // SSTORE, LOG0-4 and SELFDESTRUCT check the static flag before the stack: they check it themselves.
}

/** Names of the opcodes this engine implements (the library's names). */
const IMPLEMENTED = new Set([
  'STOP', 'ADD', 'MUL', 'SUB', 'DIV', 'SDIV', 'MOD', 'SMOD', 'ADDMOD', 'MULMOD', 'EXP', 'SIGNEXTEND',
  'LT', 'GT', 'SLT', 'SGT', 'EQ', 'ISZERO', 'AND', 'OR', 'XOR', 'NOT', 'BYTE', 'SHL', 'SHR', 'SAR',
  'KECCAK256', 'ADDRESS', 'BALANCE', 'ORIGIN', 'CALLER', 'CALLVALUE', 'CALLDATALOAD', 'CALLDATASIZE',
  'CALLDATACOPY', 'CODESIZE', 'CODECOPY', 'GASPRICE', 'EXTCODESIZE', 'EXTCODECOPY', 'RETURNDATASIZE',
  'RETURNDATACOPY', 'EXTCODEHASH', 'BLOCKHASH', 'COINBASE', 'TIMESTAMP', 'NUMBER', 'DIFFICULTY',
  'GASLIMIT', 'CHAINID', 'SELFBALANCE', 'POP', 'MLOAD', 'MSTORE', 'MSTORE8', 'SLOAD', 'SSTORE', 'JUMP',
  'JUMPI', 'PC', 'MSIZE', 'GAS', 'JUMPDEST', 'PUSH', 'DUP', 'SWAP', 'LOG', 'CREATE', 'CALL', 'CALLCODE',
  'RETURN', 'DELEGATECALL', 'CREATE2', 'STATICCALL', 'REVERT', 'INVALID', 'SELFDESTRUCT',
]);

/** A precompile as the library runs it (synchronous for the ones these hardforks have). */
export type Precompile = (input: {
  data: Uint8Array; gasLimit: bigint; common: unknown; _EVM: unknown; _debug: undefined; stateManager: unknown;
}) => unknown;

export interface CallRules {
  /** OP_* per opcode byte */
  readonly kind: Uint8Array;
  /** the library's base fee per opcode byte */
  readonly fee: Int32Array;
  readonly chainId: bigint;
  /** ≥ homestead: a code deposit that cannot be paid fails the creation */
  readonly homestead: boolean;
  /** ≥ tangerineWhistle: calls get at most all but 1/64 of the gas left (EIP-150) */
  readonly eip150: boolean;
  /** ≥ spuriousDragon: empty accounts count as absent, new contracts start at nonce 1, code size limit */
  readonly eip161: boolean;
  /** exactly constantinople: net gas metering for SSTORE (EIP-1283) */
  readonly eip1283: boolean;
  /** ≥ istanbul: net gas metering with the 2300 sentry (EIP-2200) */
  readonly eip2200: boolean;
  /** ≥ berlin: cold and warm accesses */
  readonly eip2929: boolean;
  /** ≥ london: new code may not start with 0xEF */
  readonly eip3541: boolean;
  /** chainstart: a creation that cannot pay its code deposit still succeeds, without code */
  readonly chainstart: boolean;
  readonly p: GasParams;
  /** precompiles by address */
  readonly precompiles: Map<bigint, Precompile>;
}

/** Gas parameters as numbers (all far below 2^53). */
export interface GasParams {
  memory: number; quadDivisor: number; copy: number; keccakWord: number; expByte: number;
  logTopic: number; logData: number; callStipend: number; callValue: number; callNewAccount: number;
  createData: number; maxCodeSize: number; stackLimit: number;
  sstoreSet: number; sstoreReset: number;
  netNoop: number; netInit: number; netClean: number; netDirty: number;
  sentry: number; noop2200: number; init2200: number; clean2200: number; dirty2200: number;
  coldSload: number; coldAccount: number; warmRead: number;
}

/** Rules already read, by chain id, hardfork and explicitly activated EIPs (a new EVM per state root asks again). */
const known = new Map<string, CallRules | undefined>();

/** The rules of `evm`'s Common, or undefined when its hardfork or an active EIP is not implemented here. */
export function callRules(evm: EVM): CallRules | undefined {
  const common = evm.common;
  const key = `${common.chainId()}/${common.hardfork()}/${common.eips().join(',')}`;
  if (known.has(key)) return known.get(key);
  const rules = readRules(evm);
  known.set(key, rules);
  return rules;
}

function readRules(evm: EVM): CallRules | undefined {
  const common = evm.common;
  const hardfork = common.hardfork();
  if (!isHardfork(hardfork)) return undefined;
  for (const eip of common.eips()) if (!KNOWN_EIPS.has(eip)) return undefined;
  for (let eip = 1; eip < 10_000; eip++) if (common.isActivatedEIP(eip) && !KNOWN_EIPS.has(eip)) return undefined;

  const kind = new Uint8Array(256);
  const fee = new Int32Array(256);
  for (const [code, op] of evm.getActiveOpcodes()) {
    fee[code] = op.fee;
    if (op.isInvalid) kind[code] = OP_INVALID;
    else if (!IMPLEMENTED.has(op.name)) kind[code] = OP_UNSUPPORTED;
    else kind[code] = op.dynamicGas ? OP_DYNAMIC : OP_STATIC;
  }
  const num = (name: string): number => Number(common.param(name));
  const opt = (name: string): number => {
    try {
      return Number(common.param(name) ?? 0);
    } catch {
      return 0;
    }
  };
  const precompiles = new Map<bigint, Precompile>();
  for (const [hex, fn] of evm.precompiles) precompiles.set(BigInt('0x' + hex), fn as unknown as Precompile);
  return {
    kind,
    fee,
    chainId: common.chainId(),
    homestead: common.gteHardfork('homestead'),
    eip150: common.gteHardfork('tangerineWhistle'),
    eip161: common.gteHardfork('spuriousDragon'),
    eip1283: hardfork === 'constantinople',
    eip2200: common.gteHardfork('istanbul'),
    eip2929: common.isActivatedEIP(2929),
    eip3541: common.isActivatedEIP(3541),
    chainstart: hardfork === 'chainstart',
    precompiles,
    p: {
      memory: num('memoryGas'),
      quadDivisor: num('quadCoefficientDivGas'),
      copy: num('copyGas'),
      keccakWord: num('keccak256WordGas'),
      expByte: num('expByteGas'),
      logTopic: num('logTopicGas'),
      logData: num('logDataGas'),
      callStipend: num('callStipendGas'),
      callValue: num('callValueTransferGas'),
      callNewAccount: num('callNewAccountGas'),
      createData: num('createDataGas'),
      maxCodeSize: opt('maxCodeSize'),
      stackLimit: num('stackLimit'),
      sstoreSet: num('sstoreSetGas'),
      sstoreReset: num('sstoreResetGas'),
      netNoop: opt('netSstoreNoopGas'),
      netInit: opt('netSstoreInitGas'),
      netClean: opt('netSstoreCleanGas'),
      netDirty: opt('netSstoreDirtyGas'),
      sentry: opt('sstoreSentryEIP2200Gas'),
      noop2200: opt('sstoreNoopEIP2200Gas'),
      init2200: opt('sstoreInitEIP2200Gas'),
      clean2200: opt('sstoreCleanEIP2200Gas'),
      dirty2200: opt('sstoreDirtyEIP2200Gas'),
      coldSload: opt('coldsloadGas'),
      coldAccount: opt('coldaccountaccessGas'),
      warmRead: opt('warmstoragereadGas'),
    },
  };
}
