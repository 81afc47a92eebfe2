// The reason inside revert data: Error(string), or Panic(uint256) as Solidity's panic codes.

const ERROR_SELECTOR = '08c379a0';
const PANIC_SELECTOR = '4e487b71';

const PANICS: Record<number, string> = {
  0x00: 'generic panic',
  0x01: 'assert(false)',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'enum overflow',
  0x22: 'invalid encoded storage byte array accessed',
  0x31: 'out-of-bounds array access; popping on an empty array',
  0x32: 'out-of-bounds access of an array or bytesN',
  0x41: 'out of memory',
  0x51: 'uninitialized function',
};

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 36) return undefined;
  const selector = hex(data.subarray(0, 4));
  if (selector === PANIC_SELECTOR) {
    const code = BigInt('0x' + hex(data.subarray(4, 36)));
    return PANICS[Number(code)] ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  if (selector !== ERROR_SELECTOR || data.length < 68) return undefined;
  const length = BigInt('0x' + hex(data.subarray(36, 68)));
  if (68n + length > BigInt(data.length)) return undefined;
  return new TextDecoder().decode(data.subarray(68, 68 + Number(length)));
}
