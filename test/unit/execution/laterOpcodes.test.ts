import t from 'tap';
import { invalidOpcodeMessage } from '../../../src/execution/laterOpcodes.js';
import { commonFor } from './fastCall/harness.js';

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));

t.test('names the first opcode the hardfork lacks, skipping PUSH data', async (t) => {
  const petersburg = commonFor('petersburg');
  t.equal(invalidOpcodeMessage(bytes('60806040525f'), petersburg), 'invalid opcode: PUSH0 (0x5f) is not in petersburg; compile with evmVersion petersburg');
  t.equal(invalidOpcodeMessage(bytes('605f00'), petersburg), 'invalid opcode', 'a 0x5f inside PUSH1 data is data');
  t.equal(invalidOpcodeMessage(bytes('7f' + '5f'.repeat(32) + '47'), petersburg), 'invalid opcode: SELFBALANCE (0x47) is not in petersburg; compile with evmVersion petersburg');
  t.equal(invalidOpcodeMessage(bytes('1b3f'), petersburg), 'invalid opcode', 'constantinople opcodes are in petersburg');
  t.equal(invalidOpcodeMessage(bytes('5f'), commonFor('shanghai')), 'invalid opcode', 'PUSH0 is in shanghai');
  t.equal(invalidOpcodeMessage(bytes('fa'), commonFor('homestead')), 'invalid opcode: STATICCALL (0xfa) is not in homestead; compile with evmVersion homestead');
});
