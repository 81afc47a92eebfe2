// admin_* (docs/methods.md#admin-and-vnode): node identity, data directory, static peers (dialed and kept
// connected by the p2p endpoint, docs/network.md), connected peers, and the one HTTP endpoint.

import type { Blockchain } from '../../blockchain/blockchain.js';
import { formatOwnEnode, parseEnode, type Enode } from '../../admin/enode.js';
import type { StaticPeers } from '../../admin/staticPeers.js';
import { toChecksumAddress } from '../../encoding/address.js';
import { bytesToHex } from '../../encoding/hex.js';
import { alreadyExists, refused, unsupported, wrongState } from '../../errors.js';
import { ParamError, count, method, optional, string, withDefault, type Codec } from '../params.js';
import type { RpcMethod } from '../types.js';
import { NAMESPACES, NAMESPACE_ALIASES } from '../namespaces.js';
import type { VnodeInfo } from './vnode.js';

/** What admin_* needs from the peer-to-peer endpoint (absent with --maxpeers 0). */
export interface AdminNetwork {
  /** the advertised IP and the real listening port */
  endpoint(): { ip: string; port: number; listenAddr: string };
  peers(): {
    id: string; name: string; enode: string; caps: string[]; localAddress: string; remoteAddress: string;
    inbound: boolean; static: boolean; version: number; td: bigint; head: Uint8Array;
  }[];
  addPeer(enode: Enode): void;
  removePeer(enode: Enode): void;
}

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
      throw unsupported('admin_stopRPC closes the HTTP endpoint: call it over IPC');
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
  network: () => AdminNetwork | undefined;
  /** which proof of work seals the chain (keccak-pow, ethash) */
  pow: string;
}

/** A comma-separated namespace list, as --rpcapi takes it. */
const apiList: Codec<string[]> = (v, i) => {
  const names = string(v, i).split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
  const out = names.map((n) => NAMESPACE_ALIASES.get(n) ?? n);
  const unknown = out.find((n) => !(NAMESPACES as readonly string[]).includes(n));
  if (unknown !== undefined) throw new ParamError(i, `unknown namespace "${unknown}"`);
  return [...new Set(out)];
};

const port: Codec<number> = (v, i) => {
  const n = count(v, i);
  if (n > 65535) throw new ParamError(i, `port out of range`);
  return n;
};

const hostPort = ({ host, port }: { host: string; port: number }): string =>
  `${host.includes(':') ? `[${host}]` : host}:${port}`;

export function adminMethods(ctx: AdminContext): Record<string, RpcMethod> {
  return {
    admin_nodeInfo: method([], async () => {
      const { head, genesis } = ctx.chain;
      const td = (await ctx.chain.getTotalDifficulty(head.hash)) ?? head.header.difficulty;
      // With networking off nothing listens: port 0, as geth reports it.
      const { ip, port, listenAddr } = ctx.network()?.endpoint() ?? { ip: '127.0.0.1', port: 0, listenAddr: '127.0.0.1:0' };
      const enode = formatOwnEnode({
        id: ctx.nodeId,
        ip,
        port,
        serviceCfg: ctx.vnode.serviceCfg,
        showToPublic: ctx.vnode.showToPublic,
        beneficialAddress: toChecksumAddress(ctx.vnode.address),
        vnodeIp: ctx.vnode.ip,
      });
      return {
        id: bytesToHex(ctx.nodeId).slice(2),
        name: ctx.clientVersion,
        enode,
        ip,
        ports: { discovery: 0, listener: port },
        listenAddr,
        protocols: {
          mc: { network: Number(ctx.networkId), difficulty: Number(td), genesis: bytesToHex(genesis.hash), head: bytesToHex(head.hash), consensus: ctx.pow },
        },
      };
    }),
    admin_datadir: method([], () => ctx.datadir),
    admin_addPeer: method([string], (url) => {
      const enode = parseEnode(url);
      ctx.peers.add(enode);
      ctx.network()?.addPeer(enode);
      return true;
    }),
    admin_removePeer: method([string], (url) => {
      const enode = parseEnode(url);
      ctx.peers.remove(enode);
      ctx.network()?.removePeer(enode);
      return true;
    }),
    // Connected peers past the Status exchange, in geth's shape.
    admin_peers: method([], () =>
      (ctx.network()?.peers() ?? []).map((p) => ({
        id: p.id,
        name: p.name,
        enode: p.enode,
        caps: p.caps,
        network: { localAddress: p.localAddress, remoteAddress: p.remoteAddress, inbound: p.inbound, trusted: false, static: p.static },
        protocols: { mc: { version: p.version, difficulty: Number(p.td), head: bytesToHex(p.head) } },
      })),
    ),
    admin_startRPC: method(
      [optional(string), optional(port), optional(string), withDefault(apiList, ['mc', 'net', 'libx'])],
      async (host, p, cors, apis) => {
        const running = ctx.http.running();
        if (running) throw alreadyExists(`HTTP RPC already running on ${hostPort(running)}`);
        const settings: HttpSettings = {
          host: host || 'localhost',
          port: p ?? 8545,
          corsOrigins: (cors ?? '').split(',').map((s) => s.trim()).filter((s) => s !== ''),
          apis,
        };
        try {
          await ctx.http.start(settings);
        } catch (err) {
          // Generic on purpose: the cause is the listener's OS error (port in use, no such address), passed on as text.
          throw refused(`cannot start HTTP RPC on ${hostPort(settings)}: ${(err as Error).message}`);
        }
        return true;
      },
    ),
    admin_stopRPC: method([], async () => {
      if (!ctx.http.running()) throw wrongState('HTTP RPC not running');
      await ctx.http.stop();
      return true;
    }),
  };
}
