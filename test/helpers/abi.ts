// Minimal ABI helpers for the tests' own contracts (static types only).

import { keccak256 } from '../../src/encoding/bytes.js';
import { bytesToHex } from '../../src/encoding/hex.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './node.js';

export const selector = (signature: string): string =>
  bytesToHex(keccak256(new TextEncoder().encode(signature)).subarray(0, 4));

export const word = (n: bigint | number | string): string =>
  (typeof n === 'string' ? n.replace(/^0x/, '').toLowerCase() : BigInt(n).toString(16)).padStart(64, '0');

export const encodeCall = (signature: string, ...args: (bigint | number | string)[]): string =>
  selector(signature) + args.map(word).join('');

export const topic = (signature: string): string => bytesToHex(keccak256(new TextEncoder().encode(signature)));

export interface CompiledContract {
  /** the ABI as solc writes it (ethers' JsonFragment[]) */
  abi: any[];
  bytecode: string;
  deployed: string;
}

export function contract(name: string): CompiledContract {
  const all = JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/contracts/contracts.json'), 'utf8'));
  return all.contracts[name];
}
