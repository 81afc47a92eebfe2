// Block production. The miner builds blocks from the pool, seals them with the proof of work
// and hands them to the chain, one at a time. Modes (docs/mining-and-ethash.md#mining-modes): instant (a block as soon as a
// transaction is pending), interval (every `period` seconds), mixed (instant plus an empty
// block after `period` seconds without one), remote (only submitted work seals), off.

import { EventEmitter } from 'node:events';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Address } from '@ethereumjs/util';
import type { Block } from '../chain/types.js';
import { blockFromParts, sealHash, sealedHeader } from '../chain/block.js';
import { bigintToFixed, equalBytes } from '../encoding/bytes.js';
import { nextDifficulty, type DifficultyRule } from '../consensus/difficulty.js';
import { nextGasLimit } from '../execution/gas.js';
import type { Blockchain } from '../blockchain/blockchain.js';
import type { TxPool } from '../txpool/txPool.js';
import type { TrieNodeStore } from '../state/trieNodeStore.js';
import type { BlockProcessor, BuiltBlock } from '../execution/blockProcessor.js';
import type { CommitHook } from '../execution/blockParticipants.js';
import type { BatchOp } from '../store/database.js';
import type { SignedTx } from '../chain/types.js';
import { setterTx, type DevSetter } from '../chain/systemTx.js';
import { aborted, txRejected } from '../errors.js';

import type { MiningMode } from './miningMode.js';
export { MINING_MODES, type MiningMode } from './miningMode.js';

/** Nonce and balance of `address` in a state manager (zero for a missing account). */
async function accountIn(sm: BuiltBlock['state'], address: Uint8Array): Promise<{ nonce: bigint; balance: bigint }> {
  const account = await sm.getAccount(new Address(address));
  return { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n };
}

export interface Seal {
  nonce: bigint;
  mix: Uint8Array;
}

/** Finds a nonce for `sealHash` of block `number` at `difficulty`; undefined when aborted. */
export type SealFunction = (sealHash: Uint8Array, difficulty: bigint, signal: AbortSignal, number: bigint) => Promise<Seal | undefined>;

export interface MinerOptions {
  mode: MiningMode;
  period: number;
  coinbase: Uint8Array;
  extraData: Uint8Array;
  targetGasLimit: bigint;
  difficulty: DifficultyRule;
  /** fixed clock for reproducible builds (fixtures); default: wall clock */
  now?: () => bigint;
  /** the developer clock (offset, next timestamp); takes precedence over `now` */
  clock?: BlockClock;
}

/** Where block timestamps come from when developer time controls are on (see devClock.ts). */
export interface BlockClock {
  timestampFor(parentTimestamp: bigint): bigint;
  blockSealed(timestamp: bigint): Promise<void>;
}

export class Miner extends EventEmitter<{ sealed: [Block]; error: [Error] }> {
  private mode: MiningMode;
  private timer: NodeJS.Timeout | undefined;
  /** Local sealing rounds (build, search, store) run one at a time on this chain. */
  private busy: Promise<void> = Promise.resolve();
  /** Block writes, local or submitted, run one at a time on this chain; a search does not hold it. */
  private writes: Promise<unknown> = Promise.resolve();
  private scheduled = false;
  /**
   * Counts the interval timer's arming: a tick carries the count it was armed with, and a queued
   * round seals an empty block only if the timer has not been re-armed since (a mode or period
   * change, a new head), so no tick already queued seals after the switch.
   */
  private intervalEpoch = 0;
  /** the epoch of a timer tick waiting for the queued round */
  private tick: number | undefined;
  /** what started the running round, when the mode did (a timer tick or pool transactions) */
  private roundKind: 'interval' | 'instant' | undefined;
  /** interval between blocks in interval and mixed modes */
  private periodMs: number;
  private readonly abort = new AbortController();
  /**
   * Stops the running search when the head moves. Reused from round to round until it fires:
   * a new controller and its signal cost ~10 µs, and instant mining seals hundreds of blocks a second.
   */
  private round = new AbortController();
  coinbase: Uint8Array;
  extraData: Uint8Array;

  constructor(
    private readonly chain: Blockchain,
    private readonly pool: TxPool,
    private readonly builder: BlockProcessor,
    private readonly nodes: TrieNodeStore,
    private readonly seal: SealFunction,
    private readonly opts: MinerOptions,
  ) {
    super();
    this.mode = opts.mode;
    this.periodMs = opts.period * 1000;
    this.coinbase = opts.coinbase;
    this.extraData = opts.extraData;
    pool.on('pendingTx', () => {
      if (this.mode === 'instant' || this.mode === 'mixed') this.schedule();
    });
    chain.on('newHead', () => this.armTimer());
  }

  get currentMode(): MiningMode {
    return this.mode;
  }

  /** True while local workers search (modes that seal locally). */
  get mining(): boolean {
    return this.mode === 'instant' || this.mode === 'interval' || this.mode === 'mixed';
  }

  start(): void {
    this.armTimer();
    if ((this.mode === 'instant' || this.mode === 'mixed') && this.pool.size > 0) this.schedule();
  }

