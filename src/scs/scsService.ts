// The SCS: the app chains this node serves. It takes app-chain transactions from the VNODE
// (journaled before they are acknowledged), makes one app-chain block for what has arrived,
// and takes part in main-chain blocks (blockParticipants.ts): deposits become records in the
// main-chain block's batch, and a flush settles records — its app-chain block and the
// withdrawal payments are written with the main-chain block that triggers it.
// One lock orders everything that writes app-chain data.

import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import type { Block, Receipt, SignedTx } from '../chain/types.js';
import { EMPTY_TRIE_ROOT } from '../chain/block.js';
import { alreadyExists, ConfigError, limitExceeded, txRejected } from '../errors.js';
import { bigintToBytes, equalBytes, keccak256 } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import type { Logger } from '../log.js';
import type { BalanceMove, BlockParticipant, CommitHook } from '../execution/blockParticipants.js';
import type { Database } from '../store/database.js';
import { TrieNodeStore } from '../state/trieNodeStore.js';
import { WorldState } from '../state/worldState.js';
import { AppChain, unknownAppChain, type AppChainDeps, type PreparedChange } from './appChain.js';
import type { CallOptions } from '../execution/call.js';
import { appGenesis } from './appChainBuilder.js';
import { AppChainSpecError, decodeAppChainSpec } from './appChainSpec.js';
import { checkAppTx } from './appTx.js';
import {
  depositCredits, depositsIn, isFlushBlock, settle, settledMoves, withdrawMoves, type WithdrawRef,
} from './exchange.js';
import { AppStore, appOps, type ExchangeRecord } from './store.js';

export interface ScsOptions {
  db: Database;
  common: Common;
  scsId: Uint8Array;
  /**
   * Stores the SCS id's key file (first call) and resolves once it is on disk. The first app-chain
   * write waits for it (the lock is held until then; if it fails, every write fails) and the SCS
   * endpoint opens after it: the id is named nowhere before.
   */
  storeId?: () => Promise<void>;
  /** `via` every app-chain transaction must carry (vnode_address) */
  vnodeAddress: Uint8Array;
  /** owner of an app chain whose object names none */
  defaultOwner: Uint8Array;
  /** the main chain's head block */
  mainHead: () => Block;
  /** seconds between interval blocks; 0 = blocks only for transactions and flushes */
  blockPeriod: number;
  log: Logger;
  now?: () => bigint;
  /** how app-chain calls run (the node's interpreter switch, bounds and monitor) */
  calls?: CallOptions;
}

/** App chains one SCS serves at most (scs_createAppChain refuses more; declared ones always load). */
export const MAX_APP_CHAINS = 256;

export class ScsService implements BlockParticipant {
  private readonly chains = new Map<string, AppChain>();
  private readonly deps: AppChainDeps;
  private tail: Promise<void> = Promise.resolve();
  private rounds: Promise<void> = Promise.resolve();
  private roundQueued = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private idFailure: Error | undefined;
  private idAwaited = false;

  private constructor(private readonly o: ScsOptions) {
    // 2 MiB of app-chain state nodes: app chains are small (the soak's filled 4 MiB to 3.8 MiB of live heap)
    const nodes = new TrieNodeStore(o.db, 2 * 2 ** 20);
    this.deps = { store: new AppStore(o.db), world: new WorldState(nodes, o.common), nodes, common: o.common, scsId: o.scsId, calls: o.calls };
  }

  /** Loads the stored app chains and their journals, then creates the config's new ones. */
  static async open(o: ScsOptions, declared: readonly Record<string, unknown>[]): Promise<ScsService> {
    const scs = new ScsService(o);
    for (const stored of await scs.deps.store.chains()) {
      const chain = await AppChain.load(stored, scs.deps);
      scs.chains.set(chain.key, chain);
      await scs.restoreJournal(chain);
    }
    // Every declaration is checked before any is created: a bad one leaves nothing behind.
    for (const [i, raw] of declared.entries()) {
      try {
        decodeAppChainSpec(raw, { owner: o.defaultOwner, scsId: o.scsId, deriveAddress: () => new Uint8Array(20) });
      } catch (err) {
        if (err instanceof AppChainSpecError) throw new ConfigError(`appChains[${i}].${err.message}`);
        throw err;
      }
    }
    for (const [i, raw] of declared.entries()) await scs.createChain(raw, () => deriveAddress(o.scsId, 'declared', i));
    if (o.blockPeriod > 0) {
      scs.timer = setInterval(() => scs.schedule(true), o.blockPeriod * 1000);
      scs.timer.unref();
    }
    scs.schedule(false);
    return scs;
  }

