// Wires the node together: database, chain, state, pool, miner, wallet and the RPC servers.
// Every component receives the few interfaces it uses; only this file knows them all.

import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { devAccounts, forkConfig, genesisSpec, openChainCore } from './chainCore.js';
import { startFork, type ForkStart } from '../fork/forkStart.js';
import { forkExport, forkRecordsInto, forkRequest, type OpenFork } from './forkChain.js';
import { ChainHistory } from '../blockchain/chainHistory.js';
import { ForkReset } from '../devControls/forkReset.js';
import { forkResetMethods } from '../rpc/modules/forkReset.js';
import { forkBaseRoot } from '../state/forkTrie.js';
import type { DevSetter } from '../chain/systemTx.js';
import { bytesToHex } from '../encoding/hex.js';
import { Database } from '../store/database.js';
import { WorldState } from '../state/worldState.js';
import { Blockchain } from '../blockchain/blockchain.js';
import { checkClassicAllowed, decodeTransaction } from '../chain/transaction.js';
import { secp256k1 } from '../chain/secp256k1.js';
import { decodeBlockTransaction } from '../chain/systemTx.js';
import type { SignedTx } from '../chain/types.js';
import { TxPool } from '../txpool/txPool.js';
import { PoolEntries } from '../store/poolEntries.js';
import { Miner, type SealFunction } from '../miner/miner.js';
import { PendingBlockCache } from '../miner/pendingBlock.js';
import { Sealer } from '../miner/sealer.js';
import type { PowEngine } from '../consensus/powEngine.js';
import { CallExecutor, type CallOptions } from '../execution/call.js';
import { CallMonitor } from '../execution/callMonitor.js';
import { Wallet } from '../accounts/wallet.js';
import { Keystore, LIGHT_SCRYPT, STANDARD_SCRYPT } from '../accounts/keystore.js';
import { KeyManager } from '../accounts/keyManager.js';
import { TxSigner } from '../accounts/signer.js';
import { TxSubmitter } from '../txpool/submitter.js';
import { GasPrices } from '../txpool/gasPrices.js';
import { loadOrCreateNodeKey, nodeIdOf } from '../admin/nodeKey.js';
import { StaticPeers } from '../admin/staticPeers.js';
import { createLogger, switchableLogger, type Logger } from '../log.js';
import { randomBytes } from 'node:crypto';
import { HttpEndpoint } from '../rpc/httpEndpoint.js';
import { Dispatcher, StartGate } from '../rpc/dispatch.js';
import { ExplorerSite, explorerAssetDir } from '../rpc/explorerSite.js';
import { EXPLORER_SCS_PATH, scsReadMethods } from '../rpc/modules/scs.js';
import { SubscriptionHub } from '../filters/subscriptions.js';
import { subscriptionMethods } from '../rpc/modules/mc/subscriptions.js';
import { buildMethodTable, namespaceOf, rpcModules, NAMESPACES } from '../rpc/modules/index.js';
import { libxMethods, netMethods } from '../rpc/modules/libx.js';
import { blockMethods } from '../rpc/modules/mc/blocks.js';
import { stateMethods } from '../rpc/modules/mc/state.js';
import { transactionMethods } from '../rpc/modules/mc/transactions.js';
import { blockReadMethods } from '../rpc/modules/mc/blockReads.js';
import { simulateMethods } from '../rpc/modules/simulate.js';
import { Simulator } from '../execution/simulate.js';
import { accountReadMethods } from '../rpc/modules/mc/accountReads.js';
import { signingMethods } from '../rpc/modules/mc/signing.js';
import { infoMethods } from '../rpc/modules/mc/info.js';
import { miningMethods } from '../rpc/modules/mc/mining.js';
import { minerMethods } from '../rpc/modules/miner.js';
import { WorkPackages } from '../miner/workPackages.js';
import { filterMethods } from '../rpc/modules/mc/filters.js';
import { FilterSystem } from '../filters/filterSystem.js';
import { storedBlooms } from '../filters/blockBlooms.js';
import { NodeBackend } from './mcBackend.js';
import { txpoolMethods } from '../rpc/modules/txpool.js';
import { personalMethods } from '../rpc/modules/personal.js';
import { adminMethods, adminOverHttp } from '../rpc/modules/admin.js';
import { vnodeMethods, type VnodeInfo } from '../rpc/modules/vnode.js';
import { VERSION, clientVersion, compatClientVersion } from '../version.js';
import { liveChainFiles } from '../chainFile/liveImport.js';
import { BlockImporter } from '../importer/blockImporter.js';
import { TrieNodeStore } from '../state/trieNodeStore.js';
import { adminChainMethods } from '../rpc/modules/adminChain.js';
import { RpcStats } from '../metrics/registry.js';
import { nodeMetrics } from '../metrics/nodeMetrics.js';
import { ScsService } from '../scs/scsService.js';
import { openScsId } from '../scs/scsId.js';
import { DevClock } from '../devControls/devClock.js';
import { DevMining } from '../devControls/devMining.js';
import { DevSnapshots } from '../devControls/devSnapshots.js';
import { DevState } from '../devControls/devState.js';
import { devControlMethods, stateFileMethods } from '../rpc/modules/devControls.js';
import { StateFiles } from '../devControls/stateFiles.js';
import { activePrecompiles, createChainEvm } from '../execution/evm.js';
import { printConsole } from '../execution/consoleLog.js';
import { TraceRunner } from '../tracing/traceRunner.js';
import { debugMethods } from '../rpc/modules/debug.js';
import { proofMethods } from '../rpc/modules/mc/proofs.js';
import { chainImport } from '../sync/chainImport.js';
import { RpcEndpoints, type MethodTables, type NodeEndpoints } from './rpcEndpoints.js';
import { AddressIndexReader } from '../blockchain/addressIndex.js';
import { AddressIndexRebuild } from '../blockchain/addressIndexRebuild.js';
import { TransactionSearch } from '../blockchain/transactionSearch.js';
import { ChainTraces } from '../tracing/chainTraces.js';
import { FlatCallTracer, creatorIn } from '../tracing/flatCallTracer.js';
import { TouchTracer } from '../tracing/touchTracer.js';
import { otsMethods } from '../rpc/modules/ots.js';
import { traceMethods } from '../rpc/modules/trace.js';
import { DEFAULT_LOG_LIMITS } from '../filters/logQuery.js';
import { blockReward } from '../execution/gas.js';
import { NodeNetwork } from './nodeNetwork.js';


