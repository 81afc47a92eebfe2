// Header blooms of a canonical block range, for the log scan's pre-check. Reading whole blocks
// through Blockchain re-hashes every header and decodes every transaction; reading only the
// canonical hashes and headers in chunks is several times faster, and the full block is then
// loaded only where the bloom allows a match.

import { decodeHeader } from '../chain/block.js';
import type { Block } from '../chain/types.js';
import type { Database } from '../store/database.js';
import { keys } from '../store/schema.js';

export interface BlockBloom {
  hash: Uint8Array;
  logsBloom: Uint8Array;
}

/** Yields the blooms of canonical blocks `from..to` in order (`to` at most the head). */
export type BloomSource = (from: bigint, to: bigint) => AsyncIterable<BlockBloom>;

const CHUNK = 256n;

/** Reads canonical hashes and headers straight from the database (written before `newHead`). */
export function storedBlooms(db: Database): BloomSource {
  return async function* (from, to) {
    for (let start = from; start <= to; start += CHUNK) {
      const end = start + CHUNK - 1n < to ? start + CHUNK - 1n : to;
      const numbers: bigint[] = [];
      for (let n = start; n <= end; n++) numbers.push(n);
      const hashes = await db.getMany(numbers.map((n) => keys.canonical(n)));
      const present = hashes.filter((h): h is Uint8Array => h !== undefined);
      const headers = await db.getMany(present.map((h) => keys.header(h)));
      for (let i = 0; i < present.length; i++) {
        const bytes = headers[i];
        if (bytes) yield { hash: present[i], logsBloom: decodeHeader(bytes).logsBloom };
      }
    }
  };
}

/** The slow generic path over any chain that serves blocks by number (tests, other sources). */
export function blockBlooms(chain: { getBlockByNumber(n: bigint): Promise<Block | undefined> }): BloomSource {
  return async function* (from, to) {
    for (let n = from; n <= to; n++) {
      const block = await chain.getBlockByNumber(n);
      if (block) yield { hash: block.hash, logsBloom: block.header.logsBloom };
    }
  };
}
