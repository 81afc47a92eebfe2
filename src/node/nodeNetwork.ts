// Peer-to-peer networking of one node (docs/network.md): the RLPx endpoint, static peers, sync.
// It starts after the RPC modules are built, so they hold this object and ask it for the network
// at call time; before start, or with networking off, it answers "no network".

import type { Config } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Blockchain } from '../blockchain/blockchain.js';
import type { TxPool } from '../txpool/txPool.js';
import type { SignedTx } from '../chain/types.js';
import { Network, readStaticNodes } from '../p2p/network.js';
import { parseEnode, type Enode } from '../admin/enode.js';
import { SyncService } from '../sync/syncService.js';
import type { BlockImport } from '../sync/types.js';
import { clientVersion } from '../version.js';

export interface NodeNetworkDeps {
  config: Config;
  log: Logger;
  nodeKey: Uint8Array;
  chain: Blockchain;
  pool: TxPool;
  /** pool admission of a gossiped transaction (decode, chain id, classic activation) */
  decodeTx: (raw: Uint8Array) => SignedTx;
}

export class NodeNetwork {
  private network?: Network;
  private syncService?: SyncService;
  /** static-nodes.json and --bootnodes, read at construction so that a bad entry stops the start */
  private readonly statics: Enode[];

  constructor(private readonly deps: NodeNetworkDeps) {
    this.statics = peersAtStart(deps.config);
  }

  get sync(): SyncService | undefined {
    return this.syncService;
  }

  /** Listens, starts sync and dials the static peers; returns the enode URL, or undefined with networking off. */
  async start(importer: BlockImport, onSync: (sync: SyncService) => void): Promise<string | undefined> {
    const { config, chain, pool, log, nodeKey, decodeTx } = this.deps;
    if (config.p2p.maxPeers === 0) return undefined;
    const extIp = /^extip:/i.test(config.p2p.nat) ? config.p2p.nat.slice(6) : undefined;
    const network = await Network.start(
      {
        nodeKey, networkId: config.chain.networkId, genesis: chain.genesis.hash, clientId: clientVersion(),
        addr: config.p2p.addr, port: config.p2p.port, maxPeers: config.p2p.maxPeers, extIp, log,
        status: async () => ({ td: (await chain.getTotalDifficulty(chain.head.hash)) ?? 0n, head: chain.head.hash }),
      },
      [],
    );
    this.network = network;
    // Sync starts once the RLPx host has loaded (after the port is bound and the node answers).
    network.ready.then(
      (host) => {
        this.syncService = new SyncService({ host, chain, pool, importer, log, decodeTx });
        onSync(this.syncService);
      },
      (err: Error) => log.error('peer-to-peer networking failed to start', { error: err.message }),
    );
    for (const enode of this.statics) network.addPeer(enode);
    const { ip, port } = this.view()!.endpoint();
    return `enode://${Buffer.from(network.id).toString('hex')}@${ip.includes(':') ? `[${ip}]` : ip}:${port}`;
  }

  peerCount(): number {
    return this.network?.peerCount() ?? 0;
  }

  syncProgress() {
    return this.syncService?.downloader.progress();
  }

  /** What admin_* reads and changes: endpoint, peers, static peers. */
  view() {
    const network = this.network;
    if (!network) return undefined;
    const { addr } = this.deps.config.p2p;
    return {
      endpoint: () => ({ ip: network.advertisedIp, port: network.port, listenAddr: `${addr.includes(':') ? `[${addr}]` : addr}:${network.port}` }),
      peers: () => network.remotePeers(),
      addPeer: (enode: Enode) => network.addPeer(enode),
      removePeer: (enode: Enode) => network.removePeer(enode),
    };
  }

  async stop(): Promise<void> {
    await this.network?.stop();
  }
}

/** Peers dialed at start: static-nodes.json and --bootnodes; a bad entry stops the start. */
function peersAtStart(config: Config): Enode[] {
  if (config.p2p.maxPeers === 0) return [];
  const statics = readStaticNodes(config.datadir);
  for (const url of config.p2p.bootnodes) {
    try {
      statics.push(parseEnode(url));
    } catch (err) {
      throw new ConfigError(`--bootnodes: ${(err as Error).message}`);
    }
  }
  return statics;
}
