// One connected mc/63 peer past the RLPx handshake: the Status exchange, requests and their
// replies (mc/63 has no request ids, so one request of each reply kind is outstanding at a time
// and replies come in order), per-peer known-hash sets, and dropping a misbehaving peer.

import { EventEmitter } from 'node:events';
import type { Peer } from '@ethereumjs/devp2p';
import { bigintToBytes } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import { MalformedMessage, uint } from './messages.js';
import { Msg } from './mcMessages.js';
import type { McProtocol } from './mcProtocol.js';

/** A request unanswered this long drops the peer. */
export const REQUEST_TIMEOUT_MS = 10_000;
const KNOWN_BLOCKS = 1024;
const KNOWN_TXS = 32_768;
/** Requests waiting behind the outstanding one, per kind. */
const MAX_QUEUED = 16;

type Item = Uint8Array | Item[];

const REPLY_OF = new Map<number, number>([
  [Msg.GetBlockHeaders, Msg.BlockHeaders],
  [Msg.GetBlockBodies, Msg.BlockBodies],
  [Msg.GetReceipts, Msg.Receipts],
  [Msg.GetNodeData, Msg.NodeData],
]);
const REPLIES = new Set(REPLY_OF.values());

/** Insertion-ordered set that forgets its oldest entries past `limit`. */
export class BoundedSet {
  private readonly items = new Set<string>();
  constructor(private readonly limit: number) {}
  add(key: string): void {
    this.items.delete(key);
    this.items.add(key);
    if (this.items.size > this.limit) this.items.delete(this.items.values().next().value!);
  }
  has(key: string): boolean {
    return this.items.has(key);
  }
  get size(): number {
    return this.items.size;
  }
}

interface Pending {
  payload: Item;
  resolve: (reply: Item) => void;
  reject: (err: Error) => void;
  timer?: NodeJS.Timeout;
}

export interface PeerInfo {
  id: string;
  name: string;
  caps: string[];
  localAddress: string;
  remoteAddress: string;
  inbound: boolean;
  static: boolean;
  td: bigint;
  head: Uint8Array;
}

export class PeerGone extends Error {}

export class McPeer extends EventEmitter<{ message: [code: number, payload: Item]; drop: [reason: string] }> {
  readonly id: string;
  readonly knownBlocks = new BoundedSet(KNOWN_BLOCKS);
  readonly knownTxs = new BoundedSet(KNOWN_TXS);
  td = 0n;
  head: Uint8Array = new Uint8Array(32);
  private statusDone = false;
  private gone = false;
  private readonly queues = new Map<number, Pending[]>();

  constructor(
    private readonly peer: Peer,
    private readonly protocol: McProtocol,
    readonly inbound: boolean,
    public isStatic: boolean,
  ) {
    super();
    this.id = Buffer.from(peer.getId()!).toString('hex');
    protocol.events.on('message', (code: number, payload: unknown) => this.onMessage(code, payload as Item));
  }

  /**
   * Sends our Status; `onReady` runs synchronously when the peer's Status arrives (the library
   * checks network id and genesis), so that a message following in the same packet already
   * finds its handler.
   */
  handshake(status: { td: bigint; head: Uint8Array; genesis: Uint8Array }, onReady: () => void): void {
    this.protocol.events.once('status', (s: { td: Uint8Array; bestHash: Uint8Array }) => {
      try {
        this.td = uint(s.td, 'status td');
        if (s.bestHash.length !== 32) throw new MalformedMessage('status head: expected 32 bytes');
        this.head = s.bestHash;
      } catch (err) {
        return this.drop(`bad status: ${(err as Error).message}`);
      }
      this.statusDone = true;
      onReady();
    });
    try {
      // When the peer's Status came first, the library compares them here and throws on a mismatch.
      this.protocol.sendStatus({ td: bigintToBytes(status.td), bestHash: status.head, genesisHash: status.genesis });
    } catch (err) {
      this.drop(`status refused: ${(err as Error).message}`);
    }
  }

  get ready(): boolean {
    return this.statusDone && !this.gone;
  }

  info(): PeerInfo {
    const socket = (this.peer as unknown as { _socket: { localAddress?: string; localPort?: number; remoteAddress?: string; remotePort?: number } })._socket;
    const hello = this.peer.getHelloMessage();
    return {
      id: this.id,
      name: hello?.clientId ?? '',
      caps: (hello?.capabilities ?? []).map((c) => `${c.name}/${c.version}`),
      localAddress: `${socket.localAddress}:${socket.localPort}`,
      remoteAddress: `${socket.remoteAddress}:${socket.remotePort}`,
      inbound: this.inbound,
      static: this.isStatic,
      td: this.td,
      head: this.head,
    };
  }

  send(code: number, payload: Item): void {
    if (this.gone) return;
    try {
      this.protocol.sendMessage(code as never, payload as never);
    } catch (err) {
      this.drop(`send failed: ${(err as Error).message}`);
    }
  }

  /** Sends a request; resolves with the reply's payload, rejects if the peer goes or stalls. */
  request(code: number, payload: Item): Promise<Item> {
    const replyCode = REPLY_OF.get(code)!;
    if (this.gone) return Promise.reject(new PeerGone(`peer ${this.id.slice(0, 8)} is gone`));
    let queue = this.queues.get(replyCode);
    if (!queue) this.queues.set(replyCode, (queue = []));
    if (queue.length > MAX_QUEUED) return Promise.reject(new Error('too many requests queued'));
    return new Promise((resolve, reject) => {
      queue.push({ payload, resolve, reject });
      if (queue.length === 1) this.dispatch(code, queue[0]);
    });
  }

  private dispatch(code: number, p: Pending): void {
    p.timer = setTimeout(() => this.drop('request timed out'), REQUEST_TIMEOUT_MS);
    this.send(code, p.payload);
  }

  private onMessage(code: number, payload: Item): void {
    if (this.gone) return;
    // The library handles Status itself (a second one is a protocol error there).
    if (code === Msg.Status) return;
    if (!this.statusDone) return this.drop(`message ${code} before Status`);
    if (REPLIES.has(code)) {
      const queue = this.queues.get(code);
      const p = queue?.shift();
      if (!p) return this.drop(`unrequested reply ${code}`);
      clearTimeout(p.timer);
      p.resolve(payload);
      const next = queue![0];
      if (next) this.dispatch([...REPLY_OF].find(([, r]) => r === code)![0], next);
      return;
    }
    this.emit('message', code, payload);
  }

  /** Misbehaviour: fails outstanding requests and tells the host (which disconnects and bans). */
  drop(reason: string): void {
    if (this.gone) return;
    this.close(reason);
    this.emit('drop', reason);
  }

  /** The connection ended: outstanding requests fail. */
  close(reason = 'disconnected'): void {
    if (this.gone) return;
    this.gone = true;
    for (const queue of this.queues.values()) {
      for (const p of queue) {
        clearTimeout(p.timer);
        p.reject(new PeerGone(`peer ${this.id.slice(0, 8)} gone: ${reason}`));
      }
    }
    this.queues.clear();
  }

  get closed(): boolean {
    return this.gone;
  }

  override toString(): string {
    return `${this.id.slice(0, 16)}@${this.info().remoteAddress} head ${bytesToHex(this.head).slice(0, 10)}`;
  }
}
