// The node's peer-to-peer endpoint as the rest of the node sees it: start/stop, static peers
// (admin_addPeer, --bootnodes, <datadir>/static-nodes.json), and what admin_peers and
// admin_nodeInfo report. Everything about RLPx stays behind this file and host.ts.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { parseEnode, type Enode } from '../admin/enode.js';
import { nodeIdOf } from '../admin/nodeKey.js';
import type { P2pHost } from './host.js';
import { MC_VERSION } from './mcMessages.js';
import type { McPeer } from './peer.js';

export const STATIC_NODES_FILE = 'static-nodes.json';

export interface NetworkOptions {
  nodeKey: Uint8Array;
  networkId: bigint;
  genesis: Uint8Array;
  clientId: string;
  addr: string;
  port: number;
  maxPeers: number;
  /** the address the enode advertises (`--nat extip:<ip>`); default: the listening address */
  extIp?: string;
  status: () => Promise<{ td: bigint; head: Uint8Array }>;
  log: { info(msg: string, ctx?: object): void; debug(msg: string, ctx?: object): void };
}

export interface RemotePeer {
  id: string;
  name: string;
  enode: string;
  caps: string[];
  localAddress: string;
  remoteAddress: string;
  inbound: boolean;
  static: boolean;
  version: number;
  td: bigint;
  head: Uint8Array;
}

/** `<datadir>/static-nodes.json`: a JSON array of enode URLs (geth's file); absent means none. */
export function readStaticNodes(datadir: string): Enode[] {
  const file = path.join(datadir, STATIC_NODES_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new ConfigError(`cannot read ${file}: ${(err as Error).message}`);
  }
  let urls: unknown;
  try {
    urls = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${file}: not JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(urls) || urls.some((u) => typeof u !== 'string')) throw new ConfigError(`${file}: expected a JSON array of enode URLs`);
  return urls.map((u: string, i) => {
    try {
      return parseEnode(u);
    } catch (err) {
      throw new ConfigError(`${file}[${i}]: ${(err as Error).message}`);
    }
  });
}

export class Network {
  /** the RLPx host, once the devp2p library has loaded */
  private host: P2pHost | undefined;
  /** resolves with the host: the port is bound first, the library loads after */
  readonly ready: Promise<P2pHost>;

  private constructor(
    private readonly server: net.Server,
    readonly id: Uint8Array,
    readonly port: number,
    readonly advertisedIp: string,
    load: (network: Network) => Promise<P2pHost>,
  ) {
    this.ready = load(this).then((host) => (this.host = host));
  }

  /**
   * Binds the listener and returns; the devp2p library (a large module) loads after, so the
   * port is known (the enode, admin_nodeInfo) without a node's first answers waiting for it.
   * Connections accepted meanwhile wait unread until the host takes them.
   */
  static async start(opts: NetworkOptions, staticNodes: Enode[]): Promise<Network> {
    const server = net.createServer();
    const waiting: net.Socket[] = [];
    const hold = (socket: net.Socket) => waiting.push(socket);
    server.on('connection', hold);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port, opts.addr, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const wildcard = opts.addr === '0.0.0.0' || opts.addr === '::';
    const port = (server.address() as net.AddressInfo).port;
    return new Network(server, nodeIdOf(opts.nodeKey), port, opts.extIp ?? (wildcard ? '127.0.0.1' : opts.addr), async () => {
      // After the requests already waiting on the node's sockets: the load is synchronous in the bundle.
      await new Promise((resolve) => setImmediate(resolve));
      const { P2pHost } = await import('./host.js');
      const host = new P2pHost(opts);
      server.off('connection', hold);
      host.adopt(server, waiting.splice(0));
      for (const enode of staticNodes) host.addStatic(enode);
      return host;
    });
  }

  peerCount(): number {
    return this.host?.peers().length ?? 0;
  }

  peers(): McPeer[] {
    return this.host?.peers() ?? [];
  }

  remotePeers(): RemotePeer[] {
    return this.peers().map((p) => {
      const info = p.info();
      return { ...info, version: MC_VERSION, enode: `enode://${info.id}@${info.remoteAddress}` };
    });
  }

  addPeer(enode: Enode): void {
    if (this.host) this.host.addStatic(enode);
    else this.ready.then((host) => host.addStatic(enode), () => undefined);
  }

  removePeer(enode: Enode): void {
    if (this.host) this.host.removeStatic(enode.id);
    else this.ready.then((host) => host.removeStatic(enode.id), () => undefined);
  }

  async stop(): Promise<void> {
    const host = await this.ready.catch(() => undefined);
    if (host) await host.stop();
    else await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
