// Wires the node together: database, chain, state, pool, miner, wallet and the RPC servers.
// Every component receives the few interfaces it uses; only this file knows them all.

import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { Config } from './config/schema.js';
import { devKeys, difficultyRule, openChainCore } from './chainCore.js';
import { checkIpcPath } from './config/load.js';
import { ConfigError } from './errors.js';
import { bytesToHex } from './encoding/hex.js';
import { Database } from './store/database.js';
import { WorldState } from './state/worldState.js';
import { Blockchain } from './blockchain/blockchain.js';
import { checkClassicAllowed, decodeTransaction } from './chain/transaction.js';
import { decodeBlockTransaction } from './chain/systemTx.js';
import type { SignedTx } from './chain/types.js';
import { TxPool } from './txpool/txPool.js';
import { Miner, type SealFunction } from './miner/miner.js';
import { PendingBlockCache } from './miner/pendingBlock.js';
import { Sealer } from './miner/sealer.js';
import type { PowEngine } from './consensus/powEngine.js';
import { CallExecutor } from './execution/call.js';
import { Wallet } from './accounts/wallet.js';
import { Keystore, LIGHT_SCRYPT, STANDARD_SCRYPT } from './accounts/keystore.js';
import { KeyManager } from './accounts/keyManager.js';
import { TxSigner } from './accounts/signer.js';
import { TxSubmitter } from './txpool/submitter.js';
import { GasPrices } from './txpool/gasPrices.js';
import { loadOrCreateNodeKey, nodeIdOf } from './admin/nodeKey.js';
import { StaticPeers } from './admin/staticPeers.js';
import { createLogger, type Logger } from './log.js';
import { Dispatcher } from './rpc/dispatch.js';
import { HttpRpcServer } from './rpc/http.js';
import { HttpEndpoint } from './rpc/httpEndpoint.js';
import { IpcRpcServer } from './rpc/ipc.js';
import { WsRpcServer } from './rpc/ws.js';
import { SubscriptionHub } from './filters/subscriptions.js';
import { subscriptionMethods } from './rpc/modules/mc/subscriptions.js';
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
import { adminMethods, adminOverHttp } from './rpc/modules/admin.js';
import { vnodeMethods, type VnodeInfo } from './rpc/modules/vnode.js';
import type { RpcMethod } from './rpc/types.js';
import { VERSION, clientVersion } from './version.js';
import { liveChainFiles } from './chainFile/liveImport.js';
import { BlockImporter } from './importer/blockImporter.js';
import { TrieNodeStore } from './state/trieNodeStore.js';
import { adminChainMethods } from './rpc/modules/adminChain.js';
import { MetricsServer } from './metrics/metricsServer.js';
import { RpcStats } from './metrics/registry.js';
import { nodeMetrics } from './metrics/nodeMetrics.js';
import { ScsService } from './scs/scsService.js';
import { loadOrCreateScsId } from './scs/scsId.js';
import { createScsServer } from './rpc/modules/scs.js';
import { DevClock } from './miner/devClock.js';
import { DevMining } from './miner/devMining.js';
import { DevSnapshots } from './miner/devSnapshots.js';
import { DevState } from './miner/devState.js';
import { devControlMethods } from './rpc/modules/devControls.js';
import { getActivePrecompiles } from '@ethereumjs/evm';
import { TraceRunner } from './tracing/traceRunner.js';
import { debugMethods } from './rpc/modules/debug.js';
import { proofMethods } from './rpc/modules/mc/proofs.js';
import { Network, readStaticNodes } from './p2p/network.js';
import { parseEnode, type Enode } from './admin/enode.js';
import { SyncService } from './sync/syncService.js';
import { chainImport } from './sync/chainImport.js';
import type { BlockImport } from './sync/types.js';


export interface NodeEndpoints {
  http?: { host: string; port: number };
  ipc?: string;
  ws?: { host: string; port: number };
  metrics?: { host: string; port: number };
  scs?: { host: string; port: number };
  /** the node's enode URL while peer-to-peer networking runs */
  p2p?: string;
}

