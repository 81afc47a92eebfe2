// The node's side of mc/63 once a peer is past Status: serve its requests, take its new blocks
// and transactions, sync from it when it is ahead, and propagate our new heads (NewBlock to √n
// peers, NewBlockHashes to the rest) and pool transactions (to peers not known to have them).

import type { Blockchain } from '../blockchain/blockchain.js';
import type { Block, SignedTx } from '../chain/types.js';
import { InvalidBlock } from '../importer/verifyBlock.js';
import { keccak256 } from '../encoding/bytes.js';
import { bigintToBytes } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import { Msg } from '../p2p/mcMessages.js';
import {
  MalformedMessage, decodeBodies, decodeGetHeaders, decodeHashList, decodeHeaders, decodeNewBlock, decodeNewBlockHashes,
  decodeTransactions, encodeGetHeaders, headerItem, txItem,
} from '../p2p/messages.js';
import type { TxPool } from '../txpool/txPool.js';
import { Downloader } from './downloader.js';
import { serveBodies, serveHeaders, serveReceipts } from './serve.js';
import type { BlockImport, IncomingBlock, Item, SyncPeer } from './types.js';
import { RLP } from '@ethereumjs/rlp';

export interface PeerSource {
  peers(): SyncPeer[];
  on(event: 'peer' | 'peerGone', listener: (peer: SyncPeer) => void): unknown;
}

export interface SyncDeps {
  host: PeerSource;
  chain: Blockchain;
  pool: TxPool;
  importer: BlockImport;
  decodeTx: (raw: Uint8Array) => SignedTx;
  log: { info(msg: string, ctx?: object): void; warn(msg: string, ctx?: object): void; debug(msg: string, ctx?: object): void };
}

/** Requests from one peer waiting to be served; more is a flood and drops it. */
const MAX_SERVE_BACKLOG = 32;
const TX_BATCH = 256;
const MAX_FETCHED_ANNOUNCEMENTS = 8;

const key = (hash: Uint8Array): string => bytesToHex(hash);

export class SyncService {
  readonly downloader: Downloader;
  private readonly serving = new Map<SyncPeer, { chain: Promise<void>; waiting: number }>();
  private txOutbox: SignedTx[] = [];
  private txFlush?: NodeJS.Immediate;

  constructor(private readonly deps: SyncDeps) {
    this.downloader = new Downloader(deps.chain, deps.importer, deps.log);
    deps.host.on('peer', (peer) => this.onPeer(peer));
    deps.host.on('peerGone', (peer) => this.serving.delete(peer));
    deps.chain.on('newHead', ({ block }) => {
      if (!this.downloader.syncing) void this.announce(block);
    });
    deps.pool.on('pendingTx', (tx) => this.queueTx(tx));
  }

  private onPeer(peer: SyncPeer): void {
    peer.on('message', (code, payload) => {
      this.onMessage(peer, code, payload).catch((err) => {
        if (err instanceof MalformedMessage) peer.drop(`malformed message ${code}: ${err.message}`);
        else if (err instanceof InvalidBlock) peer.drop(`invalid block: ${err.reason}`);
        else if (!peer.closed) this.deps.log.warn('peer message failed', { code, error: (err as Error).message });
      });
    });
    this.sendTxs(peer, this.deps.pool.pendingTransactions());
    void this.sync(peer);
  }

  private async sync(peer: SyncPeer): Promise<void> {
    const before = this.deps.chain.head;
    await this.downloader.maybeSync(peer);
    const head = this.deps.chain.head;
    if (head !== before && !this.downloader.syncing) await this.announce(head);
  }

  private async onMessage(peer: SyncPeer, code: number, payload: Item): Promise<void> {
    switch (code) {
      case Msg.Status:
        return peer.drop('second Status');
      case Msg.GetBlockHeaders: {
        const req = decodeGetHeaders(payload);
        return this.serve(peer, Msg.BlockHeaders, () => serveHeaders(this.deps.chain, req));
      }
      case Msg.GetBlockBodies: {
        const hashes = decodeHashList(payload, 'GetBlockBodies');
        return this.serve(peer, Msg.BlockBodies, () => serveBodies(this.deps.chain, hashes));
      }
      case Msg.GetReceipts: {
        const hashes = decodeHashList(payload, 'GetReceipts');
        return this.serve(peer, Msg.Receipts, () => serveReceipts(this.deps.chain, hashes));
      }
      case Msg.GetNodeData:
        decodeHashList(payload, 'GetNodeData');
        // State sync is not offered: an empty answer, as eth/63 allows.
        return this.serve(peer, Msg.NodeData, async () => []);
      case Msg.NewBlock:
        return this.onNewBlock(peer, payload);
      case Msg.NewBlockHashes:
        return this.onAnnounce(peer, payload);
      case Msg.Transactions:
        return this.onTransactions(peer, payload);
      default:
        return peer.drop(`unexpected message ${code}`);
    }
  }

  /** Replies go out in request order (mc/63 has no request ids). */
  private serve(peer: SyncPeer, replyCode: number, answer: () => Promise<Item[]>): Promise<void> {
    let s = this.serving.get(peer);
    if (!s) this.serving.set(peer, (s = { chain: Promise.resolve(), waiting: 0 }));
    if (s.waiting >= MAX_SERVE_BACKLOG) {
      peer.drop('too many requests at once');
      return Promise.resolve();
    }
    s.waiting++;
    const state = s;
    state.chain = state.chain.then(async () => {
      try {
        const reply = await answer();
        peer.send(replyCode, reply);
      } finally {
        state.waiting--;
      }
    });
    return state.chain;
  }

