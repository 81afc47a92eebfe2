// The RLPx endpoint: a TCP listener and dialer whose connections run the library's RLPx peer
// (ECIES handshake, Hello, framing, ping) with the mc/63 capability. This file owns the
// connection rules: at most `maxPeers`, one connection per node (of two simultaneous ones, both
// sides keep the one dialed by the lower node id), a 10 s handshake limit, bans for
// misbehaving peers, and static peers redialed with backoff.

import net from 'node:net';
import { EventEmitter } from 'node:events';
import { Peer, DISCONNECT_REASON } from '@ethereumjs/devp2p';
import type { Enode } from '../admin/enode.js';
import { nodeIdOf } from '../admin/nodeKey.js';
import { McPeer } from './peer.js';
import { MAX_MESSAGE_BYTES } from './mcMessages.js';
import { MC_CAPABILITY, McProtocol } from './mcProtocol.js';

export const HANDSHAKE_TIMEOUT_MS = 10_000;
export const BAN_MS = 60_000;
export const REDIAL_MIN_MS = 5_000;
export const REDIAL_MAX_MS = 60_000;

export interface HostOptions {
  nodeKey: Uint8Array;
  networkId: bigint;
  genesis: Uint8Array;
  clientId: string;
  maxPeers: number;
  /** our Status at the moment a peer connects */
  status: () => Promise<{ td: bigint; head: Uint8Array }>;
  log: { info(msg: string, ctx?: object): void; debug(msg: string, ctx?: object): void };
}

interface StaticEntry {
  enode: Enode;
  delay: number;
  timer?: NodeJS.Timeout;
}

interface Conn {
  peer: Peer;
  socket: net.Socket;
  outbound: boolean;
  mc?: McPeer;
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

export class P2pHost extends EventEmitter<{ peer: [McPeer]; peerGone: [McPeer] }> {
  readonly id: Uint8Array;
  private server?: net.Server;
  /** connections past Hello, by node id */
  private readonly conns = new Map<string, Conn>();
  /** sockets not yet past Hello */
  private readonly handshaking = new Set<net.Socket>();
  private readonly dialing = new Set<string>();
  private readonly statics = new Map<string, StaticEntry>();
  private readonly bans = new Map<string, number>();
  private stopped = false;
  port = 0;

  constructor(private readonly opts: HostOptions) {
    super();
    this.id = nodeIdOf(opts.nodeKey);
  }

  /**
   * Takes over a bound listener (network.ts binds it before this module and the devp2p library
   * load) and the connections it accepted meanwhile, which waited unread.
   */
  adopt(server: net.Server, waiting: net.Socket[]): void {
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
    server.on('connection', (socket) => this.onInbound(socket));
    server.on('error', (err) => this.opts.log.info('p2p listener error', { error: err.message }));
    for (const socket of waiting) if (!socket.destroyed) this.onInbound(socket);
  }

  /** Peers past Status. */
  peers(): McPeer[] {
    return [...this.conns.values()].flatMap((c) => (c.mc?.ready ? [c.mc] : []));
  }

  private get slotsUsed(): number {
    return this.conns.size + this.handshaking.size;
  }

  private onInbound(socket: net.Socket): void {
    if (this.stopped || this.slotsUsed >= this.opts.maxPeers + 2) {
      socket.destroy();
      return;
    }
    this.attach(socket, null);
  }

  /** Dials `enode` unless connected, dialing or banned. */
  dial(enode: Enode): void {
    const key = hex(enode.id);
    if (this.stopped || this.conns.has(key) || this.dialing.has(key) || key === hex(this.id)) return;
    if (!this.statics.has(key) && this.isBanned(key)) return;
    if (this.slotsUsed >= this.opts.maxPeers) return this.scheduleRedial(key);
    this.dialing.add(key);
    const socket = net.connect({ host: enode.host, port: enode.port });
    let connected = false;
    socket.on('error', () => undefined); // reported through 'close'
    socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () => socket.destroy());
    socket.once('connect', () => {
      connected = true;
      socket.setTimeout(0);
      this.dialing.delete(key);
      this.attach(socket, enode.id);
    });
    socket.once('close', () => {
      if (connected) return;
      this.dialing.delete(key);
      this.scheduleRedial(key);
    });
  }

