// The transaction pool: per-sender nonce-ordered transactions, `pending` (executable from the
// sender's state nonce without a gap) and `queued` (waiting behind a gap). Limits are hard caps
// (docs/methods.md#transaction-pool): global pending and queued, queued per account; a full pool makes room only by
// evicting a cheaper transaction of another sender. Every accepted transaction is in the on-disk
// journal (poolJournal.ts, a file written synchronously) before `add` resolves, so an
// acknowledged hash survives a crash. Transactions a head switch gave back are journaled in
// LevelDB by that switch; their entries leave it in the batch of the block that mines them.

import { EventEmitter } from 'node:events';
import type { SignedTx } from '../chain/types.js';
import { txRejected } from '../errors.js';
import { bytesToHex } from '../encoding/hex.js';
import { equalBytes } from '../encoding/bytes.js';
import type { BatchOp } from '../store/database.js';
import type { PoolEntries } from '../store/poolEntries.js';
import { PoolJournal } from './poolJournal.js';
import { mergeByPrice } from './ordering.js';
import { SenderTxs } from './senderTxs.js';
import { checkAccount, checkReplacement, checkStatic, txCost } from './validation.js';

export interface PoolAccountState {
  nonce: bigint;
  balance: bigint;
}

export interface PoolOptions {
  /** the lowest gas price accepted; a function when it can change at run time (miner_setGasPrice) */
  minGasPrice: bigint | (() => bigint);
  priceBump: bigint;
  globalSlots: number;
  globalQueue: number;
  accountQueue: number;
  /** state of an account at the current head */
  accountAt: (address: Uint8Array) => Promise<PoolAccountState>;
  blockGasLimit: () => bigint;
  /** seconds a sender's queued transactions are kept without activity of that sender; 0 = forever */
  lifetime?: number;
  /** the head's state root: accounts a block's builder handed over count while it is the head's */
  headRoot?: () => Uint8Array;
  /** the journal file (beside the database: `<datadir>/txpool.journal`) */
  journalPath: string;
}

/** Accounts in the state of a block just committed, read from its builder's post-state. */
export interface PostState {
  root: Uint8Array;
  accountAt: (address: Uint8Array) => Promise<PoolAccountState>;
}

export interface PoolContent {
  /** keyed by lower-case 0x sender, transactions in nonce order */
  pending: Map<string, SignedTx[]>;
  queued: Map<string, SignedTx[]>;
}

export class TxPool extends EventEmitter<{ pendingTx: [SignedTx]; dropped: [SignedTx] }> {
  private readonly senders = new Map<string, SenderTxs>();
  private readonly byHash = new Map<string, SignedTx>();
  /** senders with contiguous waiting transactions held back by the global pending cap */
  private readonly stalled = new Set<string>();
  private pendingTotal = 0;
  private queuedTotal = 0;
  /** pendingTransactions(), until the next change */
  private ordered: SignedTx[] | undefined;
  /** bumped on every new head, so an account read that spans one is repeated */
  private headVersion = 0;
  /** ms of each sender's last admitted or promoted transaction (geth's "beats") */
  private readonly beats = new Map<string, number>();
  /** removed by forgetMined without being mined; journal deletion follows in onNewHead */
  private readonly superseded: SignedTx[] = [];
  private readonly expiryTimer: NodeJS.Timeout | undefined;
  /**
   * Senders' accounts in the state of the last block this node built (see PostState): a sender
   * sending again right after its block needs no walk of the new head's state trie.
   */
  private built: { root: Uint8Array; accounts: Map<string, PoolAccountState> } | undefined;
  /** returns of rewound transactions, one at a time */
  private returning: Promise<void> = Promise.resolve();

  private readonly journal: PoolJournal;
  private closed = false;
  constructor(
    /** the LevelDB entries of transactions a head switch gave back */
    private readonly entries: PoolEntries,
    private readonly opts: PoolOptions,
  ) {
    super();
    this.journal = PoolJournal.open(opts.journalPath);
    const lifetime = opts.lifetime ?? 0;
    if (lifetime > 0) {
      const every = Math.min(lifetime, 60) * 1000;
      // A failed sweep (database closing) is retried by the next one.
      this.expiryTimer = setInterval(() => void this.expire(Date.now()).catch(() => undefined), every);
      this.expiryTimer.unref();
    }
  }

