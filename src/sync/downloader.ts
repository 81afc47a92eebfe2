// Full sync from one peer whose total difficulty exceeds ours: learn its head's number, find the
// common ancestor, then fetch headers (192 a request) and bodies (128 a request), up to three
// batches ahead of the one being verified and committed block by block through the one import
// path. A bad block or a broken header chain drops the peer; nothing of it is written.

import { EventEmitter } from 'node:events';
import type { Blockchain } from '../blockchain/blockchain.js';
import { encodeBlockFromRaw } from '../chain/block.js';
import { InvalidBlock } from '../importer/verifyBlock.js';
import { equalBytes } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import { Msg } from '../p2p/mcMessages.js';
import { MAX_BODIES, MAX_HEADERS, MalformedMessage, decodeBodies, decodeHeaders, encodeGetHeaders, type WireHeader } from '../p2p/messages.js';
import type { BlockImport, IncomingBlock, SyncPeer } from './types.js';

export interface SyncProgress {
  startingBlock: bigint;
  currentBlock: bigint;
  highestBlock: bigint;
}

type Log = { info(msg: string, ctx?: object): void; warn(msg: string, ctx?: object): void };

/** The peer sent something inconsistent (drops it). */
class PeerFault extends Error {}

const MAX_ANCESTOR_ROUNDS = 64;
/** Header batches in flight during a sync (a peer queues up to 16 requests of each kind). */
const FETCH_AHEAD = 3;

/** Headers asked for in the batch starting at `from`. */
function batchSize(from: bigint, highest: bigint): number {
  const left = highest - from + 1n;
  return Number(left < BigInt(MAX_HEADERS) ? left : BigInt(MAX_HEADERS));
}

/** `'syncing'`: progress when a sync starts and after every batch, false when it ends (subscriptions). */
export class Downloader extends EventEmitter<{ syncing: [SyncProgress | false] }> {
  private active?: { peer: SyncPeer; starting: bigint; highest: bigint };
  private queue?: SyncPeer;

  constructor(
    private readonly chain: Blockchain,
    private readonly importer: BlockImport,
    private readonly log: Log,
  ) {
    super();
  }

  /** mc_syncing's answer: undefined once in step with the best peer. */
  progress(): SyncProgress | undefined {
    const a = this.active;
    if (!a) return undefined;
    const current = this.chain.head.header.number;
    return { startingBlock: a.starting, currentBlock: current, highestBlock: a.highest > current ? a.highest : current };
  }

  get syncing(): boolean {
    return this.active !== undefined;
  }

  /** Syncs with `peer` when it has more total difficulty; one sync runs at a time. */
  async maybeSync(peer: SyncPeer): Promise<void> {
    if (!(await this.isAhead(peer))) return;
    if (this.active) {
      if (!this.queue || this.queue.td < peer.td) this.queue = peer;
      return;
    }
    this.active = { peer, starting: this.chain.head.header.number, highest: 0n };
    this.emit('syncing', this.progress()!);
    try {
      for (let next: SyncPeer | undefined = peer; next; ) {
        this.active.peer = next;
        await this.run(next);
        next = this.queue;
        this.queue = undefined;
        if (next && !(await this.isAhead(next))) next = undefined;
      }
    } finally {
      this.active = undefined;
      this.emit('syncing', false);
    }
  }

  private async isAhead(peer: SyncPeer): Promise<boolean> {
    if (peer.closed) return false;
    const ours = (await this.chain.getTotalDifficulty(this.chain.head.hash)) ?? 0n;
    return peer.td > ours;
  }

  private async run(peer: SyncPeer): Promise<void> {
    try {
      // The peer may move on while we sync: go again while it stays ahead.
      for (let round = 0; round < 16 && (await this.isAhead(peer)); round++) {
        if (!(await this.syncRound(peer))) return;
      }
    } catch (err) {
      if (err instanceof PeerFault || err instanceof MalformedMessage) peer.drop(err.message);
      else if (err instanceof InvalidBlock) peer.drop(`invalid block: ${err.reason}`);
      else if (!peer.closed) this.log.warn('sync failed', { peer: peer.id.slice(0, 16), error: (err as Error).message });
    }
  }

  private async headers(peer: SyncPeer, origin: bigint | Uint8Array, amount: number): Promise<WireHeader[]> {
    const reply = await peer.request(Msg.GetBlockHeaders, encodeGetHeaders({ origin, amount, skip: 0, reverse: false }));
    const headers = decodeHeaders(reply);
    if (headers.length > amount) throw new PeerFault('more headers than requested');
    return headers;
  }

