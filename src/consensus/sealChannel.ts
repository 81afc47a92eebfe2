// The shared memory between the Sealer and its search thread (workers/sealSearch.ts): one task
// at a time, handed over and back through a state word that both sides wait on. No messages
// and no copies, so a round trip costs the two thread wake-ups (~10 µs) and nothing else.

/** Int32 indices */
export const STATE = 0;
export const ABORT = 1;

/** STATE values */
export const IDLE = 0;
export const TASK = 1;
export const DONE = 2;
export const EXIT = 3;

// Byte offsets (the 64-bit fields 8-aligned).
const SEAL_HASH = 16;
const TARGET = 48;
const START = 80;
const COUNT = 88;
const FOUND = 92;
const NONCE = 96;
const HASHES = 104;
const MIX = 112;
const SIZE = 144;

export interface ChannelTask {
  sealHash: Uint8Array;
  target: Uint8Array;
  start: bigint;
  /** < 2^31 nonces, start + count ≤ 2^64 */
  count: number;
}

export interface ChannelResult {
  hit?: { nonce: bigint; mix: Uint8Array };
  /** hashes computed (up to and including the hit) */
  hashes: number;
}

export function createChannel(): SharedArrayBuffer {
  return new SharedArrayBuffer(SIZE);
}

export function stateWords(channel: SharedArrayBuffer): Int32Array {
  return new Int32Array(channel, 0, 2);
}

export function writeTask(channel: SharedArrayBuffer, task: ChannelTask): void {
  const bytes = new Uint8Array(channel);
  const view = new DataView(channel);
  bytes.set(task.sealHash, SEAL_HASH);
  bytes.set(task.target, TARGET);
  view.setBigUint64(START, task.start);
  view.setUint32(COUNT, task.count);
}

export function readTask(channel: SharedArrayBuffer): ChannelTask {
  const bytes = new Uint8Array(channel);
  const view = new DataView(channel);
  return {
    sealHash: bytes.slice(SEAL_HASH, SEAL_HASH + 32),
    target: bytes.slice(TARGET, TARGET + 32),
    start: view.getBigUint64(START),
    count: view.getUint32(COUNT),
  };
}

export function writeResult(channel: SharedArrayBuffer, result: ChannelResult): void {
  const view = new DataView(channel);
  view.setInt32(FOUND, result.hit ? 1 : 0);
  view.setFloat64(HASHES, result.hashes);
  if (result.hit) {
    view.setBigUint64(NONCE, result.hit.nonce);
    new Uint8Array(channel).set(result.hit.mix, MIX);
  }
}

export function readResult(channel: SharedArrayBuffer): ChannelResult {
  const view = new DataView(channel);
  const hashes = view.getFloat64(HASHES);
  if (view.getInt32(FOUND) === 0) return { hashes };
  return { hit: { nonce: view.getBigUint64(NONCE), mix: new Uint8Array(channel).slice(MIX, MIX + 32) }, hashes };
}
