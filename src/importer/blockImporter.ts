// The one way a block from outside (a peer, a block file) enters the chain. It is verified in
// full on its parent's state (verifyBlock.ts: header rules, signatures, re-execution, roots,
// proof of work), then: a child of the head is committed like a mined block (a run from sync:
// several children in one batch, see importBlocks); a block on another
// branch is stored beside the canonical chain; and when a branch's total difficulty exceeds the
// head's, the head moves to it in one batch (ties keep the head). On a running node every step
// runs in the miner's write queue, so it never interleaves with storing a locally sealed block.

import type { Block, Header, SignedTx } from '../chain/types.js';
import type { Blockchain, RewindOptions } from '../blockchain/blockchain.js';
import { decodeBlockParts, encodeBlock, headerHash } from '../chain/block.js';
import { bytesToBigint, equalBytes } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import type { Miner } from '../miner/miner.js';
import type { CommitHook } from '../execution/blockParticipants.js';
import { InvalidBlock, verifyBlock, type VerifiedBlock, type VerifyDeps } from './verifyBlock.js';

/** What an import did: appended to the head, moved the head to the block's branch, stored it beside the head, or nothing (already stored). */
export type ImportOutcome = 'extended' | 'reorged' | 'side' | 'known';

/** The block's parent is not stored: fetch the ancestors first. Not a rule the block breaks. */
export class UnknownParent extends Error {
  constructor(
    readonly number: bigint,
    readonly parentHash: Uint8Array,
    detail: string,
  ) {
    super(detail);
    this.name = 'UnknownParent';
  }
}

/** A block as received from a peer: header, its transactions' exact bytes, and the block's RLP. */
export interface ReceivedBlock {
  header: Header;
  rawTxs: Uint8Array[];
  encoded: Uint8Array;
  /** the header's hash, when the receiver computed it from the received bytes */
  hash?: Uint8Array;
}

/**
 * Blocks verified in a row and committed in one batch by `importBlocks` (a LevelDB batch per
 * block was the largest single cost of a sync). Bounded, so the head moves often enough.
 */
export const MAX_IMPORT_GROUP = 64;

/** The pool's side of a reorganisation (TxPool satisfies it). */
export interface ImportPool {
  /** waits until the rewound blocks' transactions are back */
  settled(): Promise<void>;
  /** forgets what the new branch mined */
  onNewHead(mined: SignedTx[]): Promise<void>;
}

/** What verification needs (`nodes`: the importer's own store, whose writes wait for their batch), and the chain. */
export interface BlockImporterDeps extends VerifyDeps {
  chain: Blockchain;
  /** on a running node: its write queue, and its commit (pool, participants) for head children */
  miner?: Miner;
  pool?: ImportPool;
}

