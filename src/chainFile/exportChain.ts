// `mcnode export` / admin_exportChain: blocks from..to of the canonical chain as an RLP stream
// (geth's format, gzip'd for a `.gz` name). The file appears only once complete: blocks are
// written to a temporary name beside it and renamed at the end.

import { createWriteStream, existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Block } from '../chain/types.js';
import { encodeBlock } from '../chain/block.js';
import { ChainFileError } from './chainFileError.js';
import { zlib } from '../runtime/lazyBuiltins.js';
import { isGzipName } from './rlpStream.js';

export interface ExportSource {
  readonly head: Block;
  getBlockByNumber(number: bigint): Promise<Block | undefined>;
}

export interface ExportOptions {
  /** first block; default 1 (the genesis is left out: an importer has its own) */
  from?: bigint;
  /** last block; default the head */
  to?: bigint;
  /** replace an existing file (the CLI does, as geth's; admin_exportChain does not) */
  overwrite?: boolean;
  /** blocks written so far */
  onProgress?: (done: number) => void;
}

export interface ExportResult {
  from: bigint;
  to: bigint;
  blocks: number;
  /** uncompressed bytes */
  bytes: number;
}

/** The range an export would write, checked against the head. */
export function exportRange(head: bigint, from?: bigint, to?: bigint): { from: bigint; to: bigint } {
  const first = from ?? 1n;
  const last = to ?? head;
  if (last > head) throw new ChainFileError(`block ${last} is beyond the head #${head}`);
  // Only the defaults may give an empty range (a chain that is just its genesis).
  if (first > last && (from !== undefined || to !== undefined)) throw new ChainFileError(`first block ${first} is after the last ${last}`);
  return { from: first, to: last };
}

export async function exportChain(source: ExportSource, file: string, opts: ExportOptions = {}): Promise<ExportResult> {
  const { from, to } = exportRange(source.head.header.number, opts.from, opts.to);
  if (!opts.overwrite && existsSync(file)) throw new ChainFileError(`${file} exists; export does not overwrite files`);
  const result: ExportResult = { from, to, blocks: 0, bytes: 0 };

  async function* blocks(): AsyncGenerator<Uint8Array> {
    for (let n = from; n <= to; n++) {
      const block = await source.getBlockByNumber(n);
      if (!block) throw new ChainFileError(`block ${n} is missing from the database`);
      const encoded = encodeBlock(block.header, block.transactions);
      result.blocks++;
      result.bytes += encoded.length;
      yield encoded;
      opts.onProgress?.(result.blocks);
    }
  }

  const temporary = `${file}.partial-${process.pid}`;
  try {
    const sink = createWriteStream(temporary, { flags: 'wx' });
    if (isGzipName(file)) await pipeline(Readable.from(blocks()), zlib().createGzip(), sink);
    else await pipeline(Readable.from(blocks()), sink);
    await rename(temporary, file);
  } catch (err) {
    await rm(temporary, { force: true });
    if (err instanceof ChainFileError) throw err;
    throw new ChainFileError(`cannot write ${file}: ${(err as Error).message}`);
  }
  return result;
}
