// The slice of the corpus `npm test` runs (test/conformance/stateTests.test.ts): from each folder
// its first file and then every SLICE_STRIDE-th, so every folder is represented (but the two that hold only stress files) and the big ones
// (stRandom, stStaticCall, ...) a little more, about 80 of 2,391 files. The stress files are left
// to `npm run conformance`: the 50,000- and 1,000-call loops, the 1,024-deep call chains, the
// quadratic-complexity and sstore-combination files take from 20 s to 35 min each on a loaded
// machine, where a typical file takes under a second.

import path from 'node:path';
import type { CorpusFile } from './corpus.js';

/** One file in this many of each folder (after its first). */
export const SLICE_STRIDE = 40;
/** Files whose names match are not in the slice (the slowest 30 of a whole run all do); stTimeConsuming has only such files. */
export const SLICE_SKIP = /50000|1000|1024|QuadraticComplexitySolidity|sstore_combinations|Spam|modexp|Recursive|pointMulAdd/;

export function conformanceSlice(files: readonly CorpusFile[]): CorpusFile[] {
  const seen = new Map<string, number>();
  return files.filter((f) => {
    if (SLICE_SKIP.test(path.basename(f.path))) return false;
    const i = seen.get(f.dir) ?? 0;
    seen.set(f.dir, i + 1);
    return i % SLICE_STRIDE === 0;
  });
}
