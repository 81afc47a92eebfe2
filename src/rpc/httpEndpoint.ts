// The node's one HTTP JSON-RPC endpoint and its lifecycle: opened at start-up (--rpc) or by
// admin_startRPC, closed by admin_stopRPC or at shutdown, at most one at a time
// (docs/methods.md#admin-and-vnode). It serves the HTTP method table, limited to the namespaces it was opened with.

import { alreadyExists, wrongState } from '../errors.js';
import type { Logger } from '../log.js';
import { Dispatcher, type DispatcherOptions } from './dispatch.js';
import { HttpRpcServer, type HttpServerOptions } from './http.js';
import type { FastPathCounts } from './httpFastPath.js';
import { WsRpcServer } from './ws.js';
import type { HttpControl, HttpSettings } from './modules/admin.js';
import { namespaceOf } from './modules/index.js';
import type { RpcMethod } from './types.js';

type Address = { host: string; port: number };

export interface HttpEndpointOptions {
  /**
   * The HTTP method table. A thunk because the table is built after the endpoint: admin_startRPC
   * and rpc_modules, inside it, talk to this endpoint.
   */
  methods: () => ReadonlyMap<string, RpcMethod>;
  vhosts: string[];
  debug: boolean;
  /** the fast path in front of node:http (`http.fastPath`), and where it counts what it did */
  fastPath: boolean;
  fastPathCounts?: FastPathCounts;
  onCall?: DispatcherOptions['onCall'];
  gate?: DispatcherOptions['gate'];
  log: Logger;
  /** told the bound address when the endpoint opens, undefined when it closes (the node's banner) */
  onChange?: (address: Address | undefined) => void;
  /** the explorer's pages (GET/HEAD under /explorer), when it is on */
  site?: HttpServerOptions['site'];
  /** dispatchers of other paths (the explorer's read-only SCS calls); every other path takes the endpoint's */
  routes?: () => ReadonlyMap<string, Dispatcher>;
}

/**
 * A dispatcher serving `methods` limited to the namespaces `apis`: the HTTP endpoint's, the
 * separate WebSocket endpoint's and the library's in-process provider's.
 */
export function namespaceDispatcher(
  methods: ReadonlyMap<string, RpcMethod>,
  apis: readonly string[],
  o: Pick<DispatcherOptions, 'debug' | 'onCall' | 'gate'>,
): Dispatcher {
  const allowed = new Set<string>(apis);
  return new Dispatcher({ methods, isAllowed: (name) => allowed.has(namespaceOf(name)), debug: o.debug, onCall: o.onCall, gate: o.gate });
}

export class HttpEndpoint implements HttpControl {
  private server?: HttpRpcServer;
  /** WebSocket connections upgraded on this endpoint's port (Anvil's and Hardhat's convention) */
  private upgrades?: WsRpcServer;
  private address?: Address;
  private starting?: Address;
  private stopping: Promise<void> = Promise.resolve();
  private apiList: readonly string[] = [];
  private closed = false;

  constructor(private readonly o: HttpEndpointOptions) {}

  /** The endpoint's address while it runs (or is starting). */
  running(): Address | undefined {
    return this.server ? this.address ?? this.starting : undefined;
  }

  /** The bound address once started. */
  get bound(): Address | undefined {
    return this.address;
  }

  /** Namespaces the endpoint serves (`--rpcapi`, or admin_startRPC's list). */
  get apis(): readonly string[] {
    return this.server ? this.apiList : [];
  }

  /** Opens the endpoint; rejects when one is already running. */
  async start(settings: HttpSettings): Promise<Address> {
    if (this.closed) throw wrongState('node is stopping');
    if (this.server) throw alreadyExists(`HTTP RPC already running on ${settings.host}:${settings.port}`);
    const dispatcher = namespaceDispatcher(this.o.methods(), settings.apis, this.o);
    const upgrades = new WsRpcServer();
    const server = new HttpRpcServer({
      host: settings.host,
      port: settings.port,
      corsOrigins: settings.corsOrigins,
      vhosts: this.o.vhosts,
      route: (path) => this.o.routes?.().get(path) ?? dispatcher,
      websocket: upgrades,
      site: this.o.site,
      fastPath: this.o.fastPath,
      fastPathCounts: this.o.fastPathCounts,
    });
    this.server = server;
    this.upgrades = upgrades;
    this.starting = { host: settings.host, port: settings.port };
    this.apiList = settings.apis;
    let address: Address;
    try {
      await this.stopping; // the previous endpoint's port may be the one wanted
      address = await server.start();
    } catch (err) {
      this.server = undefined;
      throw err;
    } finally {
      this.starting = undefined;
    }
    this.address = address;
    this.o.onChange?.(address);
    this.o.log.info('HTTP endpoint opened', { url: `http://${address.host}:${address.port}`, apis: settings.apis.join(',') });
    return address;
  }

  /**
   * Closes the endpoint. The close waits a moment so that the reply to an admin_stopRPC sent
   * over that very endpoint still goes out; a new start waits for it.
   */
  stop(): Promise<void> {
    const server = this.server;
    if (!server) return Promise.resolve();
    this.upgrades?.stop();
    this.upgrades = undefined;
    this.server = undefined;
    this.address = undefined;
    this.o.onChange?.(undefined);
    this.stopping = new Promise<void>((resolve) => setTimeout(resolve, 50)).then(() => server.stop());
    this.o.log.info('HTTP endpoint closed');
    return Promise.resolve();
  }

  /** At shutdown: closes at once and refuses later starts. */
  async close(): Promise<void> {
    this.closed = true;
    this.upgrades?.stop();
    await this.server?.stop();
    await this.stopping;
  }
}