  /** Stops the expiry timer and closes the journal, leaving in it just what the pool holds (node shutdown). */
  close(): void {
    clearInterval(this.expiryTimer);
    if (this.closed) return;
    this.closed = true;
    try {
      this.journal.rewrite(this.byHash.values());
    } catch {
      // Only a shorter read at the next start is lost: the file as it stands is a valid journal.
    }
    this.journal.close();
  }

  get(hash: Uint8Array): SignedTx | undefined {
    return this.byHash.get(bytesToHex(hash));
  }

  get size(): number {
    return this.byHash.size;
  }

  counts(): { pending: number; queued: number } {
    return { pending: this.pendingTotal, queued: this.queuedTotal };
  }

  /**
   * Validates, journals and adds; throws a Refused NodeError with geth's words. `journal: false`
   * is for transactions read back from the journal.
   */
  async add(tx: SignedTx, journal = true): Promise<void> {
    const { minGasPrice } = this.opts;
    checkStatic(tx, {
      minGasPrice: typeof minGasPrice === 'function' ? minGasPrice() : minGasPrice,
      blockGasLimit: this.opts.blockGasLimit(),
    });
    const hashKey = bytesToHex(tx.hash);
    if (this.byHash.has(hashKey)) throw txRejected('already known');
    const state = await this.accountState(tx.from);

    // From here to the journal write nothing awaits: the checks and the insertion see one pool.
    if (this.byHash.has(hashKey)) throw txRejected('already known');
    const key = bytesToHex(tx.from);
    let s = this.senders.get(key);
    // The head may have moved before onNewHead caught up: trust the newer nonce.
    const stateNonce = s && s.stateNonce > state.nonce ? s.stateNonce : state.nonce;
    checkAccount(tx, stateNonce, state.balance);
    const existing = s?.txs.get(tx.nonce);
    let evicted: SignedTx | undefined;
    if (existing) checkReplacement(existing, tx, this.opts.priceBump);
    else evicted = this.makeRoom(s, key, tx, stateNonce);
    if (!s) {
      s = new SenderTxs(tx.from, stateNonce);
      this.senders.set(key, s);
    }
    const promoted = this.insert(s, key, tx, existing);
    this.beats.set(key, Date.now());

    const gone = existing && evicted ? [existing, evicted] : existing ? [existing] : evicted ? [evicted] : [];
    try {
      this.journal.record(journal ? [tx] : [], gone);
    } catch (err) {
      // Not journaled, so not acknowledged: take it back out.
      if (this.byHash.get(hashKey) === tx) this.emitAll('dropped', this.removeMany([tx]));
      throw err;
    }
    this.journal.compactIfLarge(() => this.byHash.values());
    // Rare: a replaced or evicted transaction a head switch had journaled in LevelDB.
    await this.entries.remove(gone);
    // The transaction may have been mined meanwhile; its (then stale) journal entry is dropped
    // by the revalidation at the next start.
    if (existing) this.emit('dropped', existing);
    if (evicted) this.emit('dropped', evicted);
    if (this.byHash.get(hashKey) === tx && this.senders.get(key)?.isPending(tx.nonce)) this.emit('pendingTx', tx);
    this.emitAll('pendingTx', promoted.filter((p) => p !== tx));
  }

  /** Reads the sender's account at the head, again if a new head arrived meanwhile. */
  private async accountState(address: Uint8Array): Promise<PoolAccountState> {
    const known = this.builtAccount(address);
    if (known) return known;
    for (;;) {
      const version = this.headVersion;
      const state = await this.opts.accountAt(address);
      if (version === this.headVersion) return state;
    }
  }

  /** The account from the built block's state, while that state is the head's (same root, same state). */
  private builtAccount(address: Uint8Array): PoolAccountState | undefined {
    const { built } = this;
    if (!built || !this.opts.headRoot || !equalBytes(built.root, this.opts.headRoot())) return undefined;
    return built.accounts.get(bytesToHex(address));
  }

  /** Checks the caps for a new nonce; returns the transaction evicted to make room, if any. */
  private makeRoom(s: SenderTxs | undefined, key: string, tx: SignedTx, stateNonce: bigint): SignedTx | undefined {
    const wouldBePending = tx.nonce === (s ? s.pendingEnd : stateNonce);
    if (wouldBePending) {
      if (this.pendingTotal < this.opts.globalSlots) return undefined;
      return this.evictCheaper(key, tx.gasPrice, (other) => other.pendingTail());
    }
    if ((s?.queuedCount ?? 0) >= this.opts.accountQueue) throw txRejected('txpool is full');
    if (this.queuedTotal < this.opts.globalQueue) return undefined;
    return this.evictCheaper(key, tx.gasPrice, (other) => other.queuedTail());
  }

