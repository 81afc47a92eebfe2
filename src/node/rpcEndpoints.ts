// The node's listeners: HTTP (through its HttpEndpoint, which admin_startRPC/stopRPC also drive),
// the separate WebSocket port, IPC, the SCS endpoint and Prometheus metrics. Started in that order
// at start-up, addresses recorded for the banner, stopped together.

import path from 'node:path';
import type { Config } from '../config/schema.js';
import { checkIpcPath } from '../config/load.js';
import { Dispatcher, StartGate } from '../rpc/dispatch.js';
import { HttpRpcServer } from '../rpc/http.js';
import type { FastPathCounts } from '../rpc/httpFastPath.js';
import { namespaceDispatcher, type HttpEndpoint } from '../rpc/httpEndpoint.js';
import { IpcRpcServer } from '../rpc/ipc.js';
import { WsRpcServer } from '../rpc/ws.js';
import { createScsServer } from '../rpc/modules/scs.js';
import type { RpcMethod } from '../rpc/types.js';
import { MetricsServer } from '../metrics/metricsServer.js';
import type { MetricsRegistry, RpcStats } from '../metrics/registry.js';
import type { ScsService } from '../scs/scsService.js';

export interface NodeEndpoints {
  http?: { host: string; port: number };
  ipc?: string;
  ws?: { host: string; port: number };
  metrics?: { host: string; port: number };
  scs?: { host: string; port: number };
  /** the node's enode URL while peer-to-peer networking runs */
  p2p?: string;
}

/** One method table per transport: HTTP adds the admin methods allowed there, WS and IPC their namespaces. */
export interface MethodTables {
  http: Map<string, RpcMethod>;
  ipc: Map<string, RpcMethod>;
  ws: Map<string, RpcMethod>;
}

export interface RpcEndpointsDeps {
  config: Config;
  methods: MethodTables;
  http: HttpEndpoint;
  /** where the addresses go; the HTTP endpoint writes its own on every start and stop */
  addresses: NodeEndpoints;
  /** RPC calls by method, when --metrics is on */
  rpcStats?: RpcStats;
  /** what the HTTP fast path did, summed over the endpoints (the HTTP endpoint is given it too) */
  fastPathCounts?: FastPathCounts;
  /** the registry to serve; built on start because it starts its own event-loop sampling */
  metrics?: () => MetricsRegistry;
  scs?: ScsService;
  /** holds calls on every listener until the node has started */
  gate: StartGate;
}

export class RpcEndpoints {
  private ipc?: IpcRpcServer;
  /** the separate --ws endpoint (upgrades on the HTTP port belong to the HTTP endpoint) */
  private ws?: { http: HttpRpcServer; ws: WsRpcServer };
  private scsHttp?: HttpRpcServer;
  private metricsServer?: MetricsServer;

  constructor(private readonly deps: RpcEndpointsDeps) {}

  get addresses(): NodeEndpoints {
    return this.deps.addresses;
  }

  /** Starts every configured listener. Returns whether the SCS endpoint runs. */
  async start(): Promise<{ scs: boolean }> {
    const { config, http, methods, rpcStats, addresses } = this.deps;
    const debug = config.verbosity >= 4;
    if (config.rpc.enabled) {
      await http.start({ host: config.rpc.addr, port: config.rpc.port, corsOrigins: config.rpc.corsDomain, apis: config.rpc.api });
    }
    if (config.ws.enabled) await this.startWs();
    if (!config.ipc.disabled) {
      const ipcPath = path.resolve(config.datadir, config.ipc.path);
      checkIpcPath(ipcPath);
      this.ipc = new IpcRpcServer({ path: ipcPath, dispatcher: new Dispatcher({ methods: methods.ipc, debug, onCall: rpcStats?.observe, gate: this.deps.gate }) });
      await this.ipc.start();
      addresses.ipc = ipcPath;
    }
    await this.startMetrics();
    return { scs: await this.startScs() };
  }

  /** The separate WebSocket endpoint (`--ws`): its own namespaces (`--wsapi`) and origins (`--wsorigins`). */
  private async startWs(): Promise<void> {
    const { ws, rpc, verbosity } = this.deps.config;
    const dispatcher = namespaceDispatcher(this.deps.methods.ws, ws.api, { debug: verbosity >= 4, onCall: this.deps.rpcStats?.observe, gate: this.deps.gate });
    const upgrades = new WsRpcServer();
    const http = new HttpRpcServer({
      host: ws.addr, port: ws.port, corsOrigins: ws.origins, vhosts: rpc.vhosts,
      route: (p) => (p === '/' ? dispatcher : undefined), websocket: upgrades,
      fastPath: this.deps.config.http.fastPath, fastPathCounts: this.deps.fastPathCounts,
    });
    this.deps.addresses.ws = await http.start();
    this.ws = { http, ws: upgrades };
  }

  /** HTTP's method table and namespaces (`rpc.api`) without a socket: the library's in-process provider. */
  inProcessDispatcher(): Dispatcher {
    const { config, methods, rpcStats, gate } = this.deps;
    return namespaceDispatcher(methods.http, config.rpc.api, { debug: config.verbosity >= 4, onCall: rpcStats?.observe, gate });
  }

  /** The Prometheus endpoint (`--metrics`), on its own address and port. */
  private async startMetrics(): Promise<void> {
    const { config, metrics } = this.deps;
    if (!config.metrics.enabled || !metrics) return;
    this.metricsServer = new MetricsServer(metrics(), { host: config.metrics.addr, port: config.metrics.port });
    this.deps.addresses.metrics = await this.metricsServer.start();
  }

  /** The SCS endpoint (`scs.rpcPort`): `/` scs_*, `/rpc` ScsRPCMethod.* and scs_*. True when it runs. */
  private async startScs(): Promise<boolean> {
    const { config, scs } = this.deps;
    if (!scs) return false;
    // The endpoint names the SCS id: its first answer waits until the id's key file is written
    // (new on a fresh datadir: tens of milliseconds of scrypt, off the node's own start). A failure
    // to write it fails every app-chain write, which reports it.
    const gate = new StartGate();
    void Promise.all([this.deps.gate.opened, scs.idStored()]).then(() => gate.open(), () => gate.open());
    this.scsHttp = createScsServer({ scs, datadir: path.resolve(config.datadir) }, {
      host: config.scs.rpcAddr, port: config.scs.rpcPort, corsOrigins: config.rpc.corsDomain, vhosts: config.rpc.vhosts,
      debug: config.verbosity >= 4, onCall: this.deps.rpcStats?.observe, gate,
      fastPath: config.http.fastPath, fastPathCounts: this.deps.fastPathCounts,
    });
    this.deps.addresses.scs = await this.scsHttp.start();
    return true;
  }

  async stop(): Promise<void> {
    await this.deps.http.close();
    this.ws?.ws.stop();
    await this.ws?.http.stop();
    await this.ipc?.stop();
    await this.metricsServer?.stop();
    await this.scsHttp?.stop();
  }
}
