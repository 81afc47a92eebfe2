// admin_* (README "admin and vnode"): node identity, data directory, static peers (remembered, not
// connected: mcnode has no peer-to-peer network) and the one HTTP endpoint.

import type { Blockchain } from '../../blockchain/blockchain.js';
import { formatOwnEnode, parseEnode } from '../../admin/enode.js';
import type { StaticPeers } from '../../admin/staticPeers.js';
import { toChecksumAddress } from '../../encoding/address.js';
import { bytesToHex } from '../../encoding/hex.js';
import { invalidParams, refused } from '../../errors.js';
import { count, method, optional, string, withDefault, type Codec } from '../params.js';
import type { RpcMethod } from '../types.js';
import { NAMESPACES, NAMESPACE_ALIASES } from '../namespaces.js';
import type { VnodeInfo } from './vnode.js';

/** The real node's p2p port; nothing listens on it here, but the enode URL carries it. */
export const P2P_PORT = 30333;
const P2P_IP = '127.0.0.1';

export interface HttpSettings {
  host: string;
  port: number;
  corsOrigins: string[];
  apis: string[];
}

/** The node's one HTTP JSON-RPC endpoint. */
export interface HttpControl {
  /** the bound address while it runs */
  running(): { host: string; port: number } | undefined;
  start(settings: HttpSettings): Promise<{ host: string; port: number }>;
  stop(): Promise<void>;
}

/**
 * What the HTTP table serves instead: closing the HTTP endpoint from a request on it would lock
 * every HTTP client out (and a client walking the method list would take the node off the air).
 */
export const adminOverHttp: Record<string, RpcMethod> = {
  admin_stopRPC: {
    handler: () => {
      throw refused('admin_stopRPC closes the HTTP endpoint: call it over IPC');
    },
  },
};

export interface AdminContext {
  nodeId: Uint8Array;
  clientVersion: string;
  networkId: bigint;
  datadir: string;
  vnode: VnodeInfo;
  chain: Blockchain;
  peers: StaticPeers;
  http: HttpControl;
}

/** A comma-separated namespace list, as --rpcapi takes it. */
const apiList: Codec<string[]> = (v, i) => {
  const names = string(v, i).split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
  const out = names.map((n) => NAMESPACE_ALIASES.get(n) ?? n);
  const unknown = out.find((n) => !(NAMESPACES as readonly string[]).includes(n));
  if (unknown !== undefined) throw invalidParams(`invalid argument ${i}: unknown namespace "${unknown}"`);
  return [...new Set(out)];
};

const port: Codec<number> = (v, i) => {
  const n = count(v, i);
  if (n > 65535) throw invalidParams(`invalid argument ${i}: port out of range`);
  return n;
};

const hostPort = ({ host, port }: { host: string; port: number }): string =>
  `${host.includes(':') ? `[${host}]` : host}:${port}`;

export function adminMethods(ctx: AdminContext): Record<string, RpcMethod> {
  return {
    admin_nodeInfo: method([], async () => {
      const { head, genesis } = ctx.chain;
      const td = (await ctx.chain.getTotalDifficulty(head.hash)) ?? head.header.difficulty;
      const enode = formatOwnEnode({
        id: ctx.nodeId,
        ip: P2P_IP,
        port: P2P_PORT,
        serviceCfg: ctx.vnode.serviceCfg,
        showToPublic: ctx.vnode.showToPublic,
        beneficialAddress: toChecksumAddress(ctx.vnode.address),
        vnodeIp: ctx.vnode.ip,
      });
      return {
        id: bytesToHex(ctx.nodeId).slice(2),
        name: ctx.clientVersion,
        enode,
        ip: P2P_IP,
        ports: { discovery: P2P_PORT, listener: P2P_PORT },
        listenAddr: `[::]:${P2P_PORT}`,
        protocols: {
          mc: { network: Number(ctx.networkId), difficulty: Number(td), genesis: bytesToHex(genesis.hash), head: bytesToHex(head.hash) },
        },
      };
    }),
    admin_datadir: method([], () => ctx.datadir),
    admin_addPeer: method([string], (url) => {
      ctx.peers.add(parseEnode(url));
      return true;
    }),
    admin_removePeer: method([string], (url) => {
      ctx.peers.remove(parseEnode(url));
      return true;
    }),
    // Connected peers only: none on a lone node.
    admin_peers: method([], () => []),
    admin_startRPC: method(
      [optional(string), optional(port), optional(string), withDefault(apiList, ['mc', 'net', 'libx'])],
      async (host, p, cors, apis) => {
        const running = ctx.http.running();
        if (running) throw refused(`HTTP RPC already running on ${hostPort(running)}`);
        const settings: HttpSettings = {
          host: host || 'localhost',
          port: p ?? 8545,
          corsOrigins: (cors ?? '').split(',').map((s) => s.trim()).filter((s) => s !== ''),
          apis,
        };
        try {
          await ctx.http.start(settings);
        } catch (err) {
          throw refused(`cannot start HTTP RPC on ${hostPort(settings)}: ${(err as Error).message}`);
        }
        return true;
      },
    ),
    admin_stopRPC: method([], async () => {
      if (!ctx.http.running()) throw refused('HTTP RPC not running');
      await ctx.http.stop();
      return true;
    }),
  };
}
