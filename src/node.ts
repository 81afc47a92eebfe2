// Wires the node together: database, chain, state, pool, miner, wallet and the RPC servers.
// Every component receives the few interfaces it uses; only this file knows them all.

import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { Config } from './config/schema.js';
import { devKeys, difficultyRule, openChainCore } from './chainCore.js';
import { checkIpcPath } from './config/load.js';
import { refused } from './errors.js';
import { bytesToHex } from './encoding/hex.js';
import { Database } from './store/database.js';
import { WorldState } from './state/worldState.js';
import { Blockchain } from './blockchain/blockchain.js';
import { decodeTransaction } from './chain/transaction.js';
import type { SignedTx } from './chain/types.js';
import { TxPool } from './txpool/txPool.js';
import { Miner, type SealFunction } from './miner/miner.js';
import { PendingBlockCache } from './miner/pendingBlock.js';
import { Sealer } from './miner/sealer.js';
import { CallExecutor } from './execution/call.js';
import { Wallet } from './accounts/wallet.js';
import { Keystore, LIGHT_SCRYPT, STANDARD_SCRYPT } from './accounts/keystore.js';
import { KeyManager } from './accounts/keyManager.js';
import { loadOrCreateNodeKey, nodeIdOf } from './admin/nodeKey.js';
import { StaticPeers } from './admin/staticPeers.js';
import { createLogger, type Logger } from './log.js';
import { Dispatcher } from './rpc/dispatch.js';
import { HttpRpcServer } from './rpc/http.js';
import { IpcRpcServer } from './rpc/ipc.js';
import { buildMethodTable, namespaceOf, rpcModules, NAMESPACES } from './rpc/modules/index.js';
import { libxMethods, netMethods } from './rpc/modules/libx.js';
import { blockMethods } from './rpc/modules/mc/blocks.js';
import { stateMethods } from './rpc/modules/mc/state.js';
import { transactionMethods } from './rpc/modules/mc/transactions.js';
import { infoMethods } from './rpc/modules/mc/info.js';
import { miningMethods } from './rpc/modules/mc/mining.js';
import { minerMethods } from './rpc/modules/miner.js';
import { WorkPackages } from './miner/workPackages.js';
import { filterMethods } from './rpc/modules/mc/filters.js';
import { FilterSystem } from './filters/filterSystem.js';
import { storedBlooms } from './filters/blockBlooms.js';
import type { McContext } from './rpc/modules/mc/context.js';
import { txpoolMethods } from './rpc/modules/txpool.js';
import { personalMethods } from './rpc/modules/personal.js';
import { adminMethods, type HttpControl, type HttpSettings } from './rpc/modules/admin.js';
import { vnodeMethods, type VnodeInfo } from './rpc/modules/vnode.js';
import type { RpcMethod } from './rpc/types.js';
import { VERSION, clientVersion } from './version.js';
import { liveChainFiles } from './chainFile/liveImport.js';
import { adminChainMethods } from './rpc/modules/adminChain.js';
import { MetricsServer } from './metrics/metricsServer.js';
import { RpcStats } from './metrics/registry.js';
import { nodeMetrics } from './metrics/nodeMetrics.js';
import { ScsService } from './scs/scsService.js';
import { loadOrCreateScsId } from './scs/scsId.js';
import { createScsServer } from './rpc/modules/scs.js';

/** The suggested gas price (mc_gasPrice) when the minimum accepted price is below it: 20 Gsha. */
export const DEFAULT_GAS_PRICE = 20_000_000_000n;

export interface NodeEndpoints {
  http?: { host: string; port: number };
  ipc?: string;
  metrics?: { host: string; port: number };
  scs?: { host: string; port: number };
}

export interface DevAccount {
  address: Uint8Array;
  privateKey: Uint8Array;
}

export class McNode {
  readonly log: Logger;
  readonly devAccounts: DevAccount[] = [];
  endpoints: NodeEndpoints = {};
  private http?: HttpRpcServer;
  private httpStarting?: { host: string; port: number };
  private httpStopping: Promise<void> = Promise.resolve();
  private httpApiList: readonly string[] = [];
  private ipc?: IpcRpcServer;
  private sealer?: Sealer;
  private filters?: FilterSystem;
  /** RPC calls by method, when --metrics is on (fed by the dispatchers) */
  private rpcStats?: RpcStats;
  private metricsServer?: MetricsServer;
  private scs?: ScsService;
  private scsHttp?: HttpRpcServer;
  private closed = false;