  get scsId(): Uint8Array {
    return this.o.scsId;
  }

  /** Stores the SCS id if it is not yet (see ScsOptions.storeId); resolves once it is. */
  idStored(): Promise<void> {
    return this.o.storeId?.() ?? Promise.resolve();
  }

  /** App chains in creation order. */
  list(): AppChain[] {
    return [...this.chains.values()];
  }

  chain(address: Uint8Array): AppChain {
    const chain = this.chains.get(bytesToHex(address));
    if (!chain) throw unknownAppChain(address);
    return chain;
  }

  /** scs_createAppChain: returns the new app chain's address; a bad spec throws AppChainSpecError. */
  create(raw: unknown): Promise<Uint8Array> {
    return this.createChain(raw);
  }

  /** `declared`: a config entry (derives its address from its index; an existing chain is kept). */
  private async createChain(raw: unknown, declared?: () => Uint8Array): Promise<Uint8Array> {
    const release = await this.acquire();
    try {
      const spec = decodeAppChainSpec(raw, {
        owner: this.o.defaultOwner,
        scsId: this.o.scsId,
        deriveAddress: declared ?? (() => this.freeAddress()),
      });
      if (this.chains.has(bytesToHex(spec.address))) {
        if (declared) return spec.address;
        throw alreadyExists(`app chain ${bytesToHex(spec.address)} already exists`);
      }
      // Every app chain stays in memory with its pool: scs_createAppChain may not add them without end.
      if (!declared && this.chains.size >= MAX_APP_CHAINS) throw limitExceeded(`app chains (${MAX_APP_CHAINS})`);
      const stored = { spec, createdAt: this.o.mainHead().header.number, ordinal: this.chains.size };
      const genesis = appGenesis(this.o.scsId, this.now(), EMPTY_TRIE_ROOT);
      const { chain, ops } = AppChain.create(stored, genesis, this.deps);
      await this.o.db.batch(ops);
      this.chains.set(chain.key, chain);
      this.o.log.info('app chain created', { address: chain.key, flushRound: spec.flushRound, createdAt: stored.createdAt });
      return spec.address;
    } finally {
      release();
    }
  }

  /** An address derived from the SCS id, unused by any app chain here. */
  private freeAddress(): Uint8Array {
    for (let n = this.chains.size; ; n++) {
      const address = deriveAddress(this.o.scsId, 'created', n);
      if (!this.chains.has(bytesToHex(address))) return address;
    }
  }

  /** Takes an app-chain transaction from the VNODE; resolves once it is journaled. */
  async submit(tx: SignedTx): Promise<void> {
    if (tx.via === null || !equalBytes(tx.via, this.o.vnodeAddress)) throw txRejected('via error');
    checkAppTx(tx);
    const chain = this.chain(tx.to!);
    const release = await this.acquire();
    try {
      chain.pool.check(tx, await chain.nonceOf(tx.from));
      await this.o.db.batch([appOps.journal(chain.address, tx)]);
      chain.pool.add(tx);
    } finally {
      release();
    }
    this.schedule(false);
  }

  private async restoreJournal(chain: AppChain): Promise<void> {
    for (const tx of await this.deps.store.journal(chain.address)) {
      if (tx.nonce < (await chain.nonceOf(tx.from)) || chain.pool.get(tx.hash)) {
        await this.o.db.batch([appOps.unjournal(chain.address, tx.hash)]);
      } else {
        chain.pool.add(tx);
      }
    }
  }

  // --- app-chain blocks for transactions --------------------------------------------------

  /** Queues one production round; rounds never overlap and a queued round is not doubled. */
  private schedule(interval: boolean): void {
    if (this.roundQueued && !interval) return;
    this.roundQueued = true;
    this.rounds = this.rounds.then(async () => {
      this.roundQueued = false;
      if (this.stopped) return;
      try {
        await this.produceRound(interval);
      } catch (err) {
        this.o.log.error('app-chain block failed', { error: (err as Error).message });
      }
    });
  }