export class BlockImporter {
  /** the write queue when there is no miner (the `import` command) */
  private writes: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: BlockImporterDeps) {}

  /**
   * Imports one block, given decoded, as received (already split, which spares decoding it again)
   * or as its RLP; in every case a non-canonical encoding is refused. Throws InvalidBlock when
   * it breaks a rule (nothing is written), UnknownParent when its parent is not stored.
   */
  importBlock(block: Block | ReceivedBlock | Uint8Array): Promise<ImportOutcome> {
    if (!(block instanceof Uint8Array) && 'rawTxs' in block) {
      const received = block;
      return this.serialized(() => this.importParts(received, received.encoded, received.hash));
    }
    const encoded = block instanceof Uint8Array ? block : encodeBlock(block.header, block.transactions);
    let parts: ReturnType<typeof decodeBlockParts>;
    try {
      parts = decodeBlockParts(encoded);
    } catch (err) {
      return Promise.reject(new InvalidBlock(`malformed block: ${(err as Error).message}`));
    }
    return this.serialized(() => this.importParts(parts, encoded));
  }

  /**
   * Imports consecutive received blocks (each the child of the one before), the way `importBlock`
   * does one at a time, except that children of the head are verified in a row and committed
   * in groups of up to MAX_IMPORT_GROUP, each group in ONE batch: a crash leaves the head at a
   * group's end or before it. When a block fails, the verified blocks before it are committed
   * and its error is thrown (nothing of it is written). Outcomes are in the blocks' order.
   */
  importBlocks(blocks: ReceivedBlock[]): Promise<ImportOutcome[]> {
    return this.serialized(() => this.importRun(blocks));
  }

  /**
   * Sets the head back to a canonical ancestor, in turn with block writes; resolves once the
   * removed blocks' transactions are back in the pool (unless `returnTransactions: false`).
   * Returns the removed blocks, newest first.
   */
  rewindTo(ancestorHash: Uint8Array, opts: RewindOptions = {}): ReturnType<Blockchain['rewindTo']> {
    return this.serialized(async () => {
      const removed = await this.deps.chain.rewindTo(ancestorHash, opts);
      await this.deps.pool?.settled();
      return removed;
    });
  }

  private serialized<T>(job: () => Promise<T>): Promise<T> {
    if (this.deps.miner) return this.deps.miner.serialized(job);
    const run = this.writes.then(job);
    this.writes = run.catch(() => undefined);
    return run;
  }

  private async importRun(blocks: ReceivedBlock[]): Promise<ImportOutcome[]> {
    const { chain, builder } = this.deps;
    const outcomes: ImportOutcome[] = [];
    const group: VerifiedBlock[] = [];
    const groupBlocks: Block[] = [];
    const hashes = blocks.map((b) => b.hash ?? headerHash(b.header));
    // Whether each block is stored already: one read for the run instead of one per block.
    const tds = await chain.getTotalDifficulties(hashes);
    builder.setUncommitted(groupBlocks);
    try {
      for (const [i, received] of blocks.entries()) {
        const tip = groupBlocks[groupBlocks.length - 1] ?? chain.head;
        if (tds[i] === undefined && equalBytes(received.header.parentHash, tip.hash)) {
          const verified = await verifyBlock(tip, received, received.encoded, this.deps);
          await this.stage(group, groupBlocks, verified);
          outcomes.push('extended');
          continue;
        }
        await this.flush(group, groupBlocks);
        outcomes.push(await this.importParts(received, received.encoded, hashes[i]));
      }
      await this.flush(group, groupBlocks);
    } catch (err) {
      // The verified blocks before the failing one still land (each was fully checked); the
      // failing one's trie writes do not.
      this.deps.nodes.discardWrites();
      await this.flush(group, groupBlocks);
      throw err;
    } finally {
      builder.setUncommitted([]);
    }
    return outcomes;
  }

  /** Adds a verified child of the group's tip; commits the group when full or when a participant writes for this block. */
  private async stage(group: VerifiedBlock[], groupBlocks: Block[], verified: VerifiedBlock): Promise<void> {
    const { builder, nodes, miner } = this.deps;
    // A participant's writes (app-chain records) must take effect before the next block is
    // verified: such a block ends its group. A hook without writes has nothing to apply.
    const hook = miner ? await builder.participants.beforeCommit(verified.block, verified.built.receipts, verified.built.moves) : undefined;
    nodes.stageWrites();
    group.push(verified);
    groupBlocks.push(verified.block);
    if (hook && hook.ops.length > 0) return this.flush(group, groupBlocks, hook);
    hook?.done(true);
    if (group.length >= MAX_IMPORT_GROUP) await this.flush(group, groupBlocks);
  }

  /** Commits the group (its blocks' staged trie writes included) in one batch and empties it. */
  private async flush(group: VerifiedBlock[], groupBlocks: Block[], hook?: CommitHook): Promise<void> {
    if (group.length === 0) return;
    const { chain, nodes, miner, builder } = this.deps;
    const entries = group.splice(0);
    const ops = [...nodes.drainWrites(), ...(hook?.ops ?? [])];
    try {
      if (miner) await miner.commitImported(entries, ops, hook);
      else await chain.commitBlocks(entries.map(({ block, built }) => ({ block, receipts: built.receipts })), ops);
    } catch (err) {
      nodes.discardStaged();
      builder.forgetWarm(nodes);
      throw err;
    } finally {
      groupBlocks.length = 0;
    }
  }

  private async importParts(parts: { header: Header; rawTxs: Uint8Array[] }, encoded: Uint8Array, knownHash?: Uint8Array): Promise<ImportOutcome> {
    const { chain, nodes } = this.deps;
    const { header } = parts;
    const hash = knownHash ?? headerHash(header);
    const knownTd = await chain.getTotalDifficulty(hash);
    // A stored block off the canonical chain may outweigh the head after a rewind: it wins again.
    if (knownTd !== undefined) return knownTd > (await this.headTd()) ? this.switchTo(hash) : 'known';
    const parent = await chain.getBlockByHash(header.parentHash);
    if (!parent) throw await this.unknownParent(header.number, header.parentHash);
    const verified = await verifyBlock(parent, parts, encoded, this.deps);
    if (equalBytes(parent.hash, chain.head.hash)) {
      await this.commitChild(verified);
      return 'extended';
    }
    const { block, built } = verified;
    const td = await chain.storeSideBlock(block, built.receipts, nodes.drainWrites());
    return td > (await this.headTd()) ? this.switchTo(block.hash) : 'side';
  }

  private async headTd(): Promise<bigint> {
    return (await this.deps.chain.getTotalDifficulty(this.deps.chain.head.hash)) ?? 0n;
  }

  private async switchTo(hash: Uint8Array): Promise<'reorged'> {
    const { added } = await this.deps.chain.reorgTo(hash);
    await this.deps.pool?.settled();
    await this.deps.pool?.onNewHead(added.flatMap((e) => e.block.transactions));
    return 'reorged';
  }

  private async commitChild({ block, built }: VerifiedBlock): Promise<void> {
    const { chain, nodes, miner } = this.deps;
    if (miner) {
      const stored = await miner.commit(built, { nonce: bytesToBigint(block.header.nonce), mix: block.header.mixHash }, nodes, true);
      if (!stored || !equalBytes(stored.hash, block.hash)) throw new Error(`block #${block.header.number} was not stored as ${bytesToHex(block.hash)}`);
      return;
    }
    await chain.commitBlock(block, built.receipts, nodes.drainWrites());
  }

  private async unknownParent(number: bigint, parentHash: Uint8Array): Promise<UnknownParent> {
    const local = number > 0n ? await this.deps.chain.getHashByNumber(number - 1n) : undefined;
    const detail = local
      ? `parent hash ${bytesToHex(parentHash)} is not the local block #${number - 1n} ${bytesToHex(local)} nor any stored block`
      : `parent hash ${bytesToHex(parentHash)} of block #${number} is not a stored block`;
    return new UnknownParent(number, parentHash, detail);
  }
}
