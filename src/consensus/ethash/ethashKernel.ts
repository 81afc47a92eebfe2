// One thread's Ethash engine room: a WebAssembly instance holding one epoch's light cache (and,
// in full mode, a view of the shared dataset) and the byte shuffling around the module's fixed addresses.
// Hashing a nonce is one call into the module; nothing is allocated per hash.

import { CACHE, INPUT, LANES, cmixAt, inputAt, instantiateEthash, resultAt, seedAt, type EthashExports } from './ethashWasm.js';
import { HASH_BYTES, MIX_BYTES, cacheSize, datasetSize, epochSeed } from './params.js';

const WASM_PAGE = 65536;
const FNV_PRIME = 0x01000193;
/** dataset pages read per hash */
const ACCESSES = 64;

export interface EthashHash {
  /** the compressed mix: the header's mixHash */
  mix: Uint8Array;
  /** keccak256(s ‖ mix), compared with the target */
  result: Uint8Array;
}

export class EthashKernel {
  private readonly wasm: EthashExports = instantiateEthash();
  private mem = new Uint8Array(this.wasm.memory.buffer);
  private words = new Uint32Array(this.wasm.memory.buffer);
  private rows = 0;
  private pages = 0;
  /** the full dataset's words (little-endian, as Ethash stores them); undefined in light mode */
  private dataset: Uint32Array | undefined;
  private readonly mix = new Uint32Array(32);
  /** the epoch whose cache is loaded, -1 before any */
  epoch = -1;

  /** Computes the epoch's cache in this instance; `onProgress` hears 1..4 of 4 steps. */
  generateCache(epoch: number, onProgress?: (step: number, of: number) => void): void {
    this.prepare(epoch);
    this.mem.set(epochSeed(epoch), INPUT);
    this.wasm.cacheFill(this.rows);
    onProgress?.(1, 4);
    for (let round = 0; round < 3; round++) {
      this.wasm.cacheRound(this.rows);
      onProgress?.(round + 2, 4);
    }
    this.epoch = epoch;
  }

  /** Takes a cache generated elsewhere (another thread, the disk). */
  loadCache(epoch: number, cache: Uint8Array): void {
    if (cache.length !== cacheSize(epoch)) throw new RangeError(`epoch ${epoch} cache must be ${cacheSize(epoch)} bytes, got ${cache.length}`);
    this.prepare(epoch);
    this.mem.set(cache, CACHE);
    this.epoch = epoch;
  }

  /** The loaded cache (a view into the module's memory: copy it before loading another). */
  cache(): Uint8Array {
    return this.mem.subarray(CACHE, CACHE + this.rows * HASH_BYTES);
  }

  /** Dataset items [start, start + count) computed from the cache, 64 bytes each (a fresh array). */
  datasetItems(start: number, count: number): Uint8Array {
    this.ready();
    const scratch = this.scratchAddress();
    this.grow(scratch + Math.ceil(count / 8) * 8 * HASH_BYTES);
    this.wasm.items(start, count, this.rows, scratch);
    return this.mem.slice(scratch, scratch + count * HASH_BYTES);
  }

  /**
   * Mines with the full dataset from now on (the loaded epoch's; none: back to the light cache).
   * It is read where it lies, usually a SharedArrayBuffer that every worker shares: nothing is copied.
   */
  useDataset(data: Uint8Array | undefined): void {
    if (data === undefined) {
      this.dataset = undefined;
      return;
    }
    this.ready();
    if (data.length !== this.pages * MIX_BYTES || data.byteOffset % 4 !== 0) throw new RangeError(`the dataset must be ${this.pages * MIX_BYTES} bytes for epoch ${this.epoch}`);
    this.dataset = new Uint32Array(data.buffer, data.byteOffset, data.length / 4);
  }

  /**
   * Tests only: hashimoto over the first `pages` pages instead of the epoch's, so that a small
   * synthetic dataset stands in for the real one (light and full then agree on it).
   */
  limitPages(pages: number): void {
    this.ready();
    if (!Number.isInteger(pages) || pages < 1 || pages > datasetSize(this.epoch) / MIX_BYTES) throw new RangeError('pages out of range');
    this.pages = pages;
    this.dataset = undefined;
  }

  get fullMode(): boolean {
    return this.dataset !== undefined;
  }

  /** hashimoto of sealHash with the nonce (fed little-endian, as Ethash specifies). */
  hash(sealHash: Uint8Array, nonce: bigint): EthashHash {
    this.ready();
    this.setInput(0, sealHash, nonce);
    if (this.dataset) this.hashimotoFull(this.dataset);
    else this.wasm.hashimotoLight(this.rows, this.pages);
    return { mix: this.mem.slice(cmixAt(0), cmixAt(0) + 32), result: this.mem.slice(resultAt(0), resultAt(0) + 32) };
  }