export interface DevAccount {
  address: Uint8Array;
  privateKey: Uint8Array;
}

/** Everything the node runs, built by `assemble` before the node exists. */
interface NodeParts {
  config: Config;
  log: Logger;
  db: Database;
  chain: Blockchain;
  world: WorldState;
  pool: TxPool;
  miner: Miner;
  wallet: Wallet;
  methods: MethodTables;
  devAccounts: DevAccount[];
  sealer: Sealer;
  /** the one import path for blocks from outside, and the rewind in turn with block writes */
  importer: BlockImporter;
  /** the chain's proof of work */
  pow: PowEngine;
  filters: FilterSystem;
  subscriptions: SubscriptionHub;
  scs?: ScsService;
  /** the RPC listeners: HTTP, WebSocket, IPC, SCS, metrics */
  rpc: RpcEndpoints;
  network: NodeNetwork;
  /** holds every call until start-up has finished */
  gate: StartGate;
  /** the address index's rebuild for a datadir made before it existed */
  addressIndex: AddressIndexRebuild;
  /** a fork datadir's fork */
  fork?: OpenFork;
  /** --dump-state / --load-state and anvil_dumpState / anvil_loadState */
  stateFiles: StateFiles;
}

export interface StartOptions {
  /**
   * Runs once every listener is bound and before the first call is answered (the CLI writes its
   * banner here), so that what a client reads after its first answer is already there.
   */
  beforeServing?: (node: McNode) => void;
}

