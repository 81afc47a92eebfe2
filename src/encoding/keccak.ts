// keccak256 for any input length on a WebAssembly sponge (wasmKeccak.ts): ~10x faster
// than the pure-JS library for the short inputs that dominate (trie nodes, keys, transactions).
// Falls back to the library where WebAssembly is unavailable. One module instance per thread;
// a hash runs to completion synchronously, so the shared memory is never used re-entrantly.

import { keccak256 as libraryKeccak256 } from 'ethereum-cryptography/keccak.js';
import { KECCAK_DIGEST, KECCAK_INPUT, KECCAK_RATE } from './wasmKeccak.js';
import { KECCAK_WASM_BASE64 } from './keccakWasmBinary.js';

export { libraryKeccak256 };

interface KeccakExports {
  memory: WebAssembly.Memory;
  absorb(blocks: number): void;
}

const PAGE = 65536;

/** A keccak256 backed by a fresh module instance, or undefined where WebAssembly is unavailable. */
export function createWasmKeccak256(): ((data: Uint8Array) => Uint8Array<ArrayBuffer>) | undefined {
  if (typeof WebAssembly !== 'object') return undefined;
  const wasm = new WebAssembly.Instance(new WebAssembly.Module(keccakWasmBinary()), {}).exports as unknown as KeccakExports;
  let mem = new Uint8Array(wasm.memory.buffer);
  return (data) => {
    const length = data.length;
    const blocks = Math.floor(length / KECCAK_RATE) + 1; // padding always adds at least one byte
    const end = KECCAK_INPUT + blocks * KECCAK_RATE;
    if (end > mem.length) {
      // Kept grown: the largest input sets the high-water mark (contract code is ≤ tens of KB).
      wasm.memory.grow(Math.ceil((end - mem.length) / PAGE));
      mem = new Uint8Array(wasm.memory.buffer);
    }
    mem.set(data, KECCAK_INPUT);
    mem.fill(0, KECCAK_INPUT + length, end);
    mem[KECCAK_INPUT + length] = 0x01; // keccak padding: 0x01 after the message…
    mem[end - 1] |= 0x80; // …and 0x80 in the block's last byte (0x81 when they coincide)
    wasm.absorb(blocks);
    return mem.slice(KECCAK_DIGEST, KECCAK_DIGEST + 32);
  };
}

/** The module's binary, assembled ahead of time (keccakWasmBinary.ts); compiling it takes under a millisecond. */
function keccakWasmBinary(): Uint8Array<ArrayBuffer> {
  const bytes = Buffer.from(KECCAK_WASM_BASE64, 'base64');
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

let fast: ((data: Uint8Array) => Uint8Array) | undefined;

/** keccak256(data), 32 bytes; a fresh array the caller may keep or modify. */
export function keccak256(data: Uint8Array): Uint8Array {
  if (fast !== undefined) return fast(data);
  fast = createWasmKeccak256() ?? libraryKeccak256;
  return fast(data);
}

/** Which implementation keccak256 runs now. */
export function keccakBackend(): 'wasm' | 'library' | 'unused' {
  if (fast === undefined) return 'unused';
  return fast === libraryKeccak256 ? 'library' : 'wasm';
}