  private async onNewBlock(peer: SyncPeer, payload: Item): Promise<void> {
    const { block: wire, td } = decodeNewBlock(payload);
    const block: IncomingBlock = { header: wire.header.header, hash: wire.header.hash, rawTxs: wire.rawTxs, encoded: wire.encoded };
    peer.knownBlocks.add(key(block.hash));
    if (td > peer.td) {
      peer.td = td;
      peer.head = block.hash;
    }
    await this.take(peer, block);
  }

  /** A block from a peer: import it when its parent is stored, else sync from that peer. */
  private async take(peer: SyncPeer, block: IncomingBlock): Promise<void> {
    const outcome = await this.deps.importer.importBlock(block);
    if (outcome === 'orphan' || (outcome === 'side' && !this.deps.importer.reorgs)) void this.sync(peer);
  }

  private async onAnnounce(peer: SyncPeer, payload: Item): Promise<void> {
    const head = this.deps.chain.head.header.number;
    // Only the first few unknown announcements are fetched: a flood costs the sender, not us.
    for (const { hash, number } of decodeNewBlockHashes(payload).slice(0, MAX_FETCHED_ANNOUNCEMENTS)) {
      peer.knownBlocks.add(key(hash));
      if (number <= head || (await this.deps.chain.getBlockByHash(hash))) continue;
      const headers = decodeHeaders(await peer.request(Msg.GetBlockHeaders, encodeGetHeaders({ origin: hash, amount: 1, skip: 0, reverse: false })));
      const h = headers[0];
      if (!h || headers.length !== 1 || key(h.hash) !== key(hash)) return peer.drop('announced block not served');
      const [rawTxs] = decodeBodies(await peer.request(Msg.GetBlockBodies, [hash]));
      if (!rawTxs) return peer.drop('announced block body not served');
      const parentTd = await this.deps.chain.getTotalDifficulty(h.header.parentHash);
      const td = parentTd !== undefined ? parentTd + h.header.difficulty : undefined;
      if (td !== undefined && td > peer.td) {
        peer.td = td;
        peer.head = hash;
      } else if (td === undefined) {
        // A block on a branch we lack: its weight is unknown until we sync, so try that peer.
        peer.head = hash;
        peer.td = ((await this.deps.chain.getTotalDifficulty(this.deps.chain.head.hash)) ?? 0n) + 1n;
      }
      const encoded = RLP.encode([headerItem(h.header), rawTxs.map((tx) => RLP.decode(tx)), []] as never);
      await this.take(peer, { header: h.header, hash, rawTxs, encoded });
    }
  }

  private async onTransactions(peer: SyncPeer, payload: Item): Promise<void> {
    for (const raw of decodeTransactions(payload)) {
      const hash = keccak256(raw);
      peer.knownTxs.add(key(hash));
      if (this.deps.pool.get(hash)) continue; // no signature recovery for what the pool holds
      let tx: SignedTx;
      try {
        tx = this.deps.decodeTx(raw);
      } catch (err) {
        throw new MalformedMessage(`transaction ${bytesToHex(hash)}: ${(err as Error).message}`);
      }
      // Already known, underpriced, nonce too low…: the pool's verdict, not the peer's fault.
      await this.deps.pool.add(tx).catch(() => undefined);
    }
  }

  private queueTx(tx: SignedTx): void {
    this.txOutbox.push(tx);
    this.txFlush ??= setImmediate(() => {
      this.txFlush = undefined;
      const txs = this.txOutbox;
      this.txOutbox = [];
      for (const peer of this.deps.host.peers()) this.sendTxs(peer, txs);
    });
  }

  private sendTxs(peer: SyncPeer, txs: SignedTx[]): void {
    const fresh = txs.filter((tx) => !peer.knownTxs.has(key(tx.hash)));
    for (let i = 0; i < fresh.length; i += TX_BATCH) {
      const batch = fresh.slice(i, i + TX_BATCH);
      batch.forEach((tx) => peer.knownTxs.add(key(tx.hash)));
      peer.send(Msg.Transactions, batch.map((tx) => txItem(tx.raw)));
    }
  }

  /** A new head: the whole block to √n peers, its hash to the others; none to those that have it. */
  private async announce(block: Block): Promise<void> {
    // Alone (a dev node): no read of the TD, no encoding.
    if (this.deps.host.peers().length === 0) return;
    const td = await this.deps.chain.getTotalDifficulty(block.hash);
    if (td === undefined) return;
    const all = this.deps.host.peers();
    const lacking = all.filter((p) => !p.knownBlocks.has(key(block.hash)));
    const full = Math.ceil(Math.sqrt(all.length));
    const item: Item = [headerItem(block.header), block.transactions.map((tx) => txItem(tx.raw)), []];
    lacking.forEach((peer, i) => {
      peer.knownBlocks.add(key(block.hash));
      if (i < full) peer.send(Msg.NewBlock, [item, bigintToBytes(td)]);
      else peer.send(Msg.NewBlockHashes, [[block.hash, bigintToBytes(block.header.number)]]);
    });
  }
}