export class McNode {
  readonly config: Config;
  readonly log: Logger;
  readonly db: Database;
  readonly chain: Blockchain;
  readonly world: WorldState;
  readonly pool: TxPool;
  readonly miner: Miner;
  readonly wallet: Wallet;
  readonly methods: MethodTables;
  readonly devAccounts: readonly DevAccount[];
  readonly importer: BlockImporter;
  readonly pow: PowEngine;
  readonly network: NodeNetwork;
  /** in a fork datadir: its fork (docs/fork-mode.md) */
  readonly fork: OpenFork | undefined;
  private stopping?: Promise<void>;

  private constructor(private readonly parts: NodeParts) {
    ({
      config: this.config, log: this.log, db: this.db, chain: this.chain, world: this.world, pool: this.pool, miner: this.miner,
      wallet: this.wallet, methods: this.methods, devAccounts: this.devAccounts, importer: this.importer, pow: this.pow, network: this.network,
      fork: this.fork,
    } = parts);
  }

  /** The listeners' addresses (the banner prints them); HTTP's change with admin_startRPC/stopRPC. */
  get endpoints(): NodeEndpoints {
    return this.parts.rpc.addresses;
  }

  /**
   * Opens the data directory, builds every part and binds every listener. A failure at any step
   * closes what was opened so far (listeners, workers, the database and its lock) before it
   * rejects: a library caller's process keeps running and may start a node on the directory again.
   */
  static async start(config: Config, log: Logger = createLogger(config.verbosity), options: StartOptions = {}): Promise<McNode> {
    const chaindata = path.join(config.datadir, 'chaindata');
    // A new fork asks the upstream before anything is written: an unreachable one leaves no datadir behind.
    const forkStart: ForkStart | undefined = config.fork.url && !existsSync(path.join(chaindata, 'CURRENT'))
      ? await startFork(forkRequest(config, log))
      : undefined;
    let db: Database;
    try {
      db = await Database.open(chaindata);
    } catch (err) {
      await forkStart?.cache.close();
      throw err;
    }
    const opened: Partial<NodeParts> = { config, log, db };
    let node: McNode;
    try {
      node = await McNode.assemble(config, db, log, opened, forkStart);
    } catch (err) {
      await closeParts(opened);
      throw err;
    }
    try {
      // --load-state: one block before the first call is answered, so every answer sees it.
      if (config.state.load) await node.parts.stateFiles.readFile(config.state.load);
      options.beforeServing?.(node);
    } catch (err) {
      await node.stop();
      throw err;
    }
    node.parts.gate.open();
    return node;
  }

  /** Builds the node; each part that needs closing goes into `opened` as soon as it exists. */
  private static async assemble(given: Config, db: Database, baseLog: Logger, opened: Partial<NodeParts>, forkStart?: ForkStart): Promise<McNode> {
    // anvil_setLoggingEnabled(false) quiets the node's info and debug lines; warnings and errors stay.
    const logging = { enabled: true };
    const log = switchableLogger(baseLog, logging);
    const accounts = devAccounts(given);
    const core = await openChainCore(given, db, log, genesisSpec(given, accounts), forkStart);
    opened.fork = core.fork;
    opened.pow = core.pow;
    return McNode.assembleOn(forkConfig(given, core.fork, log), db, log, accounts, core, logging, opened);
  }