  /**
   * The first i in [0, count) whose result for nonce start + i is ≤ target (32 bytes BE), its
   * mix written to mixOut; -1 when none. Nonces are hashed LANES at a time; callers keep
   * start + count ≤ 2^64.
   */
  search(sealHash: Uint8Array, target: Uint8Array, start: bigint, count: number, mixOut: Uint8Array): number {
    this.ready();
    const mem = this.mem;
    for (let l = 0; l < LANES; l++) mem.set(sealHash.subarray(0, 32), inputAt(l));
    const dataset = this.dataset;
    if (dataset) {
      // Full: one nonce at a time (the page reads do not wait on each other as light lookups do).
      for (let i = 0; i < count; i++) {
        this.setNonce(0, start + BigInt(i));
        this.hashimotoFull(dataset);
        if (meetsTarget(mem, resultAt(0), target)) {
          mixOut.set(mem.subarray(cmixAt(0), cmixAt(0) + 32));
          return i;
        }
      }
      return -1;
    }
    for (let i = 0; i < count; i += LANES) {
      for (let l = 0; l < LANES; l++) this.setNonce(l, start + BigInt(i + l));
      this.wasm.hashimotoLightLanes(this.rows, this.pages);
      for (let l = 0; l < LANES && i + l < count; l++) {
        if (meetsTarget(mem, resultAt(l), target)) {
          mixOut.set(mem.subarray(cmixAt(l), cmixAt(l) + 32));
          return i + l;
        }
      }
    }
    return -1;
  }

  /**
   * hashimoto of lane 0's input over the full dataset: keccak in the module, the 64 page reads
   * and FNV mixing here, straight from the (shared) dataset words.
   */
  private hashimotoFull(dataset: Uint32Array): void {
    this.wasm.keccak512of40(inputAt(0), seedAt(0));
    const words = this.words;
    const mix = this.mix;
    const seed = seedAt(0) / 4;
    for (let k = 0; k < 32; k++) mix[k] = words[seed + (k & 15)];
    const s0 = mix[0];
    const pages = this.pages;
    for (let i = 0; i < ACCESSES; i++) {
      const base = ((Math.imul(i ^ s0, FNV_PRIME) ^ mix[i & 31]) >>> 0) % pages * 32;
      for (let k = 0; k < 32; k++) mix[k] = Math.imul(mix[k], FNV_PRIME) ^ dataset[base + k];
    }
    const cmix = cmixAt(0) / 4;
    for (let w = 0; w < 8; w++) {
      let c = mix[4 * w];
      for (let k = 1; k < 4; k++) c = Math.imul(c, FNV_PRIME) ^ mix[4 * w + k];
      words[cmix + w] = c;
    }
    this.wasm.keccak256of96(seedAt(0), resultAt(0));
  }

  private ready(): void {
    if (this.epoch < 0) throw new Error('no Ethash cache loaded');
  }

  private setInput(lane: number, sealHash: Uint8Array, nonce: bigint): void {
    this.mem.set(sealHash.subarray(0, 32), inputAt(lane));
    this.setNonce(lane, nonce);
  }

  private setNonce(lane: number, nonce: bigint): void {
    const mem = this.mem;
    const at = inputAt(lane) + 32;
    let lo = Number(nonce & 0xffffffffn);
    let hi = Number((nonce >> 32n) & 0xffffffffn);
    for (let b = 0; b < 4; b++, lo >>>= 8, hi >>>= 8) {
      mem[at + b] = lo & 0xff;
      mem[at + 4 + b] = hi & 0xff;
    }
  }

  private prepare(epoch: number): void {
    this.rows = cacheSize(epoch) / HASH_BYTES;
    this.pages = datasetSize(epoch) / MIX_BYTES;
    this.dataset = undefined;
    this.epoch = -1;
    this.grow(CACHE + this.rows * HASH_BYTES);
  }

  private scratchAddress(): number {
    return CACHE + Math.ceil((this.rows * HASH_BYTES) / WASM_PAGE) * WASM_PAGE;
  }

  private grow(bytes: number): void {
    const have = this.wasm.memory.buffer.byteLength;
    if (bytes <= have) return;
    this.wasm.memory.grow(Math.ceil((bytes - have) / WASM_PAGE));
    this.mem = new Uint8Array(this.wasm.memory.buffer);
    this.words = new Uint32Array(this.wasm.memory.buffer);
  }
}

/** uint256(mem[at … at + 32)) ≤ uint256(target), both big-endian. */
function meetsTarget(mem: Uint8Array, at: number, target: Uint8Array): boolean {
  for (let b = 0; b < 32; b++) {
    if (mem[at + b] !== target[b]) return mem[at + b] < target[b];
  }
  return true;
}