export interface DevAccount {
  address: Uint8Array;
  privateKey: Uint8Array;
}

export class McNode {
  readonly log: Logger;
  readonly devAccounts: DevAccount[] = [];
  endpoints: NodeEndpoints = {};
  /** the one HTTP endpoint, opened by startRpc or admin_startRPC */
  private http?: HttpEndpoint;
  private ipc?: IpcRpcServer;
  /** the separate --ws endpoint (upgrades on the HTTP port belong to the HTTP endpoint) */
  private ws?: { http: HttpRpcServer; ws: WsRpcServer };
  private subscriptions?: SubscriptionHub;
  private sealer?: Sealer;
  /** the one import path for blocks from outside, and the rewind in turn with block writes */
  importer!: BlockImporter;
  /** the chain's proof of work */
  pow?: PowEngine;
  private filters?: FilterSystem;
  /** RPC calls by method, when --metrics is on (fed by the dispatchers) */
  private rpcStats?: RpcStats;
  private metricsServer?: MetricsServer;
  private scs?: ScsService;
  private scsHttp?: HttpRpcServer;
  network?: Network;
  sync?: SyncService;
  private nodeKey?: Uint8Array;
  private closed = false;

  private constructor(
    readonly config: Config,
    readonly db: Database,
    readonly chain: Blockchain,
    readonly world: WorldState,
    readonly pool: TxPool,
    readonly miner: Miner,
    readonly wallet: Wallet,
    readonly methods: { http: Map<string, RpcMethod>; ipc: Map<string, RpcMethod>; ws: Map<string, RpcMethod> },
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
    const { common, nodes, world, chain, builder, rules, pow } = await openChainCore(config, db, log);
    const chainId = config.chain.chainId;

    const wallet = new Wallet(chainId);
    const dev: DevAccount[] = devKeys(config).map((key) => ({ address: wallet.addAccount(key, true), privateKey: key }));


    const prices = new GasPrices(config.mining.gasPrice);
    const gasPrice = () => prices.suggested();
    const pool = new TxPool(db, {
      minGasPrice: () => prices.minimum(),
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
    const sealer = new Sealer({ threads, pow });
    const seal: SealFunction = (sealHash, difficulty, signal, number) => sealer.seal(sealHash, difficulty, { signal, number });
    const coinbase = config.mining.moacbase ?? dev[0]?.address ?? new Uint8Array(20);
    // State-changing developer controls only where the genesis allows them (README "Developer controls").
    const devControls = rules.devControls;
    const clock = devControls ? await DevClock.open(db) : undefined;
    const miner = new Miner(chain, pool, builder, nodes, seal, {
      mode: config.mining.mine ? config.mining.mode : 'off',
      period: config.mining.period,
      coinbase,
      extraData: config.mining.extraData,
      targetGasLimit: config.mining.targetGasLimit,
      difficulty: difficultyRule(config, chain.genesis),
      clock,
    });
    // Before the pending-block cache hears of a new head, the pool has forgotten its mined transactions.
    chain.on('newHead', ({ block }) => pool.forgetMined(block.transactions));
    // Blocks that left the canonical chain (rewind, reorganisation) give their transactions back.
    chain.on('rewound', ({ removed, returnTransactions }) => {
      log.info('blocks left the canonical chain', { count: removed.length, from: removed[0].block.header.number, head: chain.head.header.number, hash: bytesToHex(chain.head.hash) });
      pool.returnRemoved(removed.flatMap((r) => r.block.transactions), returnTransactions).catch((err: Error) => log.error('returning transactions to the pool failed', { error: err.message }));
    });
    // The one import path (peers, block files); its trie writes collect apart from the miner's.
    const importer = new BlockImporter({
      chain, builder, nodes: new TrieNodeStore(db, 20_000), chainId, difficulty: difficultyRule(config, chain.genesis), miner, pool,
      classicTxBlock: config.genesis.classicTxBlock, pow,
    });
    const pending = new PendingBlockCache(db, chain, pool, miner);
    const work = new WorkPackages(db, chain, pool, miner, pow);
    pow.prepare(chain.head.header.number + 1n); // in the background: start-up does not wait
    chain.on('newHead', ({ block }) => pow.prepare(block.header.number + 1n));
    const calls = new CallExecutor(world, (sm) => builder.createEvm(sm), () => miner.coinbase);
    const filters = new FilterSystem({ chain, pool, pending, blooms: storedBlooms(db) }, { timeoutSeconds: config.filters.timeout });
    const subscriptions = new SubscriptionHub({ chain, rewinds: chain, pool });

    // Pool admission: classic transactions only once the next block may carry them. The journal
    // holds what the pool took: signed transactions, and impersonated ones (dev controls).
    const classicAllowed = (tx: SignedTx) => checkClassicAllowed(tx, chain.head.header.number + 1n, config.genesis.classicTxBlock);
    const decodeForPool = (raw: Uint8Array) => classicAllowed(decodeTransaction(raw, chainId));
    const restored = await pool.restore((raw) => classicAllowed(decodeBlockTransaction(raw, chainId)));
    if (restored.restored || restored.dropped) log.info('transaction journal reloaded', restored);

    let scs: ScsService | undefined;
    // The peer-to-peer network starts after the node is built (startNetwork); handlers reach it through `self`.
    let self: McNode | undefined;
    const submitter = new TxSubmitter(pool, () => scs);
    const signer = new TxSigner({ wallet, gasPrice, world, chain, pool, appChainNonce: (appChain, from) => submitter.appChainNonce(appChain, from) });
    const mc: McContext = {
      chain, world, pool, miner, pending, calls, wallet, chainId, gasPrice,
      decodeRaw: decodeForPool,
      signer,
      submitter,
      syncProgress: () => self?.sync?.downloader.progress(),
    };
    const net = { clientVersion: clientVersion(), networkId: config.chain.networkId, peerCount: () => self?.network?.peerCount() ?? 0 };
    const endpoints: NodeEndpoints = {};
    const rpcStats = config.metrics.enabled ? new RpcStats() : undefined;
    const http: HttpEndpoint = new HttpEndpoint({
      methods: () => methods.http,
      vhosts: config.rpc.vhosts,
      debug: config.verbosity >= 4,
      onCall: rpcStats?.observe,
      log,
      onChange: (address) => {
        endpoints.http = address;
      },
    });
    const keystore = new Keystore(path.join(config.datadir, 'keystore'), config.accounts.lightKdf ? LIGHT_SCRYPT : STANDARD_SCRYPT);
    const keys = new KeyManager({
      keystore, wallet, allowInsecureUnlock: config.accounts.allowInsecureUnlock, httpRunning: () => http.running() !== undefined,
    });
    await keys.loadKeystore();
    await keys.unlockAtStart(config.accounts.unlock, config.accounts.password, config.rpc.enabled);
    const vnode: VnodeInfo = { ...config.vnode, address: config.vnode.address ?? dev[0]?.address ?? new Uint8Array(20) };
    // The SCS (README "Application chains (SCS)"): app chains in the same database, in step with main-chain blocks.
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
    const nodeKey = loadOrCreateNodeKey(config.datadir);
    const statics = McNode.startPeers(config);
    const admin = {
      nodeId: nodeIdOf(nodeKey), clientVersion: net.clientVersion, networkId: net.networkId,
      datadir: path.resolve(config.datadir), vnode, chain, peers: new StaticPeers(), http, pow: pow.name,
      network: () => self?.networkView(),
    };
    const chainFiles = liveChainFiles({
      chain, miner, importer,
      onImportProgress: (done) => done % 1000 === 0 && log.info('importing blocks', { done }),
    });
    // Method modules, one per namespace topic. New namespaces are added to this list.
    const common_modules = [
      adminChainMethods(chainFiles),
      libxMethods(net), netMethods(net), infoMethods(mc), blockMethods(mc), stateMethods(mc), transactionMethods(mc),
      filterMethods(filters), subscriptionMethods(subscriptions),
      miningMethods({ work, localHashrate: () => (miner.mining ? sealer.hashrate() : 0) }),
      minerMethods({
        miner,
        localMode: config.mining.mode === 'remote' || config.mining.mode === 'off' ? 'instant' : config.mining.mode,
        setThreads: (n) => sealer.setThreads(n),
        setGasPrice: (price) => {
          prices.setMinimum(price);
        },
      }),
      txpoolMethods(pool), personalMethods(keys, mc), adminMethods(admin), vnodeMethods(vnode),
    ];
    common_modules.push(proofMethods(mc));
    const precompiles = getActivePrecompiles(common);
    const traces = new TraceRunner({ world, scratchNodes: () => new TrieNodeStore(db, 5000), makeEvm: (sm) => builder.createEvm(sm), rules });
    common_modules.push(debugMethods({
      mc, traces, coinbase: () => miner.coinbase, isPrecompile: (a) => precompiles.has(bytesToHex(a).slice(2)),
    }));
    if (clock) {
      const snapshots = new DevSnapshots(db, chain, pool, clock, miner, (raw) => decodeBlockTransaction(raw, chainId));
      const state = new DevState(miner, world, pool);
      mc.impersonation = state;
      common_modules.push(devControlMethods({ mining: new DevMining(miner, chain, clock), snapshots, state, gasPrice }));
    }
    // Namespaces with no method here (the dev controls without config.devControls) are not listed.
    const served = new Set(common_modules.flatMap((m) => Object.keys(m).map(namespaceOf)));
    served.add('rpc');
    const httpApis = () => http.apis.filter((ns) => (NAMESPACES as readonly string[]).includes(ns) && served.has(ns));
    const methods: McNode['methods'] = {
      http: buildMethodTable(...common_modules, rpcModules(httpApis)),
      ipc: buildMethodTable(...common_modules, rpcModules(() => NAMESPACES.filter((ns) => served.has(ns)))),
      ws: buildMethodTable(...common_modules, rpcModules(() => config.ws.api.filter((ns) => served.has(ns)))),
    };
    for (const [name, m] of Object.entries(adminOverHttp)) methods.http.set(name, m);

    const node = new McNode(config, db, chain, world, pool, miner, wallet, methods, log);
    self = node;
    node.endpoints = endpoints;
    node.http = http;
    node.devAccounts.push(...dev);
    node.sealer = sealer;
    node.importer = importer;
    node.pow = pow;
    node.filters = filters;
    node.subscriptions = subscriptions;
    node.scs = scs;
    node.nodeKey = nodeKey;
    node.rpcStats = rpcStats;
    miner.on('sealed', (block) =>
      log.info('sealed block', {
        number: block.header.number,
        txs: block.transactions.length,
        gas: block.header.gasUsed,
        hash: bytesToHex(block.hash),
      }),
    );
    miner.on('error', (err) => log.error('mining failed', { error: err.message }));
    log.info('proof of work', { pow: pow.describe() });
    await node.startRpc();
    await node.startMetrics();
    // vnode_scsService: the SCS endpoint runs and the operator did not switch the advertisement off.
    vnode.scsService = (await node.startScs()) && config.vnode.scsService;
    await node.startNetwork(chainImport(importer), statics);
    miner.start();
    // Start-up skips what the first answers do not need; load what the first block and call need
    // right after, so that they are not slower for it.
    setTimeout(() => void import('@ethereumjs/statemanager').then(() => import('@ethereumjs/evm')), 25).unref();
    return node;
  }

  /** Peer-to-peer networking (README "Network"): the RLPx endpoint, static peers, sync. */
  /** Peers dialed at start: static-nodes.json and --bootnodes; a bad entry stops the start. */
  private static startPeers(config: Config): Enode[] {
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

  private async startNetwork(importer: BlockImport, statics: Enode[]): Promise<void> {
    const { config, chain } = this;
    if (config.p2p.maxPeers === 0 || !this.nodeKey) return;
    const extIp = /^extip:/i.test(config.p2p.nat) ? config.p2p.nat.slice(6) : undefined;
    this.network = await Network.start(
      {
        nodeKey: this.nodeKey, networkId: config.chain.networkId, genesis: chain.genesis.hash, clientId: clientVersion(),
        addr: config.p2p.addr, port: config.p2p.port, maxPeers: config.p2p.maxPeers, extIp, log: this.log,
        status: async () => ({ td: (await chain.getTotalDifficulty(chain.head.hash)) ?? 0n, head: chain.head.hash }),
      },
      [],
    );
    this.sync = new SyncService({
      host: this.network.host, chain, pool: this.pool, importer, log: this.log,
      decodeTx: (raw) => checkClassicAllowed(decodeTransaction(raw, config.chain.chainId), chain.head.header.number + 1n, config.genesis.classicTxBlock),
    });
    this.subscriptions?.watchSync(this.sync.downloader);
    for (const enode of statics) this.network.addPeer(enode);
    const { ip, port } = this.networkView()!.endpoint();
    this.endpoints.p2p = `enode://${Buffer.from(this.network.id).toString('hex')}@${ip.includes(':') ? `[${ip}]` : ip}:${port}`;
  }

  private networkView() {
    const network = this.network;
    if (!network) return undefined;
    const { addr } = this.config.p2p;
    return {
      endpoint: () => ({ ip: network.advertisedIp, port: network.port, listenAddr: `${addr.includes(':') ? `[${addr}]` : addr}:${network.port}` }),
      peers: () => network.remotePeers(),
      addPeer: (enode: Parameters<Network['addPeer']>[0]) => network.addPeer(enode),
      removePeer: (enode: Parameters<Network['removePeer']>[0]) => network.removePeer(enode),
    };
  }

  private async startRpc(): Promise<void> {
    const { config } = this;
    const debug = config.verbosity >= 4;
    if (config.rpc.enabled) {
      await this.http!.start({ host: config.rpc.addr, port: config.rpc.port, corsOrigins: config.rpc.corsDomain, apis: config.rpc.api });
    }
    if (config.ws.enabled) await this.startWs();
    if (!config.ipc.disabled) {
      const ipcPath = path.resolve(config.datadir, config.ipc.path);
      checkIpcPath(ipcPath);
      this.ipc = new IpcRpcServer({ path: ipcPath, dispatcher: new Dispatcher({ methods: this.methods.ipc, debug, onCall: this.rpcStats?.observe }) });
      await this.ipc.start();
      this.endpoints.ipc = ipcPath;
    }
  }

  /** The separate WebSocket endpoint (`--ws`): its own namespaces (`--wsapi`) and origins (`--wsorigins`). */
  private async startWs(): Promise<void> {
    const { ws, rpc, verbosity } = this.config;
    const allowed = new Set<string>(ws.api);
    const dispatcher = new Dispatcher({
      methods: this.methods.ws,
      isAllowed: (name) => allowed.has(namespaceOf(name)),
      debug: verbosity >= 4,
      onCall: this.rpcStats?.observe,
    });
    const upgrades = new WsRpcServer();
    const http = new HttpRpcServer({
      host: ws.addr, port: ws.port, corsOrigins: ws.origins, vhosts: rpc.vhosts,
      route: (p) => (p === '/' ? dispatcher : undefined), websocket: upgrades,
    });
    this.endpoints.ws = await http.start();
    this.ws = { http, ws: upgrades };
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
    await this.network?.stop();
    await this.http?.close();
    this.ws?.ws.stop();
    await this.ws?.http.stop();
    this.subscriptions?.stop();
    this.pool.close();
    await this.ipc?.stop();
    await this.metricsServer?.stop();
    await this.scsHttp?.stop();
    this.filters?.stop();
    await this.miner.stop();
    await this.scs?.stop();
    await this.sealer?.close();
    await this.pow?.close();
    await this.db.close();
  }
}

export { VERSION };
