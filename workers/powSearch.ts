// piscina task: search one bounded batch of nonces for a seal. The batch is hashed in slices so
// that the shared abort flag (set by the Sealer when another batch wins or the head moves) stops
// it within a few milliseconds; tasks are never killed.

import { searchNonce } from '../src/consensus/pow.js';

export interface PowSearchTask {
  sealHash: Uint8Array;
  /** 32 bytes big-endian. */
  target: Uint8Array;
  /** First nonce of the batch; the batch never crosses 2^64. */
  start: bigint | string;
  count: number;
  /** abort[0] !== 0 asks the task to stop; backed by a SharedArrayBuffer. */
  abort: Int32Array;
}

/** A hit (nonce in decimal, hashes tried up to and including it), or the hashes tried without one. */
export type PowSearchResult = { nonce: string; mix: Uint8Array; hashes: number } | { hashes: number };

// ~2-6 ms of hashing between looks at the abort flag.
const SLICE = 4096;

export default function powSearch(task: PowSearchTask): PowSearchResult {
  const start = BigInt(task.start);
  let done = 0;
  while (done < task.count && Atomics.load(task.abort, 0) === 0) {
    const n = Math.min(SLICE, task.count - done);
    const hit = searchNonce(task.sealHash, task.target, start + BigInt(done), n);
    if (hit) return { nonce: hit.nonce.toString(), mix: hit.mix, hashes: Number(hit.nonce - start) + 1 };
    done += n;
  }
  return { hashes: done };
}