  private constructor(
    readonly config: Config,
    readonly db: Database,
    readonly chain: Blockchain,
    readonly world: WorldState,
    readonly pool: TxPool,
    readonly miner: Miner,
    readonly wallet: Wallet,
    readonly methods: { http: Map<string, RpcMethod>; ipc: Map<string, RpcMethod> },
    log: Logger,
  ) {
    this.log = log;
  }

  static async start(config: Config, log: Logger = createLogger(config.verbosity)): Promise<McNode> {
    const db = await Database.open(path.join(config.datadir, 'chaindata'));
    try {
      return await McNode.assemble(config, db, log);
    } catch (err) {
      await db.close().catch(() => undefined);
      throw err;
    }
  }

  private static async assemble(config: Config, db: Database, log: Logger): Promise<McNode> {
    const { common, nodes, world, chain, builder } = await openChainCore(config, db, log);
    const chainId = config.chain.chainId;

    const wallet = new Wallet(chainId);
    const dev: DevAccount[] = devKeys(config).map((key) => ({ address: wallet.addAccount(key, true), privateKey: key }));


    // miner_setGasPrice moves the minimum; mc_gasPrice suggests at least 20 Gsha.
    const prices = { min: config.mining.gasPrice };
    const gasPrice = () => (prices.min > DEFAULT_GAS_PRICE ? prices.min : DEFAULT_GAS_PRICE);
    const pool = new TxPool(db, {
      minGasPrice: () => prices.min,
      priceBump: BigInt(config.txpool.priceBump),
      globalSlots: config.txpool.globalSlots,
      globalQueue: config.txpool.globalQueue,
      accountQueue: config.txpool.accountQueue,
      lifetime: config.txpool.lifetime,
      blockGasLimit: () => chain!.head.header.gasLimit,
      accountAt: async (address) => {
        const account = await world.getAccount(chain!.head.header.stateRoot, address);
        return { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n };
      },
    });

    const threads = config.mining.threads > 0 ? config.mining.threads : availableParallelism();
    const sealer = new Sealer({ threads });
    const seal: SealFunction = (sealHash, difficulty, signal) => sealer.seal(sealHash, difficulty, { signal });
    const coinbase = config.mining.moacbase ?? dev[0]?.address ?? new Uint8Array(20);
    const miner = new Miner(chain, pool, builder, nodes, seal, {
      mode: config.mining.mine ? config.mining.mode : 'off',
      period: config.mining.period,
      coinbase,
      extraData: config.mining.extraData,
      targetGasLimit: config.mining.targetGasLimit,
      difficulty: difficultyRule(config, chain.genesis),
    });
    // Before the pending-block cache hears of a new head, the pool has forgotten its mined transactions.
    chain.on('newHead', ({ block }) => pool.forgetMined(block.transactions));
    const pending = new PendingBlockCache(db, chain, pool, miner);
    const work = new WorkPackages(db, chain, pool, miner);
    const calls = new CallExecutor(world, (sm) => builder.createEvm(sm), () => miner.coinbase);
    const filters = new FilterSystem({ chain, pool, pending, blooms: storedBlooms(db) }, { timeoutSeconds: config.filters.timeout });

    const restored = await pool.restore((raw) => decodeTransaction(raw, chainId));
    if (restored.restored || restored.dropped) log.info('transaction journal reloaded', restored);

    let scs: ScsService | undefined;
    const submit = async (tx: SignedTx) => {
      if (tx.shardingFlag === 0n) return pool.add(tx);
      if (!scs) throw refused('app-chain transactions (shardingFlag 1-3) need the SCS service');
      await scs.submit(tx);
    };
    const mc: McContext = {
      chain, world, pool, miner, pending, calls, wallet, chainId, gasPrice,
      decodeRaw: (raw) => decodeTransaction(raw, chainId),
      submit,
      appChainNonce: async (appChain, from) => {
        if (!scs) throw refused('app-chain transactions (shardingFlag 1-3) need the SCS service');
        return scs.chain(appChain).nextNonce(from);
      },
    };
    const net = { clientVersion: clientVersion(), networkId: config.chain.networkId, peerCount: () => 0 };
    // Handlers run only once the node exists; they reach its HTTP endpoint through `self`.
    let self: McNode | undefined;
    const http: HttpControl = {
      running: () => self?.httpAddress,
      start: (settings) => self!.startHttp(settings),
      stop: () => self!.stopHttp(),
    };
    const keystore = new Keystore(path.join(config.datadir, 'keystore'), config.accounts.lightKdf ? LIGHT_SCRYPT : STANDARD_SCRYPT);
    const keys = new KeyManager({
      keystore, wallet, allowInsecureUnlock: config.accounts.allowInsecureUnlock, httpRunning: () => http.running() !== undefined,
    });
    await keys.loadKeystore();
    await keys.unlockAtStart(config.accounts.unlock, config.accounts.password, config.rpc.enabled);
    const vnode: VnodeInfo = { ...config.vnode, address: config.vnode.address ?? dev[0]?.address ?? new Uint8Array(20) };
    // The SCS (design §9): app chains in the same database, in step with main-chain blocks.
    if (config.scs.enabled) {
      scs = await ScsService.open(
        {
          db, common, scsId: await loadOrCreateScsId(config.datadir), vnodeAddress: vnode.address, defaultOwner: vnode.address,
          mainHead: () => chain.head, blockPeriod: config.scs.blockPeriod, log,
        },
        config.appChains,
      );
      builder.participants.add(scs);
    }
    vnode.scsService = false; // true once the SCS endpoint runs (startScs)
    const admin = {
      nodeId: nodeIdOf(loadOrCreateNodeKey(config.datadir)), clientVersion: net.clientVersion, networkId: net.networkId,
      datadir: path.resolve(config.datadir), vnode, chain, peers: new StaticPeers(), http,
    };
    const chainFiles = liveChainFiles({
      db, chain, builder, miner, chainId, difficulty: difficultyRule(config, chain.genesis),
      onImportProgress: (done) => done % 1000 === 0 && log.info('importing blocks', { done }),
    });
    // Method modules, one per namespace topic. New namespaces are added to this list.
    const common_modules = [
      adminChainMethods(chainFiles),
      libxMethods(net), netMethods(net), infoMethods(mc), blockMethods(mc), stateMethods(mc), transactionMethods(mc),
      filterMethods(filters),
      miningMethods({ work, localHashrate: () => (miner.mining ? sealer.hashrate() : 0) }),
      minerMethods({
        miner,
        localMode: config.mining.mode === 'remote' || config.mining.mode === 'off' ? 'instant' : config.mining.mode,
        setThreads: (n) => sealer.setThreads(n),
        setGasPrice: (price) => {
          prices.min = price;
        },
      }),
      txpoolMethods(pool), personalMethods(keys, mc), adminMethods(admin), vnodeMethods(vnode),
    ];
    const httpApis = () => (self?.httpApis ?? []).filter((ns) => (NAMESPACES as readonly string[]).includes(ns));
    const methods = {
      http: buildMethodTable(...common_modules, rpcModules(httpApis)),
      ipc: buildMethodTable(...common_modules, rpcModules(() => NAMESPACES)),
    };
    // Closing the HTTP endpoint from a request on it would lock every HTTP client out (and a
    // client walking the method list would take the node off the air): over HTTP it is refused.
    methods.http.set('admin_stopRPC', {
      handler: () => {
        throw refused('admin_stopRPC closes the HTTP endpoint: call it over IPC');
      },
    });

    const node = new McNode(config, db, chain, world, pool, miner, wallet, methods, log);
    self = node;
    node.devAccounts.push(...dev);
    node.sealer = sealer;
    node.filters = filters;
    node.scs = scs;
    if (config.metrics.enabled) node.rpcStats = new RpcStats();
    miner.on('sealed', (block) =>
      log.info('sealed block', {
        number: block.header.number,
        txs: block.transactions.length,
        gas: block.header.gasUsed,
        hash: bytesToHex(block.hash),
      }),
    );
    miner.on('error', (err) => log.error('mining failed', { error: err.message }));
    await node.startRpc();
    await node.startMetrics();
    // vnode_scsService: the SCS endpoint runs and the operator did not switch the advertisement off.
    vnode.scsService = (await node.startScs()) && config.vnode.scsService;
    miner.start();
    // Start-up skips what the first answers do not need; load what the first block and call need
    // right after, so that they are not slower for it.
    setTimeout(() => void import('@ethereumjs/statemanager').then(() => import('@ethereumjs/evm')), 25).unref();
    return node;
  }

