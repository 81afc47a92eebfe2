// The slice of the corpus `npm test` runs (test/conformance/stateTests.test.ts): from each folder
// its first file and then every SLICE_STRIDE-th, so every folder is represented and the big ones
// (stRandom, stStaticCall, ...) a little more, about 90 of 2,391 files. Files over
// SLICE_MAX_BYTES are left to `npm run conformance`: stTimeConsuming's sstore_combinations_*
// (2 MB, 3,458 cases each) alone would cost more than the rest of the slice.

import { statSync } from 'node:fs';
import type { CorpusFile } from './corpus.js';

/** One file in this many of each folder (after its first). */
export const SLICE_STRIDE = 40;
export const SLICE_MAX_BYTES = 1_000_000;

export function conformanceSlice(files: readonly CorpusFile[]): CorpusFile[] {
  const seen = new Map<string, number>();
  return files.filter((f) => {
    if (statSync(f.path).size > SLICE_MAX_BYTES) return false;
    const i = seen.get(f.dir) ?? 0;
    seen.set(f.dir, i + 1);
    return i % SLICE_STRIDE === 0;
  });
}
