// Proof-of-work throughput: the search kernels on one core, the library keccak for comparison, the
// Sealer's worker pool with 1 and 2 threads, and (when a C compiler exists) a plain C keccak-f
// loop as the reference. Run: `npx tsc -p . && node dist/bench/pow.js`.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { keccak256 } from 'ethereum-cryptography/keccak.js';
import { jsKernel, type PowKernel } from '../src/consensus/keccak40.js';
import { createWasmKernel } from '../src/consensus/keccak40Wasm.js';
import { Sealer } from '../src/miner/sealer.js';

const MEASURE_MS = 1500;
const SEAL = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) & 0xff);
const NEVER = new Uint8Array(32); // target 0: no nonce meets it, every hash is counted

/** Hashes per second of `step(n)` (which hashes n times), after a warm-up. */
function rate(step: (n: number) => void, chunk: number): number {
  step(chunk); // warm-up: JIT / wasm tier-up
  let hashes = 0;
  const start = performance.now();
  while (performance.now() - start < MEASURE_MS) {
    step(chunk);
    hashes += chunk;
  }
  return (hashes * 1000) / (performance.now() - start);
}

function kernelRate(kernel: PowKernel): number {
  const mix = new Uint8Array(32);
  let nonce = 0n;
  return rate((n) => {
    kernel.search(SEAL, NEVER, nonce, n, mix);
    nonce += BigInt(n);
  }, 1 << 15);
}

function libraryRate(): number {
  const input = new Uint8Array(40);
  input.set(SEAL);
  const view = new DataView(input.buffer);
  let nonce = 0n;
  return rate((n) => {
    for (let i = 0; i < n; i++) {
      view.setBigUint64(32, nonce++);
      keccak256(input);
    }
  }, 1 << 12);
}

async function sealerRate(threads: number): Promise<number> {
  const sealer = new Sealer({ threads });
  try {
    await sealer.seal(SEAL, 0x100000n); // workers started, kernel warm
    const controller = new AbortController();
    const pending = sealer.seal(SEAL, 1n << 62n, { signal: controller.signal });
    const before = sealer.totalHashes;
    const start = performance.now();
    await sleep(MEASURE_MS);
    controller.abort();
    await pending;
    await sealer.settled(); // count the aborted batches' hashes too
    return ((sealer.totalHashes - before) * 1000) / (performance.now() - start);
  } finally {
    await sealer.close();
  }
}

// The reference: a plain keccak-f[1600] (loops the compiler unrolls), hashing sealHash ‖ nonce.
const C_SOURCE = String.raw`
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
static const uint64_t RC[24] = {
  0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
  0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
  0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
  0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
  0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
  0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL};
static const int ROT[25] = {0,1,62,28,27,36,44,6,55,20,3,10,43,25,39,41,45,15,21,8,18,2,61,56,14};
#define ROL(x, n) ((n) ? (((x) << (n)) | ((x) >> (64 - (n)))) : (x))
static void keccakf(uint64_t a[25]) {
  for (int r = 0; r < 24; r++) {
    uint64_t c[5], d[5], b[25];
    _Pragma("GCC unroll 5") for (int x = 0; x < 5; x++) c[x] = a[x] ^ a[x+5] ^ a[x+10] ^ a[x+15] ^ a[x+20];
    _Pragma("GCC unroll 5") for (int x = 0; x < 5; x++) d[x] = c[(x+4)%5] ^ ROL(c[(x+1)%5], 1);
    _Pragma("GCC unroll 25") for (int i = 0; i < 25; i++) {
      int x = i % 5, y = i / 5;
      b[y + 5*((2*x+3*y)%5)] = ROL(a[i] ^ d[x], ROT[i]);
    }
    _Pragma("GCC unroll 5") for (int y = 0; y < 5; y++)
      _Pragma("GCC unroll 5") for (int x = 0; x < 5; x++)
        a[x+5*y] = b[x+5*y] ^ (~b[(x+1)%5+5*y] & b[(x+2)%5+5*y]);
    a[0] ^= RC[r];
  }
}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(void) {
  uint8_t seal[32]; uint64_t a[25], acc = 0, nonce = 0;
  for (int i = 0; i < 32; i++) seal[i] = (uint8_t)(i * 37 + 11);
  double start = now(), elapsed;
  do {
    for (int k = 0; k < 100000; k++, nonce++) {
      memset(a, 0, sizeof a); memcpy(a, seal, 32);
      a[4] = __builtin_bswap64(nonce); a[5] = 1; a[16] = 0x8000000000000000ULL;
      keccakf(a); acc ^= a[0];
    }
    elapsed = now() - start;
  } while (elapsed < ${MEASURE_MS / 1000});
  printf("%.0f %llu\n", nonce / elapsed, (unsigned long long)acc);
  return 0;
}
`;

/** The C loop's rate, or undefined when no C compiler is available. */
function cRate(): number | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'mcnode-pow-'));
  try {
    writeFileSync(join(dir, 'keccak.c'), C_SOURCE);
    execFileSync('cc', ['-O3', '-o', join(dir, 'keccak'), join(dir, 'keccak.c')], { stdio: 'ignore' });
    return Number(execFileSync(join(dir, 'keccak'), { encoding: 'utf8' }).split(' ')[0]);
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchPow(): Promise<void> {
  const rows: Array<[name: string, hashesPerSecond: number, cores: number]> = [];
  const wasm = createWasmKernel();
  const reference = cRate();
  if (reference !== undefined) rows.push(['C keccak-f, cc -O3 (reference)', reference, 1]);
  if (wasm) rows.push(['WebAssembly kernel, main thread', kernelRate(wasm), 1]);
  rows.push(['JavaScript kernel, main thread', kernelRate(jsKernel), 1]);
  rows.push(['ethereum-cryptography keccak256, main thread', libraryRate(), 1]);
  rows.push(['Sealer, 1 worker', await sealerRate(1), 1]);
  rows.push(['Sealer, 2 workers', await sealerRate(2), 2]);

  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const width = Math.max(...rows.map(([name]) => name.length));
  console.log(`proof of work: keccak256 of 40 bytes (${availableParallelism()} cores, node ${process.version})`);
  console.log(`${'case'.padEnd(width)}  ${'hashes/s'.padStart(11)}  ${'per core'.padStart(11)}  ${'% of C'.padStart(7)}`);
  for (const [name, value, cores] of rows) {
    const share = reference ? `${((value / cores / reference) * 100).toFixed(1)}%` : 'n/a';
    console.log(`${name.padEnd(width)}  ${fmt(value).padStart(11)}  ${fmt(value / cores).padStart(11)}  ${share.padStart(7)}`);
  }
  console.log('% of C compares the per-core rate with the C loop on one core.');
  if (reference === undefined) console.log('(no C compiler: reference skipped)');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await benchPow();
