// A small EVM assembler for hand-written test programs: mnemonics separated by spaces, `PUSHn x`
// or `PUSH x` (smallest width) with a hex or decimal immediate, `:name` for a JUMPDEST and `&name`
// for a PUSH2 of its address, `0x…` raw bytes. Returns hex without 0x.

const NAMES: Record<string, number> = {
  STOP: 0x00, ADD: 0x01, MUL: 0x02, SUB: 0x03, DIV: 0x04, SDIV: 0x05, MOD: 0x06, SMOD: 0x07, ADDMOD: 0x08,
  MULMOD: 0x09, EXP: 0x0a, SIGNEXTEND: 0x0b, LT: 0x10, GT: 0x11, SLT: 0x12, SGT: 0x13, EQ: 0x14, ISZERO: 0x15,
  AND: 0x16, OR: 0x17, XOR: 0x18, NOT: 0x19, BYTE: 0x1a, SHL: 0x1b, SHR: 0x1c, SAR: 0x1d, SHA3: 0x20,
  KECCAK256: 0x20, ADDRESS: 0x30, BALANCE: 0x31, ORIGIN: 0x32, CALLER: 0x33, CALLVALUE: 0x34,
  CALLDATALOAD: 0x35, CALLDATASIZE: 0x36, CALLDATACOPY: 0x37, CODESIZE: 0x38, CODECOPY: 0x39, GASPRICE: 0x3a,
  EXTCODESIZE: 0x3b, EXTCODECOPY: 0x3c, RETURNDATASIZE: 0x3d, RETURNDATACOPY: 0x3e, EXTCODEHASH: 0x3f,
  BLOCKHASH: 0x40, COINBASE: 0x41, TIMESTAMP: 0x42, NUMBER: 0x43, DIFFICULTY: 0x44, GASLIMIT: 0x45,
  CHAINID: 0x46, SELFBALANCE: 0x47, BASEFEE: 0x48, POP: 0x50, MLOAD: 0x51, MSTORE: 0x52, MSTORE8: 0x53,
  SLOAD: 0x54, SSTORE: 0x55, JUMP: 0x56, JUMPI: 0x57, PC: 0x58, MSIZE: 0x59, GAS: 0x5a, JUMPDEST: 0x5b,
  PUSH0: 0x5f, LOG0: 0xa0, LOG1: 0xa1, LOG2: 0xa2, LOG3: 0xa3, LOG4: 0xa4, CREATE: 0xf0, CALL: 0xf1,
  CALLCODE: 0xf2, RETURN: 0xf3, DELEGATECALL: 0xf4, CREATE2: 0xf5, STATICCALL: 0xfa, REVERT: 0xfd,
  INVALID: 0xfe, SELFDESTRUCT: 0xff,
};
for (let n = 1; n <= 16; n++) {
  NAMES[`DUP${n}`] = 0x7f + n;
  NAMES[`SWAP${n}`] = 0x8f + n;
}

export const OPCODES: Readonly<Record<string, number>> = NAMES;

function immediate(text: string, width: number | undefined): number[] {
  let v = BigInt(text);
  const bytes: number[] = [];
  while (v > 0n) {
    bytes.unshift(Number(v & 0xffn));
    v >>= 8n;
  }
  if (width === undefined) return bytes.length === 0 ? [0] : bytes;
  if (bytes.length > width) throw new Error(`${text} does not fit PUSH${width}`);
  while (bytes.length < width) bytes.unshift(0);
  return bytes;
}

export function asm(source: string): string {
  const tokens = source.trim().split(/\s+/).filter(Boolean);
  const labels = new Map<string, number>();
  // Two passes: the first finds label addresses (every &label is a PUSH2).
  for (const pass of [0, 1]) {
    const out: number[] = [];
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      if (t.startsWith(':')) {
        labels.set(t.slice(1), out.length);
        out.push(0x5b);
      } else if (t.startsWith('&')) {
        const at = labels.get(t.slice(1)) ?? 0;
        if (pass === 1 && !labels.has(t.slice(1))) throw new Error(`no label ${t}`);
        out.push(0x61, at >> 8, at & 0xff);
      } else if (/^PUSH\d*$/i.test(t)) {
        const width = t.length > 4 ? Number(t.slice(4)) : undefined;
        const bytes = immediate(tokens[++i], width);
        out.push(0x5f + bytes.length, ...bytes);
      } else if (t.startsWith('0x')) {
        const hex = t.slice(2);
        for (let k = 0; k < hex.length; k += 2) out.push(parseInt(hex.slice(k, k + 2), 16));
      } else {
        const op = NAMES[t.toUpperCase()];
        if (op === undefined) throw new Error(`unknown op ${t}`);
        out.push(op);
      }
    }
    if (pass === 1) return out.map((b) => b.toString(16).padStart(2, '0')).join('');
  }
  throw new Error('unreachable');
}