  private async startRpc(): Promise<void> {
    const { config } = this;
    const debug = config.verbosity >= 4;
    if (config.rpc.enabled) {
      await this.startHttp({ host: config.rpc.addr, port: config.rpc.port, corsOrigins: config.rpc.corsDomain, apis: config.rpc.api });
    }
    if (!config.ipc.disabled) {
      const ipcPath = path.resolve(config.datadir, config.ipc.path);
      checkIpcPath(ipcPath);
      this.ipc = new IpcRpcServer({ path: ipcPath, dispatcher: new Dispatcher({ methods: this.methods.ipc, debug, onCall: this.rpcStats?.observe }) });
      await this.ipc.start();
      this.endpoints.ipc = ipcPath;
    }
  }

  /** The HTTP endpoint's address while it runs (or is starting). */
  get httpAddress(): { host: string; port: number } | undefined {
    return this.http ? this.endpoints.http ?? this.httpStarting : undefined;
  }

  /** Namespaces the HTTP endpoint serves (`--rpcapi`, or admin_startRPC's list). */
  get httpApis(): readonly string[] {
    return this.http ? this.httpApiList : [];
  }

  /** Opens the one HTTP endpoint (design §6); rejects when one is already running. */
  async startHttp(settings: HttpSettings): Promise<{ host: string; port: number }> {
    if (this.closed) throw refused('node is stopping');
    if (this.http) throw refused(`HTTP RPC already running on ${settings.host}:${settings.port}`);
    const allowed = new Set<string>(settings.apis);
    const dispatcher = new Dispatcher({
      methods: this.methods.http,
      isAllowed: (name) => allowed.has(namespaceOf(name)),
      debug: this.config.verbosity >= 4,
      onCall: this.rpcStats?.observe,
    });
    const server = new HttpRpcServer({
      host: settings.host,
      port: settings.port,
      corsOrigins: settings.corsOrigins,
      vhosts: this.config.rpc.vhosts,
      route: () => dispatcher,
    });
    this.http = server;
    this.httpStarting = { host: settings.host, port: settings.port };
    this.httpApiList = settings.apis;
    try {
      await this.httpStopping; // the previous endpoint's port may be the one wanted
      this.endpoints.http = await server.start();
    } catch (err) {
      this.http = undefined;
      throw err;
    } finally {
      this.httpStarting = undefined;
    }
    this.log.info('HTTP endpoint opened', { url: `http://${this.endpoints.http.host}:${this.endpoints.http.port}`, apis: settings.apis.join(',') });
    return this.endpoints.http;
  }

