// Block files in geth's format: RLP items written back to back, nothing between them, gzip'd
// when the file name ends in `.gz`. Items are split by their RLP length prefix alone, so a
// truncated file is told apart from a malformed block.

import { createReadStream } from 'node:fs';
import { zlib } from '../runtime/lazyBuiltins.js';

export const isGzipName = (file: string): boolean => file.endsWith('.gz');

/** The file's bytes in chunks, decompressed when it is gzip'd. */
export function fileChunks(file: string): AsyncIterable<Uint8Array> {
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  return isGzipName(file) ? stream.pipe(zlib().createGunzip()) : stream;
}

/** The file ends inside an item: `have` of its `need` bytes are there. */
export class TruncatedItem extends Error {
  constructor(
    readonly have: number,
    readonly need: number,
  ) {
    super(`the file ends inside the block (${have} of ${need} bytes)`);
  }
}

/**
 * Length of the item at the start of `buf` (prefix included); undefined when `buf` is too short
 * to hold the prefix. Non-canonical prefixes are left to the RLP decoder to refuse.
 */
export function itemLength(buf: Uint8Array): number | undefined {
  if (buf.length === 0) return undefined;
  const b = buf[0];
  if (b < 0x80) return 1;
  if (b <= 0xb7) return 1 + b - 0x80;
  if (b >= 0xc0 && b <= 0xf7) return 1 + b - 0xc0;
  const lenOfLen = b <= 0xbf ? b - 0xb7 : b - 0xf7;
  if (buf.length < 1 + lenOfLen) return undefined;
  let len = 0;
  for (let i = 1; i <= lenOfLen; i++) len = len * 256 + buf[i];
  return 1 + lenOfLen + len;
}

/** Yields each top-level item; throws TruncatedItem when the bytes end inside one. */
export async function* readItems(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<Uint8Array, void> {
  let buf = new Uint8Array(0);
  let pos = 0;
  for await (const chunk of chunks) {
    const rest = buf.subarray(pos);
    const next = new Uint8Array(rest.length + chunk.length);
    next.set(rest);
    next.set(chunk, rest.length);
    buf = next;
    pos = 0;
    for (;;) {
      const len = itemLength(buf.subarray(pos));
      if (len === undefined || pos + len > buf.length) break;
      yield buf.slice(pos, pos + len);
      pos += len;
    }
  }
  if (pos < buf.length) {
    const rest = buf.subarray(pos);
    throw new TruncatedItem(rest.length, itemLength(rest) ?? rest.length + 1);
  }
}

/** Items in the file, and whether it ends with a partial one (for progress totals). */
export async function countItems(file: string): Promise<{ items: number; truncated: boolean }> {
  let items = 0;
  try {
    for await (const _ of readItems(fileChunks(file))) items++;
  } catch (err) {
    if (err instanceof TruncatedItem) return { items, truncated: true };
    throw err;
  }
  return { items, truncated: false };
}
