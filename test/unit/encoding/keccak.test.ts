import t from 'tap';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createMPT } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { createWasmKeccak256, keccak256, keccakBackend, libraryKeccak256 } from '../../../src/encoding/keccak.js';
import { KECCAK_WASM_BASE64 } from '../../../src/encoding/keccakWasmBinary.js';
import { keccak256 as bytesKeccak256 } from '../../../src/encoding/bytes.js';
import { buildKeccakWasm, KECCAK_RATE } from '../../../src/encoding/wasmKeccak.js';
import { bytesToHex } from '../../../src/encoding/hex.js';
import { orderedTrieRoot } from '../../../src/chain/block.js';

const text = (s: string) => new TextEncoder().encode(s);

t.test('known vectors', async (t) => {
  const empty = '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';
  const hello = '0x47173285a8d7341e5e972fc677286384f802f8ef42a5ec5f03bbfa254cb01fad';
  t.equal(bytesToHex(keccak256(new Uint8Array())), empty);
  t.equal(bytesToHex(keccak256(text('hello world'))), hello);
  t.equal(bytesToHex(bytesKeccak256(new Uint8Array())), empty, 'bytes.ts delegates');
  t.equal(bytesToHex(bytesKeccak256(text('hello world'))), hello, 'bytes.ts delegates');
});

t.test('runs on WebAssembly on Node from the first hash', async (t) => {
  t.ok(WebAssembly.validate(buildKeccakWasm()), 'the assembled module validates');
  t.not(keccak256, libraryKeccak256, 'keccak256 is not the library fallback');
  const input = new Uint8Array(100).fill(7);
  t.equal(bytesToHex(keccak256(input)), bytesToHex(libraryKeccak256(input)), 'same digest as the library');
  t.equal(keccakBackend(), 'wasm', 'the first hash ran on the module');
  t.equal(bytesKeccak256, keccak256, 'bytes.ts re-exports the same function');
});

t.test('the ahead-of-time binary is the assembler\'s output', async (t) => {
  const assembled = Buffer.from(buildKeccakWasm()).toString('base64');
  if (process.env.UPDATE_KECCAK_WASM && assembled !== KECCAK_WASM_BASE64) {
    const file = fileURLToPath(new URL('../../../src/encoding/keccakWasmBinary.ts', import.meta.url));
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace(/'[A-Za-z0-9+/=]+';/, `'${assembled}';`));
    t.comment('src/encoding/keccakWasmBinary.ts rewritten');
    return;
  }
  t.equal(KECCAK_WASM_BASE64, assembled, 'src/encoding/keccakWasmBinary.ts is current (UPDATE_KECCAK_WASM=1 rewrites it)');
});

t.test('equals the library for every length 0..2000 and around each block boundary', async (t) => {
  const hash = createWasmKeccak256()!; // a fresh instance: starts from one page of memory
  const lengths: number[] = [];
  for (let n = 0; n <= 2000; n++) lengths.push(n, n);
  for (let k = 1; k * KECCAK_RATE <= 2000; k++) lengths.push(k * KECCAK_RATE - 1, k * KECCAK_RATE, k * KECCAK_RATE + 1);
  let bad = 0;
  const badLengths = new Set<number>();
  for (const n of lengths) {
    const input = new Uint8Array(randomBytes(n));
    if (bytesToHex(hash(input)) !== bytesToHex(libraryKeccak256(input))) {
      bad++;
      badLengths.add(n);
    }
  }
  t.ok(lengths.length > 4000, 'thousands of inputs');
  t.equal(bad, 0, `no mismatch (bad lengths: ${[...badLengths].slice(0, 10).join(', ')})`);
  // Structured inputs: all-zero and all-ones blocks exercise the padding bytes' xor.
  for (const n of [135, 136, 137, 272]) {
    for (const fill of [0x00, 0xff, 0x01, 0x80]) {
      const input = new Uint8Array(n).fill(fill);
      t.equal(bytesToHex(hash(input)), bytesToHex(libraryKeccak256(input)), `${n} bytes of ${fill}`);
    }
  }
});

t.test('long inputs grow the memory; later short inputs are still right', async (t) => {
  const hash = createWasmKeccak256()!;
  for (const n of [65_000, 200_003, 1_000_000]) {
    const input = new Uint8Array(randomBytes(n));
    t.equal(bytesToHex(hash(input)), bytesToHex(libraryKeccak256(input)), `${n} bytes`);
  }
  const short = new Uint8Array(randomBytes(100));
  t.equal(bytesToHex(hash(short)), bytesToHex(libraryKeccak256(short)), 'short input after growth');
  t.equal(bytesToHex(hash(new Uint8Array())), bytesToHex(libraryKeccak256(new Uint8Array())), 'empty after growth');
});

t.test('views, Buffers and the returned array', async (t) => {
  const backing = new Uint8Array(randomBytes(600));
  const view = backing.subarray(37, 37 + 300);
  t.equal(bytesToHex(keccak256(view)), bytesToHex(libraryKeccak256(view.slice())), 'subarray with an offset');
  const buf = Buffer.from(randomBytes(77));
  t.equal(bytesToHex(keccak256(buf)), bytesToHex(libraryKeccak256(new Uint8Array(buf))), 'Buffer');

  const input = new Uint8Array(randomBytes(50));
  const copy = input.slice();
  const first = keccak256(input);
  t.same(input, copy, 'input untouched');
  t.equal(first.length, 32);
  const before = bytesToHex(first);
  const second = keccak256(new Uint8Array(10));
  t.equal(bytesToHex(first), before, 'a later hash does not overwrite an earlier result');
  first.fill(0);
  t.equal(bytesToHex(keccak256(input)), before, 'modifying a result does not affect the next');
  t.not(first.buffer, second.buffer, 'each result owns its buffer');
});

t.test('the trie uses the given function for node and key hashing, same roots as the library', async (t) => {
  let calls = 0;
  const counting = (data: Uint8Array) => {
    calls++;
    return keccak256(data);
  };
  const ours = await createMPT({ useKeyHashing: true, useKeyHashingFunction: counting });
  const library = await createMPT({ useKeyHashing: true });
  const entries = Array.from({ length: 50 }, (_, i) => [randomBytes(20), RLP.encode([i, randomBytes(40)])] as const);
  calls = 0;
  for (const [key, value] of entries) {
    await ours.put(key, value);
    await library.put(key, value);
  }
  t.ok(calls > entries.length, `called for keys and nodes (${calls} calls for ${entries.length} puts)`);
  t.equal(bytesToHex(ours.root()), bytesToHex(library.root()), 'same state-style root');

  const plain = await createMPT({ useKeyHashingFunction: counting }); // no key hashing: nodes only
  calls = 0;
  for (const [key, value] of entries) await plain.put(key, value);
  t.ok(calls > 0, `node hashing goes through it too (${calls} calls)`);

  const values = Array.from({ length: 20 }, () => new Uint8Array(randomBytes(120)));
  const reference = await createMPT();
  for (let i = 0; i < values.length; i++) await reference.put(RLP.encode(i), values[i]);
  t.equal(bytesToHex(await orderedTrieRoot(values)), bytesToHex(reference.root()), 'orderedTrieRoot unchanged');
});