  /**
   * Evicts the cheapest candidate of another sender when it pays less than `price`. Candidates
   * are each sender's last transaction of the full kind, so no sender is left with a gap.
   */
  private evictCheaper(key: string, price: bigint, candidate: (s: SenderTxs) => SignedTx | undefined): SignedTx {
    let cheapest: SignedTx | undefined;
    for (const [other, s] of this.senders) {
      if (other === key) continue;
      const tx = candidate(s);
      if (tx && (!cheapest || tx.gasPrice < cheapest.gasPrice)) cheapest = tx;
    }
    if (!cheapest || cheapest.gasPrice >= price) throw txRejected('txpool is full');
    this.removeMany([cheapest]);
    return cheapest;
  }

  /** Puts `tx` in place (replacing `existing`); returns the transactions that became pending. */
  private insert(s: SenderTxs, key: string, tx: SignedTx, existing: SignedTx | undefined): SignedTx[] {
    let promoted: SignedTx[] = [];
    const room = this.opts.globalSlots - this.pendingTotal;
    this.mutate(s, () => {
      if (existing) this.byHash.delete(bytesToHex(existing.hash));
      s.txs.set(tx.nonce, tx);
      this.byHash.set(bytesToHex(tx.hash), tx);
      if (!existing && tx.nonce === s.pendingEnd) promoted = s.promote(room);
    });
    this.markStalled(s, key);
    return promoted;
  }

  /** Keeps the global counters right around a change to one sender. */
  private mutate(s: SenderTxs, change: () => void): void {
    const pending = s.pendingCount;
    const queued = s.queuedCount;
    change();
    this.pendingTotal += s.pendingCount - pending;
    this.queuedTotal += s.queuedCount - queued;
    this.ordered = undefined;
  }

  private markStalled(s: SenderTxs, key: string): void {
    if (s.promotable && this.senders.get(key) === s) this.stalled.add(key);
    else this.stalled.delete(key);
  }

  /** Removes transactions (no journal writes, no events); queues over their caps are trimmed. */
  private removeMany(txs: SignedTx[]): SignedTx[] {
    const removed: SignedTx[] = [];
    const touched = new Set<string>();
    for (const tx of txs) {
      const key = bytesToHex(tx.from);
      const s = this.senders.get(key);
      if (!s || s.txs.get(tx.nonce) !== tx) continue;
      this.mutate(s, () => s.remove(tx.nonce));
      this.byHash.delete(bytesToHex(tx.hash));
      removed.push(tx);
      touched.add(key);
    }
    for (const key of touched) removed.push(...this.trimQueue(key));
    return removed;
  }

  /** After a demotion: drops a sender's last queued transactions while a queue cap is exceeded. */
  private trimQueue(key: string): SignedTx[] {
    const s = this.senders.get(key);
    if (!s) return [];
    const trimmed: SignedTx[] = [];
    while (s.queuedCount > 0 && (s.queuedCount > this.opts.accountQueue || this.queuedTotal > this.opts.globalQueue)) {
      const last = s.queuedTail()!;
      this.mutate(s, () => s.remove(last.nonce));
      this.byHash.delete(bytesToHex(last.hash));
      trimmed.push(last);
    }
    if (s.txs.size === 0) this.senders.delete(key);
    this.markStalled(s, key);
    return trimmed;
  }

  /** Promotes held-back transactions while the global pending cap has room. */
  private promoteStalled(): SignedTx[] {
    const promoted: SignedTx[] = [];
    for (const key of [...this.stalled]) {
      const room = this.opts.globalSlots - this.pendingTotal;
      if (room <= 0) break;
      const s = this.senders.get(key);
      if (s) this.mutate(s, () => promoted.push(...s.promote(room)));
      if (s) this.markStalled(s, key);
      else this.stalled.delete(key);
      this.beats.set(key, Date.now());
    }
    return promoted;
  }

  private emitAll(event: 'pendingTx' | 'dropped', txs: SignedTx[]): void {
    for (const tx of txs) this.emit(event, tx);
  }