  /** One block per app chain for what has arrived (and an empty one on interval rounds). */
  private async produceRound(interval: boolean): Promise<void> {
    // No app chain, nothing to write (chains are added under the lock, a later round sees them):
    // the lock, and with it a new SCS id's key file, is not taken for nothing.
    if (this.chains.size === 0) return;
    let more = false;
    const release = await this.acquire();
    try {
      for (const chain of this.chains.values()) {
        const nonceOf = (a: Uint8Array) => chain.nonceOf(a);
        const transactions = await chain.pool.executable(nonceOf);
        if (transactions.length === 0 && !interval) continue;
        const built = await chain.build({ transactions, credits: [], timestamp: this.now() }).catch((err: unknown) => {
          this.deps.nodes.discardWrites();
          throw err;
        });
        const change = chain.prepare(built);
        await this.o.db.batch(change.ops);
        change.apply();
        this.o.log.debug('app-chain block', { chain: chain.key, number: built.block.header.number, txs: transactions.length });
        if ((await chain.pool.executable(nonceOf, 1)).length) more = true;
      }
    } finally {
      release();
    }
    if (more) this.schedule(false);
  }

  // --- main-chain blocks (BlockParticipant) -----------------------------------------------

  async balanceMoves(number: bigint): Promise<BalanceMove[]> {
    // A stored block repeats the moves its records say it made; a new block pays what waits.
    const stored = number <= this.o.mainHead().header.number;
    return this.list().flatMap((c) => {
      if (!isFlushBlock(c.stored.createdAt, c.spec.flushRound, number)) return [];
      return stored
        ? settledMoves(c.address, c.key, c.records, c.spec.exchangeRate, number)
        : withdrawMoves(c.address, c.key, c.records, c.spec.exchangeRate);
    });
  }

  servesPayer(payer: Uint8Array): boolean {
    return this.chains.has(bytesToHex(payer));
  }

  async beforeCommit(block: Block, receipts: Receipt[], applied: BalanceMove[]): Promise<CommitHook> {
    const release = await this.acquire();
    try {
      const changes: PreparedChange[] = [];
      for (const chain of this.chains.values()) {
        const change = await this.mainBlockChange(chain, block, receipts, applied);
        if (change) changes.push(change);
      }
      return {
        ops: changes.flatMap((c) => c.ops),
        done: (written) => {
          if (written) changes.forEach((c) => c.apply());
          release();
        },
      };
    } catch (err) {
      this.deps.nodes.discardWrites();
      release();
      throw err;
    }
  }

  /** New deposit records of the block and, at a flush, the settlement with its app-chain block. */
  private async mainBlockChange(chain: AppChain, block: Block, receipts: Receipt[], applied: BalanceMove[]) {
    const { number, timestamp } = block.header;
    if (number <= chain.stored.createdAt) return undefined;
    const created = depositsIn(block, receipts, chain.address).map((d) => ({
      kind: 'deposit' as const, user: d.user, amount: d.amount, time: timestamp, requestBlock: number,
    }));
    const updated: ExchangeRecord[] = [];
    let built;
    if (isFlushBlock(chain.stored.createdAt, chain.spec.flushRound, number)) {
      for (const move of applied) {
        const ref = move.ref as WithdrawRef;
        if (ref.chain === chain.key) updated.push(settle(chain.records[ref.seq], timestamp, number));
      }
      const credits = depositCredits(chain.records, chain.spec.exchangeRate, number);
      if (credits.length || updated.length) {
        built = await chain.build({ transactions: [], credits, timestamp });
        for (const seq of built.paid) updated.push(settle(chain.records[seq], timestamp, number));
        // Nothing settled (the DappBase cannot pay yet): no flush block.
        if (updated.length === 0) {
          this.deps.nodes.discardWrites();
          built = undefined;
        }
      }
    }
    if (created.length === 0 && built === undefined) return undefined;
    return chain.prepare(built, { created, updated });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.rounds;
    await this.acquire().then((release) => release(), () => undefined);
  }

  private now(): bigint {
    return this.o.now?.() ?? BigInt(Math.floor(Date.now() / 1000));
  }

  /** Waits for the lock; the returned function releases it. */
  private acquire(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    if (this.o.storeId && !this.idAwaited) {
      // The first writer holds the lock until the id is stored; a failure fails every write.
      this.idAwaited = true;
      const stored = this.o.storeId();
      this.tail = this.tail.then(() => stored.then(() => undefined, (err: Error) => void (this.idFailure = err)));
    }
    const ready = this.tail.then(() => {
      if (this.idFailure === undefined) return release;
      release();
      throw this.idFailure;
    });
    this.tail = this.tail.then(() => held);
    return ready;
  }
}

/** keccak256(rlp([scsId, kind, n]))[12:]: declared chains by config index, created ones by count. */
function deriveAddress(scsId: Uint8Array, kind: 'declared' | 'created', n: number): Uint8Array {
  return keccak256(RLP.encode([scsId, new TextEncoder().encode(kind), bigintToBytes(BigInt(n))])).slice(12);
}