  /**
   * Switches the mode at once; resolves when the rounds queued before the switch have ended. A
   * running interval round stops when interval blocks stop, and rounds queued under the old mode
   * seal nothing the new mode would not.
   */
  setMode(mode: MiningMode): Promise<void> {
    this.mode = mode;
    const kind = this.roundKind;
    if ((kind === 'interval' && !this.sealsOnInterval()) || (kind === 'instant' && !this.sealsInstantly())) this.round.abort();
    this.start();
    return this.busy;
  }

  private sealsOnInterval(): boolean {
    return (this.mode === 'interval' || this.mode === 'mixed') && this.periodMs > 0;
  }

  private sealsInstantly(): boolean {
    return this.mode === 'instant' || this.mode === 'mixed';
  }

  get periodMilliseconds(): number {
    return this.periodMs;
  }

  /** Interval and mixed modes seal every `ms` (evm_setIntervalMining); takes effect at once. */
  setPeriod(ms: number): void {
    this.periodMs = ms;
    this.armTimer();
  }

  private armTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const epoch = ++this.intervalEpoch;
    if (this.abort.signal.aborted) return;
    if (this.sealsOnInterval()) {
      this.timer = setTimeout(() => this.schedule(epoch), this.periodMs);
      this.timer.unref();
    }
  }

  /** Queues one sealing round (`tick`: the interval timer's, which may seal an empty block); rounds never overlap. */
  private schedule(tick?: number): void {
    if (tick !== undefined) this.tick = tick;
    if (this.scheduled) return;
    this.scheduled = true;
    this.busy = this.busy.then(async () => {
      // Requests already waiting on the sockets are admitted first, so they join this block:
      // a block's build runs without reaching the event loop, and the one before it ended the
      // same way (its new head schedules this round).
      await yieldToEventLoop();
      this.scheduled = false;
      const interval = this.tick !== undefined && this.tick === this.intervalEpoch && this.sealsOnInterval();
      this.tick = undefined;
      if (this.abort.signal.aborted) return;
      if (!interval && !(this.sealsInstantly() && this.pool.pendingTransactions().length > 0)) {
        // A tick of a timer re-armed since sealed nothing: the current timer stands (armed on that change).
        return;
      }
      this.roundKind = interval ? 'interval' : 'instant';
      const epoch = this.intervalEpoch;
      try {
        await this.mineOne();
      } catch (err) {
        this.emit('error', err as Error);
      } finally {
        this.roundKind = undefined;
      }
      // No new head re-armed the timer (the round failed or was stopped): the interval goes on.
      if (interval && epoch === this.intervalEpoch) this.armTimer();
      // More transactions may have arrived while sealing.
      if (this.sealsInstantly() && this.pool.pendingTransactions().length > 0) this.schedule();
    });
  }

  /** Builds on the head with the pool's executable transactions, or with `only` (no seal). */
  async buildPending(nodes: TrieNodeStore = this.nodes, only?: SignedTx[]): Promise<BuiltBlock> {
    const parent = this.chain.head;
    const now = this.opts.now?.() ?? BigInt(Math.floor(Date.now() / 1000));
    const timestamp = this.opts.clock
      ? this.opts.clock.timestampFor(parent.header.timestamp)
      : now > parent.header.timestamp ? now : parent.header.timestamp;
    return this.builder.build(
      parent,
      only ?? this.pool.pendingTransactions(),
      {
        miner: this.coinbase,
        timestamp,
        difficulty: nextDifficulty(this.opts.difficulty, parent.header, timestamp),
        gasLimit: nextGasLimit(parent.header.gasLimit, this.opts.targetGasLimit),
        extraData: this.extraData,
      },
      nodes,
    );
  }

  /** Builds, seals and commits one block; resolves when it is stored and announced. */
  async mineOne(): Promise<Block | undefined> {
    return this.sealBuilt(await this.buildPending());
  }

  private async sealBuilt(built: BuiltBlock): Promise<Block | undefined> {
    // A new head (a remote solution landed, an import) makes this search pointless: stop it.
    // The miner stopping stops it too. One controller with listeners, not AbortSignal.any: that
    // costs ~20 µs a call, and instant mining seals hundreds of blocks a second.
    if (this.round.signal.aborted) this.round = new AbortController();
    const round = this.round;
    const headMoved = () => round.abort();
    this.chain.once('newHead', headMoved);
    this.chain.once('rewound', headMoved);
    this.abort.signal.addEventListener('abort', headMoved);
    if (this.abort.signal.aborted) round.abort();
    let found: Seal | undefined;
    try {
      found = await this.seal(sealHash(built.header), built.header.difficulty, round.signal, built.header.number);
    } finally {
      this.chain.off('newHead', headMoved);
      this.chain.off('rewound', headMoved);
      this.abort.signal.removeEventListener('abort', headMoved);
    }
    if (!found) {
      this.nodes.discardWrites();
      return undefined;
    }
    return this.serialCommit(built, found, this.nodes);
  }

  private serialCommit(built: BuiltBlock, found: Seal, nodes: TrieNodeStore): Promise<Block | undefined> {
    return this.serialized(() => this.commit(built, found, nodes));
  }

  /**
   * Runs `job` in turn with every block write of this miner (imports, rewinds), so that it never
   * interleaves with storing a locally sealed block. `job` must not call commitSealed (it would
   * wait for itself); it calls `commit` directly.
   */
  serialized<T>(job: () => Promise<T>): Promise<T> {
    const run = this.writes.then(job);
    this.writes = run.catch(() => undefined);
    return run;
  }

  /**
   * Stores a sealed block on the head; a block whose parent is no longer the head is dropped.
   * `imported` blocks (verified from outside) are not reported as sealed here.
   */
  async commit(built: BuiltBlock, found: Seal, nodes: TrieNodeStore = this.nodes, imported = false): Promise<Block | undefined> {
    if (!equalBytes(built.header.parentHash, this.chain.head.hash)) {
      nodes.discardWrites();
      return undefined;
    }
    const header = sealedHeader(built.header, bigintToFixed(found.nonce, 8), found.mix);
    const block = blockFromParts(header, built.transactions);
    const ops = [...nodes.drainWrites(), ...this.pool.journalDeletes(built.transactions)];
    // Participants' effects of this block (app-chain records, flush blocks) share its batch.
    const hook = await this.builder.participants.beforeCommit(block, built.receipts, built.moves);
    try {
      await this.chain.commitBlock(block, built.receipts, [...ops, ...hook.ops]);
    } catch (err) {
      hook.done(false);
      throw err;
    }
    hook.done(true);
    await this.pool.drop(built.rejected.map((r) => r.tx));
    // For a block built here, the senders' accounts come from the post-state the builder holds
    // (nothing else builds on it before this returns); an import may already be building on its own.
    const post = imported ? undefined : { root: block.header.stateRoot, accountAt: (address: Uint8Array) => accountIn(built.state, address) };
    await this.pool.onNewHead(built.transactions, post);
    if (!imported) {
      await this.opts.clock?.blockSealed(block.header.timestamp);
      this.emit('sealed', block);
    }
    return block;
  }

  /**
   * Stores verified blocks from outside, consecutive and the first a child of the head, in ONE
   * batch with `ops` (their state nodes, the participants' writes of the last); `hook` learns
   * whether it was written. Called from a `serialized` job (BlockImporter).
   */
  async commitImported(entries: { block: Block; built: BuiltBlock }[], ops: BatchOp[], hook?: CommitHook): Promise<void> {
    const mined = entries.flatMap((e) => e.block.transactions);
    try {
      await this.chain.commitBlocks(
        entries.map(({ block, built }) => ({ block, receipts: built.receipts })),
        [...ops, ...this.pool.journalDeletes(mined)],
      );
    } catch (err) {
      hook?.done(false);
      throw err;
    }
    hook?.done(true);
    await this.pool.drop(entries.flatMap((e) => e.built.rejected.map((r) => r.tx)));
    await this.pool.onNewHead(mined);
  }

  /** Stores a block sealed by submitted work, in turn with other block writes. */
  commitSealed(built: BuiltBlock, found: Seal, nodes: TrieNodeStore): Promise<Block | undefined> {
    // Not behind a running local search: storing this block moves the head, which stops it.
    return this.serialCommit(built, found, nodes);
  }

  /** Mines `count` blocks now, whatever the mode (tests, fixtures, miner tools). */
  async mineBlocks(count: number): Promise<Block[]> {
    const blocks: Block[] = [];
    for (let i = 0; i < count; i++) {
      await new Promise<void>((resolve, reject) => {
        this.busy = this.busy.then(async () => {
          try {
            const b = await this.mineOne();
            if (b) blocks.push(b);
            resolve();
          } catch (err) {
            reject(err);
          }
        });
      });
    }
    return blocks;
  }

  /**
   * Seals one block on the head holding exactly the transaction `make` gives for that head (plus
   * the settlement a flush height makes), whatever the mode; resolves once it is stored. For dev
   * controls: a setter or an impersonated transaction becomes history at once.
   */
  sealTransaction(make: (head: Block) => Promise<SignedTx> | SignedTx): Promise<Block> {
    return new Promise<Block>((resolve, reject) => {
      this.busy = this.busy.then(async () => {
        try {
          const tx = await make(this.chain.head);
          const built = await this.buildPending(this.nodes, [tx]);
          if (built.transactions[0] !== tx) {
            this.nodes.discardWrites();
            const reason = built.rejected.find((r) => r.tx === tx)?.reason ?? 'nonce too high, or above the block gas limit';
            throw txRejected(`transaction cannot be included: ${reason}`);
          }
          const block = await this.sealBuilt(built);
          if (!block) throw aborted('sealing was interrupted (the node is stopping, or the head moved); try again');
          resolve(block);
        } catch (err) {
          reject(err);
        }
      });
    });
  }

  /** Seals one block holding one dev-control setter (a devControls chain only). */
  sealSetter(setter: DevSetter): Promise<Block> {
    return this.sealTransaction(async (head) => setterTx(await this.builder.systemNonceAt(head), setter));
  }

  /** Stops timers and any search; waits for an in-flight block write to finish. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.abort.abort();
    await this.busy;
    await this.writes;
  }
}