  /** false when nothing more can be done with this peer now */
  private async syncRound(peer: SyncPeer): Promise<boolean> {
    const [top] = await this.headers(peer, peer.head, 1);
    if (!top || !equalBytes(top.hash, peer.head)) throw new PeerFault('does not serve its own head');
    const highest = top.header.number;
    if (this.active && highest > this.active.highest) this.active.highest = highest;
    const ancestor = await this.findAncestor(peer, highest);
    if (ancestor < this.chain.head.header.number && !this.importer.reorgs) {
      this.log.info('peer is on another branch; switching branches is not possible here', { peer: peer.id.slice(0, 16), ancestor });
      return false;
    }
    this.log.info('syncing', { peer: peer.id.slice(0, 16), from: ancestor + 1n, to: highest });
    let parentHash = (await this.chain.getHashByNumber(ancestor))!;
    let from = ancestor + 1n;
    // Batches requested ahead of the one being imported, so the serving peer keeps working while
    // we verify; a short batch (the peer sent fewer headers) makes the later ones start again.
    const ahead: { amount: number; blocks: Promise<IncomingBlock[]> }[] = [];
    let requested = from;
    const fill = () => {
      while (ahead.length < FETCH_AHEAD && requested <= highest) {
        const amount = batchSize(requested, highest);
        const blocks = this.fetchBatch(peer, requested, highest);
        blocks.catch(() => undefined); // awaited in its turn; a failure now must not go unhandled
        ahead.push({ amount, blocks });
        requested += BigInt(amount);
      }
    };
    fill();
    while (ahead.length > 0) {
      const batch = ahead.shift()!;
      const blocks = await batch.blocks;
      if (blocks.length === 0) throw new PeerFault('sent no headers for its chain');
      from += BigInt(blocks.length);
      if (blocks.length < batch.amount) {
        ahead.length = 0;
        requested = from;
      }
      fill();
      if (this.active && highest > this.active.highest) this.active.highest = highest;
      for (const block of blocks) {
        if (!equalBytes(block.header.parentHash, parentHash)) throw new PeerFault(`header #${block.header.number} does not link to its parent`);
        parentHash = block.hash;
      }
      if (!(await this.importRun(blocks))) return false;
      const progress = this.progress();
      if (progress) this.emit('syncing', progress);
    }
    return true;
  }

  /** Imports a linked batch; false when our head moved meanwhile and this import path cannot switch branches. */
  private async importRun(blocks: IncomingBlock[]): Promise<boolean> {
    const orphan = (b: IncomingBlock) => new PeerFault(`block #${b.header.number} has no known parent`);
    if (this.importer.importBlocks && this.importer.reorgs) {
      const outcomes = await this.importer.importBlocks(blocks);
      if (outcomes.includes('orphan')) throw orphan(blocks[outcomes.indexOf('orphan')]);
      return true;
    }
    for (const block of blocks) {
      const outcome = await this.importer.importBlock(block);
      if (outcome === 'orphan') throw orphan(block);
      if (outcome === 'side' && !this.importer.reorgs) return false;
    }
    return true;
  }

  private async fetchBatch(peer: SyncPeer, from: bigint, highest: bigint): Promise<IncomingBlock[]> {
    const amount = batchSize(from, highest);
    const headers = await this.headers(peer, from, amount);
    headers.forEach((h, i) => {
      if (h.header.number !== from + BigInt(i)) throw new PeerFault('headers out of sequence');
    });
    const blocks: IncomingBlock[] = [];
    while (blocks.length < headers.length) {
      const wanted = headers.slice(blocks.length, blocks.length + MAX_BODIES);
      const reply = await peer.request(Msg.GetBlockBodies, wanted.map((h) => h.hash));
      const bodies = decodeBodies(reply);
      if (bodies.length === 0 || bodies.length > wanted.length) throw new PeerFault('sent no bodies or too many');
      bodies.forEach((rawTxs, i) => {
        const { header, hash, encoded } = wanted[i];
        blocks.push({ header, hash, rawTxs, encoded: encodeBlockFromRaw(encoded, rawTxs) });
      });
    }
    return blocks;
  }

  /** Highest block number where our canonical chain and the peer's agree. */
  private async findAncestor(peer: SyncPeer, peerHighest: bigint): Promise<bigint> {
    const local = this.chain.head.header.number;
    let hi = local < peerHighest ? local : peerHighest;
    // Usually the peer simply extends our head: one header tells.
    const [probe] = await this.headers(peer, hi, 1);
    const ours = await this.chain.getHashByNumber(hi);
    if (probe && ours && probe.header.number === hi && equalBytes(probe.hash, ours)) return hi;
    for (let round = 0; round < MAX_ANCESTOR_ROUNDS; round++) {
      const from = hi >= BigInt(MAX_HEADERS - 1) ? hi - BigInt(MAX_HEADERS - 1) : 0n;
      const headers = await this.headers(peer, from, Number(hi - from + 1n));
      for (let i = headers.length - 1; i >= 0; i--) {
        const n = headers[i].header.number;
        if (n !== from + BigInt(i)) throw new PeerFault('headers out of sequence');
        const ours = await this.chain.getHashByNumber(n);
        if (ours && equalBytes(ours, headers[i].hash)) return n;
      }
      if (from === 0n) throw new PeerFault(`no common block (genesis ${bytesToHex(this.chain.genesis.hash)})`);
      hi = from - 1n;
    }
    throw new PeerFault('common ancestor too deep');
  }
}
