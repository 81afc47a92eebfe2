// anvil_reset / hardhat_reset in a fork (docs/fork-mode.md#resetting-and-re-forking): back to the
// fork block, or (with `forking`) to another block or upstream. Either way the local blocks leave
// the canonical chain by the one rewind (filters get their logs as removed), the pool and the
// snapshots are emptied, and a first block funds the dev accounts again, as at the fork's start.
// Moving to another block asks the upstream before anything changes: if it cannot answer, the
// fork stays as it was.

import type { Block } from '../chain/types.js';
import { blockFromParts } from '../chain/block.js';
import type { DevSetter } from '../chain/systemTx.js';
import { ConfigError, wrongState } from '../errors.js';
import { equalBytes } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import type { BatchOp } from '../store/database.js';
import { keys } from '../store/schema.js';
import type { Logger } from '../log.js';
import type { ForkRuntime } from '../fork/forkRuntime.js';
import { encodeForkRecord } from '../fork/forkRecord.js';
import { forkUnavailable } from '../fork/upstreamClient.js';
import type { ForkRequest, ForkStart } from '../fork/forkStart.js';
import type { MiningMode } from '../miner/miningMode.js';
import type { SignedTx } from '../chain/types.js';

/** Where to re-fork (Anvil's and Hardhat's `forking` option); absent members keep the current fork's. */
export interface Forking {
  jsonRpcUrl?: string;
  blockNumber?: bigint;
}

export interface ForkResetDeps {
  fork: ForkRuntime;
  chain: {
    readonly head: Block;
    /** the lowest stored block: the fork block */
    readonly genesis: Block;
    replaceBase(anchor: Block, td: bigint, ops: BatchOp[]): Promise<void>;
  };
  /** the one rewind, in turn with block writes (BlockImporter.rewindTo) */
  rewindTo(hash: Uint8Array, opts: { returnTransactions: boolean }): Promise<unknown>;
  miner: { readonly currentMode: MiningMode; setMode(mode: MiningMode): unknown; sealSetters(setters: DevSetter[]): Promise<Block> };
  pool: { settled(): Promise<void>; content(): { pending: Map<string, SignedTx[]>; queued: Map<string, SignedTx[]> }; drop(txs: SignedTx[]): Promise<void> };
  snapshots?: { clear(): Promise<void> };
  /** forgets state readers kept by root */
  clearReaders(): void;
  /** the request a re-fork makes (the node's upstream options and cache) */
  request(url: string, block: bigint | undefined): ForkRequest;
  /** startFork on the fork's open cache */
  start(req: ForkRequest): Promise<ForkStart>;
  /** the starting root of a fork of `hash` and the writes that store it */
  baseRoot(hash: Uint8Array): Promise<{ root: Uint8Array; ops: BatchOp[] }>;
  /** the setters funding the dev accounts */
  funding(): DevSetter[];
  log: Logger;
}

export class ForkReset {
  constructor(private readonly deps: ForkResetDeps) {}

  /** Resets to the fork block, or re-forks; resolves once the funding block is sealed. */
  async reset(forking?: Forking): Promise<Block | undefined> {
    const { fork, miner, log } = this.deps;
    const current = fork.record;
    let moved: ForkStart | undefined;
    if (forking && (forking.jsonRpcUrl !== undefined || forking.blockNumber !== undefined)) {
      const url = forking.jsonRpcUrl ?? current.url;
      if (url === undefined) throw wrongState('this fork has no upstream: give forking.jsonRpcUrl');
      try {
        moved = await this.deps.start(this.deps.request(url, forking.blockNumber));
      } catch (err) {
        if (err instanceof ConfigError) throw forkUnavailable(err.message.replace(/^cannot fork [^:]+: (fork upstream unavailable: )?/, ''));
        throw err;
      }
      if (equalBytes(moved.record.hash, current.hash) && url === current.url) moved = undefined;
    }
    const mode = miner.currentMode;
    miner.setMode('off');
    try {
      await this.deps.rewindTo(this.deps.chain.genesis.hash, { returnTransactions: false });
      await this.emptyPool();
      if (moved) await this.move(moved);
      await this.deps.snapshots?.clear();
      const funded = this.deps.funding();
      const block = funded.length ? await miner.sealSetters(funded) : undefined;
      log.info('fork reset', { block: fork.record.number, hash: bytesToHex(fork.record.hash), head: block?.header.number ?? fork.record.number });
      return block;
    } finally {
      miner.setMode(mode);
    }
  }

  private async emptyPool(): Promise<void> {
    const { pool } = this.deps;
    await pool.settled();
    const { pending, queued } = pool.content();
    await pool.drop([...pending.values(), ...queued.values()].flat());
  }

  private async move(start: ForkStart): Promise<void> {
    const { fork, chain } = this.deps;
    const { root, ops } = await this.deps.baseRoot(start.record.hash);
    const { header, hash } = start.anchor.block;
    // The fork block as the chain stores it: its header under the upstream's hash, no body.
    await chain.replaceBase({ ...blockFromParts(header, []), hash }, start.anchor.totalDifficulty, [
      ...ops,
      { type: 'put', key: keys.fork, value: encodeForkRecord(start.record) },
    ]);
    fork.refork(start.record, root, start.upstream);
    this.deps.clearReaders();
  }
}