  /** The next nonce for `sender` counting its executable pool transactions. */
  pendingNonce(sender: Uint8Array, stateNonce: bigint): bigint {
    const s = this.senders.get(bytesToHex(sender));
    if (!s) return stateNonce;
    const end = s.contiguousEnd();
    return end > stateNonce ? end : stateNonce;
  }

  content(): PoolContent {
    const pending = new Map<string, SignedTx[]>();
    const queued = new Map<string, SignedTx[]>();
    for (const [key, s] of this.senders) {
      if (s.pendingCount > 0) pending.set(key, s.pendingList());
      if (s.queuedCount > 0) queued.set(key, s.queuedList());
    }
    return { pending, queued };
  }

  /** Executable transactions in block order: nonce order per sender, best price first across senders. */
  pendingTransactions(): SignedTx[] {
    if (!this.ordered) {
      const lanes: SignedTx[][] = [];
      for (const s of this.senders.values()) if (s.pendingCount > 0) lanes.push(s.pendingList());
      this.ordered = lanes.length ? mergeByPrice(lanes) : [];
    }
    return this.ordered;
  }

  /**
   * LevelDB journal deletions for `txs` (those a head switch or an older journal put there), to
   * write in the batch of a block that mines them or when they are dropped. The file journal
   * needs none for mined transactions (see poolJournal.ts).
   */
  journalDeletes(txs: readonly SignedTx[]): BatchOp[] {
    return this.entries.deletions(txs);
  }

  /** Journals the removal of `txs` that left without being mined: in the file, and in LevelDB where they may be. */
  private async unjournal(txs: readonly SignedTx[]): Promise<void> {
    if (txs.length === 0) return;
    this.journal.record([], txs);
    await this.entries.remove(txs);
  }

  /**
   * The synchronous part of a new head: forgets the mined transactions at once. Subscribed to
   * the chain's announcement ahead of the pending-block cache, so that a pending block built
   * right after it never sees them. Idempotent.
   */
  forgetMined(mined: SignedTx[]): void {
    this.headVersion++;
    const next = new Map<string, bigint>();
    for (const tx of mined) {
      const key = bytesToHex(tx.from);
      if ((next.get(key) ?? -1n) <= tx.nonce) next.set(key, tx.nonce + 1n);
    }
    const minedHashes = new Set(mined.map((tx) => bytesToHex(tx.hash)));
    // Their LevelDB entries, if any, left in the block's own batch.
    this.entries.mined(minedHashes);
    for (const [key, nonce] of next) {
      // A pool transaction at a mined nonce but with another hash (replaced after the block's
      // work package was handed out) is gone too, and its journal entry must go.
      for (const tx of this.advanceSender(key, nonce)) if (!minedHashes.has(bytesToHex(tx.hash))) this.superseded.push(tx);
    }
  }

  /**
   * After a new head: forgets mined transactions, rereads the miners' accounts, drops what they
   * can no longer pay for, and promotes what the freed slots allow. `post` (a block this node
   * built or imported) gives the accounts from the block's own post-state, kept for admission.
   */
  async onNewHead(mined: SignedTx[], post?: PostState): Promise<void> {
    this.forgetMined(mined);
    const built = post ? { root: post.root, accounts: new Map<string, PoolAccountState>() } : undefined;
    this.built = built;
    const gone: SignedTx[] = [];
    const miners = new Map(mined.map((tx) => [bytesToHex(tx.from), tx.from]));
    for (const [key, from] of miners) {
      const s = this.senders.get(key);
      // A sender with nothing left here is read too when the post-state is at hand: its next
      // transaction (the usual case: one after another) is then admitted without a trie walk.
      if (!s && !built) continue;
      const state = post ? await post.accountAt(from) : await this.opts.accountAt(from);
      built?.accounts.set(key, state);
      if (!s || this.senders.get(key) !== s) continue;
      gone.push(...this.advanceSender(key, state.nonce));
      const unaffordable = [...s.txs.values()].filter((tx) => txCost(tx) > state.balance);
      gone.push(...this.removeMany(unaffordable));
    }
    const promoted = this.promoteStalled();
    const dropped = [...this.superseded.splice(0), ...gone];
    await this.unjournal(dropped);
    this.emitAll('dropped', dropped);
    this.emitAll('pendingTx', promoted);
  }

