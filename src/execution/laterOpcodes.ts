// The message for "invalid opcode" when the code uses an opcode a later hardfork defines
// (design.md §17): default solc emits PUSH0 (Shanghai), which the chain's Petersburg rules do not
// know, and a bare "invalid opcode" leaves users guessing. The code is scanned (PUSH data
// skipped) for the first such opcode; the EVM's own error stays the reference for what failed.

import type { Common } from '@ethereumjs/common';

/** Opcodes introduced after Frontier, with the hardfork that defines them. */
const LATER: ReadonlyMap<number, [name: string, fork: string]> = new Map([
  [0x1b, ['SHL', 'constantinople']], [0x1c, ['SHR', 'constantinople']], [0x1d, ['SAR', 'constantinople']],
  [0x3f, ['EXTCODEHASH', 'constantinople']], [0xf5, ['CREATE2', 'constantinople']],
  [0x3d, ['RETURNDATASIZE', 'byzantium']], [0x3e, ['RETURNDATACOPY', 'byzantium']], [0xfa, ['STATICCALL', 'byzantium']], [0xfd, ['REVERT', 'byzantium']],
  [0x46, ['CHAINID', 'istanbul']], [0x47, ['SELFBALANCE', 'istanbul']], [0x48, ['BASEFEE', 'london']],
  [0x49, ['BLOBHASH', 'cancun']], [0x4a, ['BLOBBASEFEE', 'cancun']], [0x5c, ['TLOAD', 'cancun']], [0x5d, ['TSTORE', 'cancun']],
  [0x5e, ['MCOPY', 'cancun']], [0x5f, ['PUSH0', 'shanghai']],
]);

/** geth's words plus the opcode the rules lack, when `code` holds one; plain "invalid opcode" otherwise. */
export function invalidOpcodeMessage(code: Uint8Array, common: Pick<Common, 'gteHardfork' | 'hardfork'>): string {
  for (let pc = 0; pc < code.length; pc++) {
    const op = code[pc];
    const later = LATER.get(op);
    if (later !== undefined && !common.gteHardfork(later[1])) {
      const fork = common.hardfork();
      return `invalid opcode: ${later[0]} (0x${op.toString(16).padStart(2, '0')}) is not in ${fork}; compile with evmVersion ${fork}`;
    }
    if (op >= 0x60 && op <= 0x7f) pc += op - 0x5f;
  }
  return 'invalid opcode';
}