  private attach(socket: net.Socket, remoteId: Uint8Array | null): void {
    socket.setNoDelay(true);
    socket.on('error', () => undefined); // reported through 'close'
    this.handshaking.add(socket);
    const peer = new Peer({
      socket,
      remoteId: remoteId as Uint8Array,
      privateKey: this.opts.nodeKey,
      id: this.id,
      timeout: HANDSHAKE_TIMEOUT_MS,
      clientId: new TextEncoder().encode(this.opts.clientId),
      capabilities: [MC_CAPABILITY],
      // The mc protocol's Status carries the network id where eth's carries the chain id.
      common: { chainId: () => this.opts.networkId, customCrypto: {} } as never,
      port: this.port,
    });
    this.guard(socket, peer);
    const handshakeTimer = setTimeout(() => socket.destroy(), HANDSHAKE_TIMEOUT_MS);
    let conn: Conn | undefined;
    peer.events.once('connect', () => {
      clearTimeout(handshakeTimer);
      this.handshaking.delete(socket);
      conn = { peer, socket, outbound: remoteId !== null };
      if (!this.admit(conn)) conn = undefined;
    });
    peer.events.on('error', (err: Error) => {
      this.opts.log.debug('p2p peer error', { error: err.message });
      // Socket errors (a reset by a restarting peer) end the connection without blame.
      if (/^E[A-Z]+$/.test(String((err as NodeJS.ErrnoException).code))) return;
      if (conn?.mc) this.misbehaved(conn, err.message);
      else setTimeout(() => socket.destroy(), 100);
    });
    socket.once('close', () => {
      clearTimeout(handshakeTimer);
      this.handshaking.delete(socket);
      if (!conn) {
        if (remoteId) this.scheduleRedial(hex(remoteId));
        return;
      }
      const key = hex(peer.getId()!);
      if (this.conns.get(key) === conn) this.conns.delete(key);
      if (conn.mc) {
        const wasReady = conn.mc.ready;
        conn.mc.close();
        if (wasReady) this.emit('peerGone', conn.mc);
      }
      if (!this.conns.has(key)) this.scheduleRedial(key);
    });
  }

  /**
   * The library parses socket data in its own listener; a throw there (garbage before the
   * handshake) must end this socket, not the process, and an announced frame over the size
   * limit ends it before the frame is buffered.
   */
  private guard(socket: net.Socket, peer: Peer): void {
    const internals = peer as unknown as { _state: string; _nextPacketSize: number };
    const listeners = socket.listeners('data') as ((d: Buffer) => void)[];
    socket.removeAllListeners('data');
    socket.on('data', (data: Buffer) => {
      try {
        for (const l of listeners) l(data);
        if (internals._state === 'Body' && internals._nextPacketSize > MAX_MESSAGE_BYTES + 64) throw new Error('frame too large');
      } catch {
        socket.destroy();
      }
    });
  }

