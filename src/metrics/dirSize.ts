// Disk use of a directory tree (the chain database), as `du` would add it up from file sizes.
// Walking LevelDB's files on every scrape would be wasteful: the total is cached for a few seconds.

import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

export async function dirSize(dir: string): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0; // vanished meanwhile (LevelDB compaction removes files)
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await dirSize(full);
    else if (entry.isFile()) total += await stat(full).then((s) => s.size, () => 0);
  }
  return total;
}

/** `dirSize(dir)`, recomputed at most every `ttlMs`. */
export function cachedDirSize(dir: string, ttlMs = 5000, now: () => number = () => performance.now()): () => Promise<number> {
  let value: Promise<number> | undefined;
  let at = -Infinity;
  return () => {
    const t = now();
    if (!value || t - at >= ttlMs) {
      at = t;
      value = dirSize(dir);
    }
    return value;
  };
}