  private static async assembleOn(config: Config, db: Database, log: Logger, accounts: ReturnType<typeof devAccounts>, core: Awaited<ReturnType<typeof openChainCore>>,
    logging: { enabled: boolean }, opened: Partial<NodeParts>,
  ): Promise<McNode> {
    const { common, nodes, world, chain, builder, rules, pow, reader, difficulty, fork } = core;
    const chainId = core.chainId;
    // console.log (docs/explorer.md#consolelog): calls, estimates and traces print as they finish,
    // mined transactions once their block is stored.
    if (config.console.log) {
      const sink = (label: string, line: string) => log.info(`console.log: ${line}`, { tx: label });
      builder.consoleSink = sink;
      chain.on('newHead', ({ block, receipts }) => receipts.forEach((r, i) => {
        if (!r.console) return;
        printConsole(sink, bytesToHex(block.transactions[i].hash), r.console);
        r.console = undefined;
      }));
    }

    const wallet = new Wallet(chainId);
    const dev: DevAccount[] = accounts.map(({ privateKey, address }) => ({ address: wallet.addAccount(privateKey, true, address), privateKey }));

    const prices = new GasPrices(config.mining.gasPrice);
    const gasPrice = () => prices.suggested();
    const pool = new TxPool(new PoolEntries(db), {
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
      headRoot: () => chain!.head.header.stateRoot,
      journalPath: path.join(config.datadir, 'txpool.journal'),
    });
    opened.pool = pool;

    const threads = config.mining.threads > 0 ? config.mining.threads : availableParallelism();
    // Instant mining seals one-transaction blocks at the devnet difficulty: on the search thread,
    // the event loop admits the next transactions meanwhile.
    const sealer = new Sealer({ threads, pow, searchThread: true });
    opened.sealer = sealer;
    const seal: SealFunction = (sealHash, difficulty, signal, number, inline) => sealer.seal(sealHash, difficulty, { signal, number, inline });
    const coinbase = config.mining.moacbase ?? dev[0]?.address ?? new Uint8Array(20);
    // State-changing developer controls only where the genesis allows them (docs/developer-controls.md).
    const devControls = rules.devControls;
    const clock = devControls ? await DevClock.open(db) : undefined;
    const miner = new Miner(chain, pool, builder, nodes, seal, {
      mode: config.mining.mine ? config.mining.mode : 'off',
      period: config.mining.period,
      coinbase,
      extraData: config.mining.extraData,
      targetGasLimit: config.mining.targetGasLimit,
      difficulty,
      clock,
    });
    opened.miner = miner;
    // Before the pending-block cache hears of a new head, the pool has forgotten its mined transactions.
    chain.on('newHead', ({ block }) => pool.forgetMined(block.transactions));
    // Blocks that left the canonical chain (rewind, reorganisation) give their transactions back.
    chain.on('rewound', ({ removed, returnTransactions }) => {
      log.info('blocks left the canonical chain', { count: removed.length, from: removed[0].block.header.number, head: chain.head.header.number, hash: bytesToHex(chain.head.hash) });
      pool.returnRemoved(removed.flatMap((r) => r.block.transactions), returnTransactions).catch((err: Error) => log.error('returning transactions to the pool failed', { error: err.message }));
    });
    // The one import path (peers, block files); its trie writes collect apart from the miner's.
    const importer = new BlockImporter({
      chain, builder, nodes: new TrieNodeStore(db, 8 * 2 ** 20), chainId, difficulty, miner, pool,
      classicTxBlock: rules.classicTxBlock, pow,
    });
    const pending = new PendingBlockCache(nodes, chain, pool, miner);
    const work = new WorkPackages(nodes, chain, pool, miner, pow);
    pow.prepare(chain.head.header.number + 1n); // in the background: start-up does not wait
    chain.on('newHead', ({ block }) => pow.prepare(block.header.number + 1n));
    // Calls and estimates (main chain and app chains): the interpreter's switch and verification,
    // geth's bounds, and one monitor whose counters /metrics shows.
    const callOptions: CallOptions = {
      fastCall: config.rpc.fastCall, verifyEvery: config.rpc.fastCallVerify, timeoutMs: config.rpc.evmTimeout,
      gasCap: config.rpc.gasCap, monitor: new CallMonitor(log),
    };
    const calls = new CallExecutor(world, (sm) => builder.createEvm(sm), callOptions);
    // In a fork, lookups and queries below the fork block go to the upstream's history; filters see local blocks only.
    if (reader instanceof ChainHistory) reader.isLocal = (hash) => pool.get(hash) !== undefined;
    const filters = new FilterSystem(
      { chain, pool, pending, blooms: storedBlooms(db), reader, history: fork?.runtime.history },
      { timeoutSeconds: config.filters.timeout },
    );
    const subscriptions = new SubscriptionHub({ chain, rewinds: chain, pool });
    Object.assign(opened, { filters, subscriptions });

    // Pool admission: classic transactions only once the next block may carry them. The journal
    // holds what the pool took: signed transactions, and impersonated ones (dev controls).
    const classicAllowed = (tx: SignedTx) => checkClassicAllowed(tx, chain.head.header.number + 1n, rules.classicTxBlock);
    const decodeForPool = (raw: Uint8Array) => classicAllowed(decodeTransaction(raw, chainId));
    const restored = await pool.restore((raw) => classicAllowed(decodeBlockTransaction(raw, chainId)));
    if (restored.restored || restored.dropped) log.info('transaction journal reloaded', restored);

    const endpoints: NodeEndpoints = {};
    const gate = new StartGate();
    const rpcStats = config.metrics.enabled ? new RpcStats() : undefined;
    // The explorer (docs/explorer.md): its pages, and a read-only window on the SCS for them once the SCS runs.
    const explorerDir = config.explorer.enabled ? explorerAssetDir() : undefined;
    if (config.explorer.enabled && !explorerDir) log.warn('the explorer\'s files are missing from the package; /explorer is off');
    const site = explorerDir ? new ExplorerSite(explorerDir, config.explorer.signatures) : undefined;
    const explorerRoutes = new Map<string, Dispatcher>();
    const fastPathCounts = { requests: 0, handOvers: 0 };
    const http: HttpEndpoint = new HttpEndpoint({
      site,
      routes: () => explorerRoutes,
      methods: () => methods.http,
      vhosts: config.rpc.vhosts,
      debug: config.verbosity >= 4,
      fastPath: config.http.fastPath,
      fastPathCounts,
      onCall: rpcStats?.observe,
      gate,
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
    // The SCS (docs/scs.md): app chains in the same database, in step with main-chain blocks.
    // A fresh datadir's SCS key file (~30-50 ms of scrypt in the thread pool) is written once the
    // main endpoint is open; the service holds app-chain writes and the SCS endpoint until then.
    const scsId = config.scs.enabled ? await openScsId(config.datadir) : undefined;
    const scs = scsId
      ? await ScsService.open(
        {
          db, common, scsId: scsId.id, storeId: scsId.stored, vnodeAddress: vnode.address, defaultOwner: vnode.address,
          mainHead: () => chain.head, blockPeriod: config.scs.blockPeriod, log, calls: callOptions,
        },
        config.appChains,
      )
      : undefined;
    opened.scs = scs;
    if (scs) builder.participants.add(scs);
    if (scs && site) explorerRoutes.set(EXPLORER_SCS_PATH, new Dispatcher({ methods: buildMethodTable(scsReadMethods({ scs, datadir: config.datadir })), gate }));
    // The peer-to-peer network starts last (after the RPC modules are built); handlers ask this holder at call time.
    const nodeKey = loadOrCreateNodeKey(config.datadir);
    const network = new NodeNetwork({ config, log, nodeKey, chain, pool, decodeTx: decodeForPool });
    opened.network = network;
    const submitter = new TxSubmitter(pool, () => scs);
    const signer = new TxSigner({ wallet, gasPrice, world, chain, pool, appChainNonce: (appChain, from) => submitter.appChainNonce(appChain, from) });
    const backend = new NodeBackend({
      chain: reader, heads: chain, world, pool, miner, pending, calls, wallet, chainId, gasPrice, decodeRaw: decodeForPool, signer, submitter,
      syncProgress: () => network.syncProgress(),
    });
    const net = { clientVersion: clientVersion(), networkId: config.chain.networkId, peerCount: () => network.peerCount() };
    vnode.scsService = false; // true once the SCS endpoint runs
    const admin = {
      nodeId: nodeIdOf(nodeKey), clientVersion: net.clientVersion, networkId: net.networkId,
      datadir: path.resolve(config.datadir), vnode, chain, peers: new StaticPeers(), http, pow: pow.name,
      network: () => network.view(),
    };
    const chainFiles = liveChainFiles({
      chain, miner, importer,
      fork: fork && forkExport(fork, rules), forkRecords: fork && (() => forkRecordsInto(fork.runtime)),
      onImportProgress: (done) => done % 1000 === 0 && log.info('importing blocks', { done }),
    });
    // Method modules, one per namespace topic. New namespaces are added to this list.
    const common_modules = [
      adminChainMethods(chainFiles),
      libxMethods({ ...net, clientVersion: compatClientVersion(config.compat) }), netMethods(net), infoMethods(backend), blockMethods(backend), stateMethods(backend), transactionMethods(backend),
      blockReadMethods(backend), accountReadMethods(backend), signingMethods(backend),
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
      txpoolMethods(pool), personalMethods(keys, backend), adminMethods(admin), vnodeMethods(vnode),
    ];
    common_modules.push(proofMethods(backend));
    let precompiles: Map<string, unknown> | undefined; // on first use: the EVM library loads with the first EVM
    const traces = new TraceRunner({
      world, scratchNodes: () => TrieNodeStore.scratchOver(nodes), makeEvm: (sm) => builder.createEvm(sm), rules, gasCap: config.rpc.gasCap,
    });
    common_modules.push(simulateMethods({
      backend, simulator: new Simulator({ world, scratchNodes: () => TrieNodeStore.scratchOver(nodes), makeEvm: (sm) => builder.createEvm(sm) }),
    }));
    common_modules.push(debugMethods({
      backend, traces, defaultTimeoutMs: config.rpc.evmTimeout, isPrecompile: (a) => (precompiles ??= activePrecompiles(common)).has(bytesToHex(a).slice(2)),
    }));
    // Explorer support (docs/explorer.md): Otterscan's ots_* over the address index, OpenEthereum's trace_*.
    const chainTraces = new ChainTraces(chain, traces);
    // The rebuild replays old blocks on EVMs without a console capture: their lines were printed when they were mined.
    const quietTraces = new TraceRunner({
      world, scratchNodes: () => TrieNodeStore.scratchOver(nodes), makeEvm: (sm) => createChainEvm(common, sm, chain), rules, gasCap: config.rpc.gasCap,
    });
    const addressIndex = await AddressIndexRebuild.open({
      db, chain, replay: (block) => new ChainTraces(chain, quietTraces).block(block, () => new TouchTracer()),
      log: (message, fields) => log.info(message, fields), warn: (message, fields) => log.warn(message, fields),
    });
    opened.addressIndex = addressIndex;
    const search = new TransactionSearch({
      chain, index: new AddressIndexReader(db), building: () => addressIndex.building,
      nonceAt: async (address, number) => {
        const block = await chain.getBlockByNumber(number);
        return block ? (await world.getAccount(block.header.stateRoot, address))?.nonce ?? 0n : 0n;
      },
      creatorIn: async (txHash, address) => creatorIn((await chainTraces.transaction(txHash, () => new FlatCallTracer()))?.result.root, address),
    });
    common_modules.push(
      otsMethods({ chain, traces: chainTraces, search, blockReward, codeAt: async (address, tag) => (await backend.stateAt(tag)).getCode(address) }),
      traceMethods({ chain, traces: chainTraces, blockReward, defaultFrom: () => wallet.firstAccount(), limits: DEFAULT_LOG_LIMITS }),
    );
    let devState: DevState | undefined;
    if (clock) {
      const snapshots = new DevSnapshots(db, chain, pool, clock, miner, (raw) => decodeBlockTransaction(raw, chainId));
      const state = await DevState.open(miner, world, pool, db);
      devState = state;
      backend.impersonation = state;
      state.autoImpersonate = config.accounts.autoImpersonate;
      const controls = devControlMethods({
        mining: new DevMining(miner, chain, clock), snapshots, state, gasPrice, backend, traces, compat: config.compat,
        setMinGasPrice: (price) => prices.setMinimum(price), configuredGasLimit: config.mining.targetGasLimit,
        clientVersion: clientVersion(), instanceId: randomBytes(32), hardfork: config.chain.hardfork, logging,
      });
      common_modules.push(controls);
      if (fork) {
        const reset = new ForkReset({
          fork: fork.runtime, chain, miner, pool, snapshots, log,
          rewindTo: (hash, opts) => importer.rewindTo(hash, opts),
          clearReaders: () => world.clearReaders(),
          request: (url, block) => ({ ...forkRequest({ ...config, fork: { ...config.fork, url, block } }, log), cacheDir: fork.runtime.cache.dir }),
          start: (req) => startFork(req, fork.runtime.cache),
          baseRoot: async (hash) => {
            const scratch = new TrieNodeStore(db);
            return { root: await forkBaseRoot(scratch, hash), ops: scratch.drainWrites() };
          },
          funding: () => devFunding(dev, config.accounts.devBalance),
        });
        // In a fork, reset means the fork block (or another fork), not genesis: its names replace the plain ones.
        const forkMethods = forkResetMethods(reset);
        for (const name of Object.keys(forkMethods)) delete controls[name];
        common_modules.push(forkMethods);
      }
    }
    const stateFiles = new StateFiles({ world, db, head: () => chain.head, log, state: devState });
    if (devState) common_modules.push(stateFileMethods(stateFiles));
    // Namespaces with no method here (the dev controls without config.devControls) are not listed.
    const served = new Set(common_modules.flatMap((m) => Object.keys(m).map(namespaceOf)));
    served.add('rpc');
    const httpApis = () => http.apis.filter((ns) => (NAMESPACES as readonly string[]).includes(ns) && served.has(ns));
    const methods: MethodTables = {
      http: buildMethodTable(...common_modules, rpcModules(httpApis)),
      ipc: buildMethodTable(...common_modules, rpcModules(() => NAMESPACES.filter((ns) => served.has(ns)))),
      ws: buildMethodTable(...common_modules, rpcModules(() => config.ws.api.filter((ns) => served.has(ns)))),
    };
    for (const [name, m] of Object.entries(adminOverHttp)) methods.http.set(name, m);

    const rpc = new RpcEndpoints({
      config, methods, http, addresses: endpoints, rpcStats, fastPathCounts, scs, gate,
      metrics: rpcStats && (() => nodeMetrics({
        version: VERSION, headNumber: () => chain.head.header.number, poolCounts: () => pool.counts(),
        hashrate: () => (miner.mining ? sealer.hashrate() : 0), mining: () => miner.mining,
        chaindata: path.join(config.datadir, 'chaindata'), rpc: rpcStats, httpFastPath: fastPathCounts, calls: () => callOptions.monitor!.counters,
        fork: fork && {
          requests: () => fork.runtime.requests, hits: () => fork.runtime.counters.hits, misses: () => fork.runtime.counters.misses,
        },
      })),
    });
    opened.rpc = rpc;
    const node = new McNode({
      config, log, db, chain, world, pool, miner, wallet, methods, devAccounts: dev, sealer, importer, pow, filters, subscriptions, scs, rpc, network, gate, fork,
      addressIndex, stateFiles,
    });
    miner.on('sealed', (block) =>
      log.info('sealed block', {
        number: block.header.number,
        txs: block.transactions.length,
        gas: block.header.gasUsed,
        hash: bytesToHex(block.hash),
      }),
    );
    // A bulk run (anvil_mine) logs one line, not one per block.
    miner.on('sealedRun', (blocks) =>
      log.info('sealed blocks', {
        from: blocks[0].header.number,
        to: blocks[blocks.length - 1].header.number,
        hash: bytesToHex(blocks[blocks.length - 1].hash),
      }),
    );
    miner.on('error', (err) => log.error('mining failed', { error: err.message }));
    log.info('proof of work', { pow: pow.describe() });
    // A fork's first local block funds the dev accounts (docs/fork-mode.md#a-fork-is-a-datadir); also after a crash before it was sealed.
    if (fork && chain.head === chain.genesis && dev.length) {
      const block = await miner.sealSetters(devFunding(dev, config.accounts.devBalance));
      log.info('funded the dev accounts', { count: dev.length, block: block.header.number, hash: bytesToHex(block.hash) });
    }
    const running = await rpc.start();
    // vnode_scsService: the SCS endpoint runs and the operator did not switch the advertisement off.
    vnode.scsService = running.scs && config.vnode.scsService;
    endpoints.p2p = await network.start(chainImport(importer), (sync) => subscriptions.watchSync(sync.downloader));
    miner.start();
    addressIndex.start();
    // Start-up skips what the first answers do not need; load what the first block and call need
    // right after, so that they are not slower for it.
    setTimeout(() => {
      secp256k1(); // signature recovery of the first transaction
      void import('@ethereumjs/statemanager').then(() => import('@ethereumjs/evm'));
    }, 25).unref();
    return node;
  }

  /**
   * The HTTP endpoint's rules without its socket, for the library's in-process provider: the HTTP
   * method table, the namespaces of `rpc.api`, the same start gate and metrics.
   */
  inProcessDispatcher(): Dispatcher {
    return this.parts.rpc.inProcessDispatcher();
  }

  /** Stops serving, lets an in-flight block write finish, closes the database. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= closeParts(this.parts);
    return this.stopping;
  }
}

/**
 * Closes what a node opened, in order: listeners and peers first, then the miner and its pending
 * writes, the pool, the workers, the database. Parts that were never opened (a start that failed
 * half-way) are skipped; a failure to close one is logged and the rest still close.
 */
async function closeParts(parts: Partial<NodeParts>): Promise<void> {
  const { network, rpc, addressIndex, subscriptions, pool, filters, miner, scs, sealer, pow, fork, db, log, config, stateFiles } = parts;
  const dump = config?.state.dump;
  const steps: [string, (() => unknown) | undefined][] = [
    ['network', network && (() => network.stop())],
    ['endpoints', rpc && (() => rpc.stop())],
    ['address index', addressIndex && (() => addressIndex.stop())],
    ['subscriptions', subscriptions && (() => subscriptions.stop())],
    ['filters', filters && (() => filters.stop())],
    ['miner', miner && (() => miner.stop())],
    // --dump-state: the head once nothing can move it any more. A failure is logged: the chain itself is safe.
    ['state dump', dump !== undefined && stateFiles ? (() => stateFiles.writeFile(dump).catch((err: Error) => log?.error('writing --dump-state failed', { file: dump, error: err.message }))) : undefined],
    ['scs', scs && (() => scs.stop())],
    // After the last block write: its pool updates may still journal removals.
    ['pool', pool && (async () => {
      await pool.settled();
      pool.close();
    })],
    ['sealer', sealer && (() => sealer.close())],
    ['pow', pow && (() => pow.close())],
    ['fork', fork && (async () => {
      fork.runtime.close();
      await fork.runtime.cache.close();
    })],
  ];
  let failed: unknown;
  for (const [name, step] of steps) {
    try {
      await step?.();
    } catch (err) {
      log?.error('closing failed', { part: name, error: (err as Error).message });
      failed ??= err;
    }
  }
  // The database last, whatever failed before: its lock is what a next start on the directory needs.
  await db?.close();
  if (failed !== undefined) throw failed;
}

/** The setters giving each dev account `balance` (a fork's first block). */
function devFunding(dev: DevAccount[], balance: bigint): DevSetter[] {
  return dev.map((a) => ({ op: 'setBalance', address: a.address, value: balance }));
}

export { VERSION };
