// `mcnode import` / admin_importChain: reads an RLP block stream and hands every block to the
// one import path (importer/blockImporter.ts: full verification, commit in its own batch as the
// miner does, side branches and reorganisation by total difficulty). The first bad or missing
// block stops the import with `block N: <reason>`; every block before it stays. Blocks the
// datadir already holds (same hash) are skipped.

import { stat } from 'node:fs/promises';
import type { Block } from '../chain/types.js';
import { decodeBlockParts, headerHash } from '../chain/block.js';
import { equalBytes } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import { UnknownParent, type ImportOutcome } from '../importer/blockImporter.js';
import { ChainFileError } from './chainFileError.js';
import { TruncatedItem, fileChunks, readItems } from './rlpStream.js';
import { InvalidBlock } from '../importer/verifyBlock.js';

export interface ImportTarget {
  /** the parent of the next imported block */
  readonly head: Block;
  getHashByNumber(number: bigint): Promise<Uint8Array | undefined>;
}

export interface ImportDeps {
  chain: ImportTarget;
  /** the node's one import path (BlockImporter) */
  importer: { importBlock(encoded: Uint8Array): Promise<ImportOutcome> };
}

export interface ImportOptions {
  /** blocks handled so far (imported or already known) */
  onProgress?: (done: number) => void;
}

export interface ImportResult {
  imported: number;
  /** blocks the datadir already held */
  known: number;
  head: Block;
}

/** The import stopped at `number`; `result` says what was kept. */
export class ImportError extends ChainFileError {
  constructor(
    readonly number: bigint,
    readonly reason: string,
    readonly result: ImportResult,
  ) {
    super(`block ${number}: ${reason}`);
    this.name = 'ImportError';
  }
}

export async function importChain(deps: ImportDeps, file: string, opts: ImportOptions = {}): Promise<ImportResult> {
  try {
    if (!(await stat(file)).isFile()) throw new ChainFileError(`${file} is not a file`);
  } catch (err) {
    if (err instanceof ChainFileError) throw err;
    throw new ChainFileError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const { chain } = deps;
  const result: ImportResult = { imported: 0, known: 0, head: chain.head };
  /** number of the next block in the file, once one was read */
  let expected: bigint | undefined;
  const fail = (number: bigint, reason: string): never => {
    result.head = chain.head;
    throw new ImportError(number, reason, result);
  };
  const current = () => expected ?? chain.head.header.number + 1n;

  const items = readItems(fileChunks(file));
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await items.next();
      } catch (err) {
        if (err instanceof TruncatedItem) return fail(current(), `truncated file: ${err.message}`);
        return fail(current(), `cannot read ${file}: ${(err as Error).message}`); // e.g. a broken gzip stream
      }
      if (next.done) break;
      const encoded = next.value;
      let parts: ReturnType<typeof decodeBlockParts>;
      try {
        parts = decodeBlockParts(encoded);
      } catch (err) {
        return fail(current(), `malformed block: ${(err as Error).message}`);
      }
      const n = parts.header.number;
      if (expected !== undefined && n !== expected) fail(expected, `out of order: the file holds block ${n} here`);
      expected = n + 1n;

      if (n === 0n) {
        await checkGenesis(chain, headerHash(parts.header), fail);
        result.known++;
      } else if ((await importOne(deps, n, encoded, fail)) === 'known') {
        result.known++;
      } else {
        result.imported++;
      }
      opts.onProgress?.(result.imported + result.known);
    }
  } finally {
    await items.return(undefined); // closes the file when the import stops early
  }
  result.head = chain.head;
  return result;
}

/** A genesis in the file (`export f 0`) must be this datadir's: it has no parent to import on. */
async function checkGenesis(chain: ImportTarget, hash: Uint8Array, fail: (n: bigint, reason: string) => never): Promise<void> {
  const local = await chain.getHashByNumber(0n);
  if (local && equalBytes(local, hash)) return;
  fail(0n, `genesis ${bytesToHex(hash)} differs from this datadir's genesis ${local ? bytesToHex(local) : 'missing'} (init a fresh datadir with the file's genesis)`);
}

async function importOne(deps: ImportDeps, n: bigint, encoded: Uint8Array, fail: (n: bigint, reason: string) => never): Promise<ImportOutcome> {
  try {
    return await deps.importer.importBlock(encoded);
  } catch (err) {
    if (err instanceof UnknownParent) {
      const head = deps.chain.head.header.number;
      if (n > head + 1n) return fail(n, `number ${n} does not follow the parent #${head}`);
      const hint = n === 1n ? ' (was this datadir initialised with the genesis of the file\'s chain?)' : '';
      return fail(n, err.message + hint);
    }
    if (err instanceof InvalidBlock) return fail(n, err.reason);
    throw err;
  }
}