  /** After Hello: one connection per node, slots, bans; then Status. */
  private admit(conn: Conn): boolean {
    const { peer } = conn;
    const key = hex(peer.getId()!);
    if (key === hex(this.id)) return this.refuse(conn, DISCONNECT_REASON.SAME_IDENTITY);
    const isStatic = this.statics.has(key);
    if (!isStatic && this.isBanned(key)) return this.refuse(conn, DISCONNECT_REASON.USELESS_PEER);
    const existing = this.conns.get(key);
    if (existing) {
      // Both ends keep the connection dialed by the lower node id.
      const weDialFirst = hex(this.id) < key;
      const keepNew = conn.outbound === weDialFirst && existing.outbound !== weDialFirst;
      if (!keepNew) return this.refuse(conn, DISCONNECT_REASON.ALREADY_CONNECTED);
      this.conns.delete(key);
      existing.mc?.close('replaced');
      if (existing.mc?.ready) this.emit('peerGone', existing.mc);
      existing.peer.disconnect(DISCONNECT_REASON.ALREADY_CONNECTED);
    } else if (this.conns.size >= this.opts.maxPeers && !isStatic) {
      return this.refuse(conn, DISCONNECT_REASON.TOO_MANY_PEERS);
    }
    const protocol = peer.getProtocols().find((p) => p instanceof McProtocol) as McProtocol | undefined;
    if (!protocol) return this.refuse(conn, DISCONNECT_REASON.USELESS_PEER);
    const mc = new McPeer(peer, protocol, !conn.outbound, isStatic);
    conn.mc = mc;
    this.conns.set(key, conn);
    mc.on('drop', (reason) => this.misbehaved(conn, reason));
    const ready = () => {
      if (this.conns.get(key) !== conn || mc.closed) return;
      const entry = this.statics.get(key);
      if (entry) entry.delay = REDIAL_MIN_MS;
      this.opts.log.info('peer connected', { id: key.slice(0, 16), inbound: mc.inbound });
      this.emit('peer', mc);
    };
    this.opts.status().then(
      (st) => {
        if (!mc.closed) mc.handshake({ ...st, genesis: this.opts.genesis }, ready);
      },
      (err: Error) => mc.drop(`cannot read our status: ${err.message}`),
    );
    return true;
  }

  private refuse(conn: Conn, reason: number): false {
    conn.peer.disconnect(reason as never);
    setTimeout(() => conn.socket.destroy(), 2000).unref();
    return false;
  }

  /** A peer broke a rule: disconnect at once and keep it away for a while unless it is static. */
  private misbehaved(conn: Conn, reason: string): void {
    const key = hex(conn.peer.getId()!);
    this.opts.log.info('peer dropped', { id: key.slice(0, 16), reason });
    if (!this.statics.has(key)) this.bans.set(key, Date.now() + BAN_MS);
    conn.mc?.close(reason);
    try {
      conn.peer.disconnect(DISCONNECT_REASON.SUBPROTOCOL_ERROR);
    } catch {
      /* closing anyway */
    }
    setTimeout(() => conn.socket.destroy(), 200).unref();
  }

  private isBanned(key: string): boolean {
    const until = this.bans.get(key);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.bans.delete(key);
    return false;
  }

  addStatic(enode: Enode): void {
    const key = hex(enode.id);
    const entry = this.statics.get(key);
    if (entry) {
      entry.enode = enode;
    } else {
      this.statics.set(key, { enode, delay: REDIAL_MIN_MS });
      const c = this.conns.get(key);
      if (c?.mc) c.mc.isStatic = true;
    }
    this.dial(enode);
  }

  removeStatic(id: Uint8Array): void {
    const key = hex(id);
    const entry = this.statics.get(key);
    if (entry) clearTimeout(entry.timer);
    this.statics.delete(key);
    const conn = this.conns.get(key);
    if (conn) conn.peer.disconnect(DISCONNECT_REASON.DISCONNECT_REQUESTED);
  }

  /** Static peers come back after 5 s, then 10, 20, … up to 60 s between tries. */
  private scheduleRedial(key: string): void {
    const entry = this.statics.get(key);
    if (!entry || this.stopped || entry.timer || this.conns.has(key)) return;
    const delay = entry.delay;
    entry.delay = Math.min(delay * 2, REDIAL_MAX_MS);
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      if (this.statics.get(key) === entry) this.dial(entry.enode);
    }, delay);
    entry.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const entry of this.statics.values()) clearTimeout(entry.timer);
    for (const conn of this.conns.values()) {
      try {
        conn.peer.disconnect(DISCONNECT_REASON.CLIENT_QUITTING);
      } catch {
        /* closing anyway */
      }
      conn.socket.destroy();
    }
    for (const socket of this.handshaking) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
