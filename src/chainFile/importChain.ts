// `mcnode import` / admin_importChain: reads an RLP block stream, verifies every block on top of
// the local head (verifyBlock.ts) and commits each good one in its own batch, as the miner does.
// The first bad or missing block stops the import with `block N: <reason>`; every block before
// it stays. Blocks the datadir already holds (same hash) are skipped.

import { stat } from 'node:fs/promises';
import type { Block } from '../chain/types.js';
import type { Blockchain } from '../blockchain/blockchain.js';
import { decodeBlockParts, headerHash } from '../chain/block.js';
import { equalBytes } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import type { TrieNodeStore } from '../state/trieNodeStore.js';
import { ChainFileError } from './chainFileError.js';
import { TruncatedItem, fileChunks, readItems } from './rlpStream.js';
import { InvalidBlock, verifyBlock, type VerifiedBlock, type VerifyDeps } from './verifyBlock.js';

export interface ImportTarget {
  /** the parent of the next imported block */
  readonly head: Block;
  getHashByNumber(number: bigint): Promise<Uint8Array | undefined>;
}

/** Stores a verified child of the head; undefined when the head moved meanwhile (nothing stored). */
export type CommitVerified = (verified: VerifiedBlock, nodes: TrieNodeStore) => Promise<Block | undefined>;

export interface ImportDeps extends VerifyDeps {
  chain: ImportTarget;
  commit: CommitVerified;
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

/** An import into a chain that lives on `chain`, committing straight to it (no miner running). */
export function commitTo(chain: Blockchain): CommitVerified {
  return async ({ block, built }, nodes) => {
    if (!equalBytes(block.header.parentHash, chain.head.hash)) {
      nodes.discardWrites();
      return undefined;
    }
    await chain.commitBlock(block, built.receipts, nodes.drainWrites());
    return block;
  };
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

      if (n <= chain.head.header.number) {
        await checkKnown(chain, n, headerHash(parts.header), fail);
        result.known++;
      } else {
        await importOne(deps, n, parts, encoded, fail);
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

async function checkKnown(chain: ImportTarget, n: bigint, hash: Uint8Array, fail: (n: bigint, reason: string) => never): Promise<void> {
  const local = await chain.getHashByNumber(n);
  if (local && equalBytes(local, hash)) return;
  const localHex = local ? bytesToHex(local) : 'missing';
  if (n === 0n) fail(n, `genesis ${bytesToHex(hash)} differs from this datadir's genesis ${localHex} (init a fresh datadir with the file's genesis)`);
  fail(n, `conflicts with the local block #${n} ${localHex}: this datadir holds another chain`);
}

async function importOne(
  deps: ImportDeps,
  n: bigint,
  parts: ReturnType<typeof decodeBlockParts>,
  encoded: Uint8Array,
  fail: (n: bigint, reason: string) => never,
): Promise<void> {
  const parent = deps.chain.head;
  let verified: VerifiedBlock;
  try {
    verified = await verifyBlock(parent, parts, encoded, deps);
  } catch (err) {
    if (!(err instanceof InvalidBlock)) throw err;
    const hint = n === 1n && err.reason.startsWith('parent hash') ? ' (was this datadir initialised with the genesis of the file\'s chain?)' : '';
    return fail(n, err.reason + hint);
  }
  const stored = await deps.commit(verified, deps.nodes);
  if (!stored) fail(n, 'the local chain moved during the import (a block was mined meanwhile); stop mining and import again');
  else if (!equalBytes(stored.hash, verified.block.hash)) fail(n, `stored as ${bytesToHex(stored.hash)}, not ${bytesToHex(verified.block.hash)}`);
}
