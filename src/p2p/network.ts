// The node's peer-to-peer endpoint as the rest of the node sees it: start/stop, static peers
// (admin_addPeer, --bootnodes, <datadir>/static-nodes.json), and what admin_peers and
// admin_nodeInfo report. Everything about RLPx stays behind this file and host.ts.

import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { parseEnode, type Enode } from '../admin/enode.js';
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
  private constructor(
    readonly host: P2pHost,
    readonly advertisedIp: string,
  ) {}

  static async start(opts: NetworkOptions, staticNodes: Enode[]): Promise<Network> {
    // The devp2p library loads here, not at start-up: a node's first answers do not need it.
    const { P2pHost } = await import('./host.js');
    const host = new P2pHost(opts);
    await host.listen(opts.addr, opts.port);
    const wildcard = opts.addr === '0.0.0.0' || opts.addr === '::';
    const network = new Network(host, opts.extIp ?? (wildcard ? '127.0.0.1' : opts.addr));
    for (const enode of staticNodes) host.addStatic(enode);
    return network;
  }

  get port(): number {
    return this.host.port;
  }

  get id(): Uint8Array {
    return this.host.id;
  }

  peerCount(): number {
    return this.host.peers().length;
  }

  peers(): McPeer[] {
    return this.host.peers();
  }

  remotePeers(): RemotePeer[] {
    return this.host.peers().map((p) => {
      const info = p.info();
      return { ...info, version: MC_VERSION, enode: `enode://${info.id}@${info.remoteAddress}` };
    });
  }

  addPeer(enode: Enode): void {
    this.host.addStatic(enode);
  }

  removePeer(enode: Enode): void {
    this.host.removeStatic(enode.id);
  }

  stop(): Promise<void> {
    return this.host.stop();
  }
}