  private advanceSender(key: string, nonce: bigint): SignedTx[] {
    const s = this.senders.get(key);
    if (!s || nonce <= s.stateNonce) return [];
    let removed: SignedTx[] = [];
    this.mutate(s, () => (removed = s.advance(nonce)));
    for (const tx of removed) this.byHash.delete(bytesToHex(tx.hash));
    if (s.txs.size === 0) this.senders.delete(key);
    this.markStalled(s, key);
    return removed;
  }

  /**
   * Takes back the transactions of blocks that left the canonical chain (a rewind or a
   * reorganisation); each is revalidated at the new head and dropped if it no longer applies.
   * The head switch wrote their journal entries in its own batch. The senders' other pool
   * transactions are reinserted behind them, since their account nonce went back. With
   * `takeBack` false only those senders are brought in line with the new head.
   */
  returnRemoved(txs: SignedTx[], takeBack = true): Promise<void> {
    const users = txs.filter((tx) => tx.syscnt === 0n);
    // The switch journaled those it gave back in its LevelDB batch.
    if (takeBack) this.entries.returned(users);
    const job = this.returning.then(() => this.reinsert(users, takeBack));
    this.returning = job.catch(() => undefined);
    return job;
  }

  /** Resolves once every return started so far is done. */
  settled(): Promise<void> {
    return this.returning;
  }

  private async reinsert(removed: SignedTx[], takeBack: boolean): Promise<void> {
    if (removed.length === 0) return;
    this.headVersion++;
    const held: SignedTx[] = [];
    for (const key of new Set(removed.map((tx) => bytesToHex(tx.from)))) {
      const s = this.senders.get(key);
      if (s) held.push(...this.removeMany([...s.txs.values()]));
    }
    const heldHashes = new Set(held.map((tx) => bytesToHex(tx.hash)));
    const all = [...(takeBack ? removed : []), ...held].sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0));
    const dropped: SignedTx[] = [];
    for (const tx of all) {
      if (this.byHash.has(bytesToHex(tx.hash))) continue;
      try {
        await this.add(tx, false);
      } catch {
        dropped.push(tx);
      }
    }
    await this.unjournal(dropped);
    this.emitAll('dropped', dropped.filter((tx) => heldHashes.has(bytesToHex(tx.hash))));
  }

  /** Drops the queued transactions of senders idle for longer than `lifetime` (at time `now`, ms). */
  async expire(now: number): Promise<number> {
    const lifetime = (this.opts.lifetime ?? 0) * 1000;
    if (lifetime <= 0) return 0;
    const old: SignedTx[] = [];
    for (const [key, s] of this.senders) {
      if (s.queuedCount > 0 && now - (this.beats.get(key) ?? 0) > lifetime) old.push(...s.queuedList());
    }
    for (const key of this.beats.keys()) if (!this.senders.has(key)) this.beats.delete(key);
    if (old.length === 0) return 0;
    const removed = this.removeMany(old);
    await this.unjournal(removed);
    this.emitAll('dropped', removed);
    return removed.length;
  }

  /** Removes transactions that can never apply (found while building a block). */
  async drop(txs: SignedTx[]): Promise<void> {
    if (txs.length === 0) return;
    const removed = this.removeMany(txs);
    const promoted = this.promoteStalled();
    await this.unjournal([...txs, ...removed.filter((tx) => !txs.includes(tx))]);
    this.emitAll('dropped', removed);
    this.emitAll('pendingTx', promoted);
  }

  /**
   * Reloads the journal after a restart (the file's transactions and LevelDB's entries),
   * revalidating every one against the head state; then the file holds just what was restored.
   */
  async restore(decode: (raw: Uint8Array) => SignedTx): Promise<{ restored: number; dropped: number }> {
    const { txs, undecodable } = await this.entries.load(decode);
    const seen = new Set(txs.map((tx) => bytesToHex(tx.hash)));
    const stale: SignedTx[] = [];
    let staleInFile = 0;
    for (const raw of this.journal.takeRestored()) {
      try {
        const tx = decode(raw);
        if (!seen.has(bytesToHex(tx.hash))) txs.push(tx);
      } catch {
        staleInFile++;
      }
    }
    txs.sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0));
    let restored = 0;
    for (const tx of txs) {
      try {
        await this.add(tx, false);
        restored++;
      } catch {
        if (this.entries.has(tx)) stale.push(tx);
        else staleInFile++;
      }
    }
    await this.entries.remove(stale);
    this.journal.rewrite(this.byHash.values());
    return { restored, dropped: undecodable + stale.length + staleInFile };
  }
}
