// Checks a block from outside (an imported file) as a child of `parent`: header rules, the
// transactions and their signatures (system transactions: their exact form), then re-execution
// on the parent's state by the block builder's own rules and every root it commits to, and last
// the proof of work. A failure names what is wrong in a few words.

import type { Block, Header, SignedTx } from '../chain/types.js';
import { EMPTY_UNCLES_HASH, encodeBlockFromRaw, encodeHeader, orderedTrieRoot, sealHash } from '../chain/block.js';
import { decodeBlockTransaction } from '../chain/systemTx.js';
import { checkClassicAllowed } from '../chain/transaction.js';
import { nextDifficulty, type DifficultyRule } from '../consensus/difficulty.js';
import type { PowEngine } from '../consensus/powEngine.js';
import { equalBytes, keccak256 } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import type { TrieNodeStore } from '../state/trieNodeStore.js';
import type { BlockProcessor, BuiltBlock } from '../execution/blockProcessor.js';

/** Geth's bounds: a child's gas limit moves by less than parent/1024 and stays ≥ 5000. */
const MIN_GAS_LIMIT = 5000n;
const GAS_LIMIT_BOUND_DIVISOR = 1024n;
const MAX_EXTRA_DATA = 32;

/** The block breaks a rule; `reason` is the user-facing phrase. */
export class InvalidBlock extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export interface VerifyDeps {
  builder: BlockProcessor;
  /** where the re-execution's trie writes collect until the block is committed */
  nodes: TrieNodeStore;
  chainId: bigint;
  difficulty: DifficultyRule;
  /** first block taking classic transactions (genesis `config.classicTxBlock`); undefined = never */
  classicTxBlock?: bigint;
  /** the chain's proof of work */
  pow: PowEngine;
}

export interface VerifiedBlock {
  block: Block;
  /** the re-executed block (receipts, trie writes in `deps.nodes`) */
  built: BuiltBlock;
}

const FIELD_LENGTHS: [keyof Header, number][] = [
  ['parentHash', 32], ['sha3Uncles', 32], ['miner', 20], ['stateRoot', 32], ['transactionsRoot', 32],
  ['receiptsRoot', 32], ['logsBloom', 256], ['mixHash', 32], ['nonce', 8],
];

const short = (bytes: Uint8Array): string => bytesToHex(bytes);
const mismatch = (what: string, header: Uint8Array | bigint, executed: Uint8Array | bigint): InvalidBlock => {
  const show = (v: Uint8Array | bigint) => (typeof v === 'bigint' ? v.toString() : short(v));
  return new InvalidBlock(`${what} mismatch (header ${show(header)}, re-executed ${show(executed)})`);
};

function checkHeader(parent: Block, header: Header, rule: DifficultyRule): void {
  for (const [field, length] of FIELD_LENGTHS) {
    const value = header[field] as Uint8Array;
    if (value.length !== length) throw new InvalidBlock(`malformed header: ${field} has ${value.length} bytes, want ${length}`);
  }
  if (header.extraData.length > MAX_EXTRA_DATA) throw new InvalidBlock(`extra data too long (${header.extraData.length} bytes, at most ${MAX_EXTRA_DATA})`);
  const p = parent.header;
  if (header.number !== p.number + 1n) throw new InvalidBlock(`number ${header.number} does not follow the parent #${p.number}`);
  if (!equalBytes(header.parentHash, parent.hash)) {
    throw new InvalidBlock(`parent hash ${short(header.parentHash)} is not the local block #${p.number} ${short(parent.hash)}`);
  }
  if (header.timestamp < p.timestamp) throw new InvalidBlock(`timestamp ${header.timestamp} is before the parent's ${p.timestamp}`);
  const difficulty = nextDifficulty(rule, p, header.timestamp);
  if (header.difficulty !== difficulty) throw new InvalidBlock(`difficulty ${header.difficulty}, the ${rule.mode} rule gives ${difficulty}`);
  const bound = p.gasLimit / GAS_LIMIT_BOUND_DIVISOR;
  const change = header.gasLimit > p.gasLimit ? header.gasLimit - p.gasLimit : p.gasLimit - header.gasLimit;
  if (change >= bound || header.gasLimit < MIN_GAS_LIMIT) {
    throw new InvalidBlock(`gas limit ${header.gasLimit} out of bounds (parent ${p.gasLimit}, change below ${bound})`);
  }
  if (header.gasUsed > header.gasLimit) throw new InvalidBlock(`gas used ${header.gasUsed} above the gas limit ${header.gasLimit}`);
  if (!equalBytes(header.sha3Uncles, EMPTY_UNCLES_HASH)) throw new InvalidBlock('uncles hash is not that of an empty list');
}

