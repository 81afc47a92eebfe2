// piscina task: search one bounded batch of nonces for a seal. The batch is hashed in slices so
// that the shared abort flag (set by the Sealer when another batch wins or the head moves) stops
// it within a few milliseconds; tasks are never killed.

import type { SearchContext } from '../src/consensus/powEngine.js';
import { searchStep } from '../src/consensus/powSearchStep.js';

export interface PowSearchTask {
  /** which PoW, and its data (the Ethash cache arrives shared, not copied) */
  context: SearchContext;
  sealHash: Uint8Array;
  /** 32 bytes big-endian. */
  target: Uint8Array;
  /** First nonce of the batch; the batch never crosses 2^64. */
  start: bigint | string;
  count: number;
  /** hashes between looks at the abort flag */
  slice: number;
  /** abort[0] !== 0 asks the task to stop; backed by a SharedArrayBuffer. */
  abort: Int32Array;
}

/** A hit (nonce in decimal, hashes tried up to and including it), or the hashes tried without one. */
export type PowSearchResult = { nonce: string; mix: Uint8Array; hashes: number } | { hashes: number };

export default function powSearch(task: PowSearchTask): PowSearchResult {
  const start = BigInt(task.start);
  let done = 0;
  while (done < task.count && Atomics.load(task.abort, 0) === 0) {
    const n = Math.min(task.slice, task.count - done);
    const hit = searchStep(task.context, task.sealHash, task.target, start + BigInt(done), n);
    if (hit) return { nonce: hit.nonce.toString(), mix: hit.mix, hashes: Number(hit.nonce - start) + 1 };
    done += n;
  }
  return { hashes: done };
}
