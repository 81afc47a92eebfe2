// startNode(): a node in the caller's process (docs/library.md). It changes nothing global in
// that process: no V8 flags (the heap tuning is the command line's), no signal or rejection
// handlers, no process.exit, no environment edits, no code cache. Every node has its own
// database, listeners, workers, metrics and caches, so several run side by side and may peer.
// `process: 'child'` runs the node in a child process instead (childProcess.ts), same result.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { McNode } from '../node/node.js';
import { bytesToHex, encodeQuantity } from '../encoding/hex.js';
import { createLogger } from '../log.js';
import { configFromOptions, type LibraryOptions } from './options.js';
import { InProcessProvider, type Eip1193Provider } from './provider.js';
import { startChildNode } from './childProcess.js';

export interface StartNodeOptions extends LibraryOptions {
  /** where the node runs: `'in-process'` (the default) or `'child'`, a Node child process */
  process?: 'in-process' | 'child';
  /** receives each log line (stderr by default); `verbosity` (default 2: warnings and errors) says which */
  log?: (line: string) => void;
}

export interface NodeAccount {
  /** 0x address, lower case */
  address: string;
  /** 0x private key: a public test key, funded in genesis and unlocked */
  privateKey: string;
}

export interface RunningNode {
  /** HTTP JSON-RPC, e.g. `http://127.0.0.1:41233`; undefined with `rpc.enabled: false` */
  rpcUrl: string | undefined;
  /** WebSocket: the `ws` endpoint when enabled, else the HTTP port's (it takes upgrades) */
  wsUrl: string | undefined;
  /** the IPC socket; undefined with `ipc.disabled` */
  ipcPath: string | undefined;
  /** the SCS endpoint (`rpc` variant; `rpcdebug` at `${scsUrl}/rpc`); undefined with `scs.enabled: false` */
  scsUrl: string | undefined;
  /** the node's enode URL with its bound peer-to-peer port; undefined with `p2p.maxPeers: 0` */
  enode: string | undefined;
  /** Prometheus metrics, with `metrics.enabled` */
  metricsUrl: string | undefined;
  chainId: number;
  /** the dev accounts (and `accounts.keys`), funded and unlocked */
  accounts: NodeAccount[];
  /** the data directory (a temporary one unless `datadir` was given) */
  datadir: string;
  /** EIP-1193, in process: `new ethers.BrowserProvider(node.provider)`, viem's `custom(node.provider)` */
  provider: Eip1193Provider;
  /** Stops the node: every listener and worker closed, the database closed, a temporary datadir removed. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts a node and resolves once every listener is bound and the node answers. Rejects, with
 * the message the command line prints after `mcnode: `, when the options are wrong, the datadir
 * is in use or a port is taken; whatever was opened is closed again first.
 */
export async function startNode(options: StartNodeOptions = {}): Promise<RunningNode> {
  if (options.process === 'child') return startChildNode(options);
  if (options.process !== undefined && options.process !== 'in-process') {
    throw new TypeError(`startNode: process must be 'in-process' or 'child', not ${JSON.stringify(options.process)}`);
  }
  const temporary = options.datadir === undefined ? mkdtempSync(path.join(os.tmpdir(), 'mcnode-')) : undefined;
  const removeTemporary = () => {
    if (temporary !== undefined) rmSync(temporary, { recursive: true, force: true });
  };
  let node: McNode;
  try {
    const config = configFromOptions(options, temporary ?? options.datadir!);
    const write = options.log === undefined ? undefined : (line: string) => options.log!(line.replace(/\n$/, ''));
    node = await McNode.start(config, createLogger(config.verbosity, write));
  } catch (err) {
    removeTemporary();
    throw err;
  }
  const provider = new InProcessProvider(node.inProcessDispatcher(), encodeQuantity(node.config.chain.chainId));
  let stopping: Promise<void> | undefined;
  return {
    ...describe(node),
    provider,
    stop() {
      stopping ??= (async () => {
        provider.disconnect();
        try {
          await node.stop();
        } finally {
          removeTemporary();
        }
      })();
      return stopping;
    },
  };
}

/** The addresses and accounts of a started node, as plain values. */
function describe(node: McNode): Omit<RunningNode, 'provider' | 'stop'> {
  const { http, ws, ipc, scs, p2p, metrics } = node.endpoints;
  return {
    rpcUrl: http && `http://${urlHost(http.host)}:${http.port}`,
    wsUrl: ws ? `ws://${urlHost(ws.host)}:${ws.port}` : http && `ws://${urlHost(http.host)}:${http.port}`,
    ipcPath: ipc,
    scsUrl: scs && `http://${urlHost(scs.host)}:${scs.port}`,
    enode: p2p,
    metricsUrl: metrics && `http://${urlHost(metrics.host)}:${metrics.port}/metrics`,
    chainId: Number(node.config.chain.chainId),
    accounts: node.devAccounts.map((a) => ({ address: bytesToHex(a.address), privateKey: bytesToHex(a.privateKey) })),
    datadir: path.resolve(node.config.datadir),
  };
}

/** A listening address as a URL host: the wildcard addresses are reached on loopback; IPv6 in brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