function decodeTransactions(rawTxs: Uint8Array[], number: bigint, deps: VerifyDeps): SignedTx[] {
  return rawTxs.map((raw, i) => {
    try {
      return checkClassicAllowed(decodeBlockTransaction(raw, deps.chainId), number, deps.classicTxBlock);
    } catch (err) {
      throw new InvalidBlock(`transaction ${i}: ${(err as Error).message}`);
    }
  });
}

/** Why the builder left out `tx` (it lists permanent failures; deferrals are nonce or gas). */
function exclusionReason(built: BuiltBlock, tx: SignedTx): string {
  const rejected = built.rejected.find((r) => r.tx === tx);
  return rejected?.reason ?? 'nonce too high or block gas limit reached';
}

/**
 * Verifies `encoded` (one block's RLP, as in the file) on top of `parent`. On success the
 * block's trie writes wait in `deps.nodes`; on failure they are discarded.
 */
export async function verifyBlock(
  parent: Block,
  parts: { header: Header; rawTxs: Uint8Array[] },
  encoded: Uint8Array,
  deps: VerifyDeps,
): Promise<VerifiedBlock> {
  const { header } = parts;
  checkHeader(parent, header, deps.difficulty);
  const txs = decodeTransactions(parts.rawTxs, header.number, deps);
  // Re-encoding must give the same bytes: a non-canonical integer would change the block hash.
  const encodedHeader = encodeHeader(header);
  if (!equalBytes(encodeBlockFromRaw(encodedHeader, txs.map((tx) => tx.raw)), encoded)) throw new InvalidBlock('non-canonical RLP encoding');
  const txRoot = orderedTrieRoot(txs.map((tx) => tx.raw));
  if (!equalBytes(txRoot, header.transactionsRoot)) throw mismatch('transactions root', header.transactionsRoot, txRoot);

  deps.nodes.discardWrites();
  const env = { miner: header.miner, timestamp: header.timestamp, difficulty: header.difficulty, gasLimit: header.gasLimit, extraData: header.extraData };
  let built: BuiltBlock;
  try {
    built = await deps.builder.build(parent, txs, env, deps.nodes, 'replay');
    if (built.transactions.length !== txs.length) {
      const i = txs.findIndex((tx, k) => built.transactions[k] !== tx);
      throw new InvalidBlock(`transaction ${i} (${short(txs[i].hash)}) cannot be applied: ${exclusionReason(built, txs[i])}`);
    }
    const b = built.header;
    if (header.gasUsed !== b.gasUsed) throw mismatch('gas used', header.gasUsed, b.gasUsed);
    if (!equalBytes(header.receiptsRoot, b.receiptsRoot)) throw mismatch('receipts root', header.receiptsRoot, b.receiptsRoot);
    if (!equalBytes(header.logsBloom, b.logsBloom)) throw new InvalidBlock('logs bloom mismatch');
    if (!equalBytes(header.stateRoot, b.stateRoot)) throw mismatch('state root', header.stateRoot, b.stateRoot);
    const { number, nonce, mixHash, difficulty } = header;
    const sealProblem = await deps.pow.check({ number, sealHash: sealHash(header), nonce, mixHash, difficulty });
    if (sealProblem) throw new InvalidBlock(`invalid proof of work (${deps.pow.name}): ${sealProblem}`);
  } catch (err) {
    deps.nodes.discardWrites();
    deps.builder.forgetWarm(deps.nodes);
    throw err;
  }
  // The encoding was just checked to be the block's own: its hash and size come from it.
  return { block: { header, hash: keccak256(encodedHeader), transactions: txs, size: encoded.length }, built };
}