  /**
   * Closes the HTTP endpoint. The close waits a moment so that the reply to an admin_stopRPC
   * sent over that very endpoint still goes out; a new start waits for it.
   */
  stopHttp(): Promise<void> {
    const server = this.http;
    if (!server) return Promise.resolve();
    this.http = undefined;
    this.endpoints.http = undefined;
    this.httpStopping = new Promise<void>((resolve) => setTimeout(resolve, 50)).then(() => server.stop());
    this.log.info('HTTP endpoint closed');
    return Promise.resolve();
  }

  /** The SCS endpoint (`scs.rpcPort`): `/` scs_*, `/rpc` ScsRPCMethod.* and scs_*. True when it runs. */
  private async startScs(): Promise<boolean> {
    const { config } = this;
    if (!this.scs) return false;
    this.scsHttp = createScsServer({ scs: this.scs, datadir: path.resolve(config.datadir) }, {
      host: config.scs.rpcAddr, port: config.scs.rpcPort, corsOrigins: config.rpc.corsDomain, vhosts: config.rpc.vhosts,
      debug: config.verbosity >= 4, onCall: this.rpcStats?.observe,
    });
    this.endpoints.scs = await this.scsHttp.start();
    return true;
  }

  /** The Prometheus endpoint (`--metrics`), on its own address and port. */
  private async startMetrics(): Promise<void> {
    const { metrics, datadir } = this.config;
    if (!metrics.enabled || !this.rpcStats) return;
    const registry = nodeMetrics({
      version: VERSION,
      headNumber: () => this.chain.head.header.number,
      poolCounts: () => this.pool.counts(),
      hashrate: () => (this.miner.mining ? this.sealer?.hashrate() ?? 0 : 0),
      mining: () => this.miner.mining,
      chaindata: path.join(datadir, 'chaindata'),
      rpc: this.rpcStats,
    });
    this.metricsServer = new MetricsServer(registry, { host: metrics.addr, port: metrics.port });
    this.endpoints.metrics = await this.metricsServer.start();
  }

  /** Stops serving, lets an in-flight block write finish, closes the database. */
  async stop(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.http?.stop();
    await this.httpStopping;
    this.pool.close();
    await this.ipc?.stop();
    await this.metricsServer?.stop();
    await this.scsHttp?.stop();
    this.filters?.stop();
    await this.miner.stop();
    await this.scs?.stop();
    await this.sealer?.close();
    await this.db.close();
  }
}

export { VERSION };
