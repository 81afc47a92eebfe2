// Wires the node together: database, chain, state, pool, miner, wallet and the RPC servers.
// Every component receives the few interfaces it uses; only this file knows them all.

import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Mainnet, createCustomCommon, type Common } from '@ethereumjs/common';
import type { Config } from './config/schema.js';
import { ConfigError, refused } from './errors.js';
import { bytesToHex } from './encoding/hex.js';
import { Database } from './store/database.js';
import { TrieNodeStore } from './state/trieNodeStore.js';
import { WorldState } from './state/worldState.js';
import { Blockchain } from './blockchain/blockchain.js';
import { buildGenesis, type GenesisSpec } from './blockchain/genesis.js';
import { decodeTransaction } from './chain/transaction.js';
import type { SignedTx } from './chain/types.js';
import { TxPool } from './txpool/txPool.js';
import { BlockBuilder } from './miner/blockBuilder.js';
import { Miner, type SealFunction } from './miner/miner.js';
import { PendingBlockCache } from './miner/pendingBlock.js';
import { Sealer } from './miner/sealer.js';
import { CallExecutor } from './execution/call.js';
import { Wallet } from './accounts/wallet.js';
import { deriveDevKeys, privateKeyToAddress } from './accounts/keys.js';
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
import type { McContext } from './rpc/modules/mc/context.js';
import type { RpcMethod } from './rpc/types.js';
import { VERSION, clientVersion } from './version.js';

/** The suggested gas price (mc_gasPrice) when the minimum accepted price is below it: 20 Gsha. */
export const DEFAULT_GAS_PRICE = 20_000_000_000n;

export interface NodeEndpoints {
  http?: { host: string; port: number };
  ipc?: string;
}

export interface DevAccount {
  address: Uint8Array;
  privateKey: Uint8Array;
}

export function createCommon(config: Config): Common {
  return createCustomCommon({ chainId: Number(config.chain.chainId), name: 'mcnode' }, Mainnet, {
    hardfork: config.chain.hardfork,
  });
}

export function devKeys(config: Config): Uint8Array[] {
  return [...deriveDevKeys(config.accounts.mnemonic, config.accounts.devCount), ...config.accounts.keys];
}

/** The genesis spec of the config with the dev accounts funded. */
export function genesisSpec(config: Config): GenesisSpec {
  const alloc = new Map(config.genesis.alloc);
  for (const key of devKeys(config)) {
    const hex = bytesToHex(privateKeyToAddress(key));
    if (!alloc.has(hex)) alloc.set(hex, { balance: config.accounts.devBalance });
  }
  return { ...config.genesis, alloc };
}

export class McNode {
  readonly log: Logger;
  readonly devAccounts: DevAccount[] = [];
  endpoints: NodeEndpoints = {};
  private http?: HttpRpcServer;
  private ipc?: IpcRpcServer;
  private sealer?: Sealer;
  private filters?: FilterSystem;
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
    const common = createCommon(config);
    const nodes = new TrieNodeStore(db);
    const world = new WorldState(nodes, common);
    const chainId = config.chain.chainId;

    const wallet = new Wallet(chainId);
    const dev: DevAccount[] = devKeys(config).map((key) => ({ address: wallet.addAccount(key, true), privateKey: key }));

    let chain = await Blockchain.open(db);
    if (!chain) {
      const { block, stateOps } = await buildGenesis(genesisSpec(config), world);
      chain = await Blockchain.create(db, block, stateOps);
      log.info('wrote genesis block', { hash: bytesToHex(block.hash) });
    }
    if (!(await world.hasState(chain.head.header.stateRoot))) {
      throw new ConfigError('the head block has no state in the database; the datadir is damaged');
    }

    // miner_setGasPrice moves the minimum; mc_gasPrice suggests at least 20 Gsha.
    const prices = { min: config.mining.gasPrice };
    const gasPrice = () => (prices.min > DEFAULT_GAS_PRICE ? prices.min : DEFAULT_GAS_PRICE);
    const pool = new TxPool(db, {
      minGasPrice: prices.min,
      priceBump: BigInt(config.txpool.priceBump),
      globalSlots: config.txpool.globalSlots,
      globalQueue: config.txpool.globalQueue,
      accountQueue: config.txpool.accountQueue,
      blockGasLimit: () => chain!.head.header.gasLimit,
      accountAt: async (address) => {
        const account = await world.getAccount(chain!.head.header.stateRoot, address);
        return { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n };
      },
    });

    const threads = config.mining.threads > 0 ? config.mining.threads : availableParallelism();
    const sealer = new Sealer({ threads });
    const seal: SealFunction = (sealHash, difficulty, signal) => sealer.seal(sealHash, difficulty, { signal });
    const builder = new BlockBuilder(world, common, chain);
    const coinbase = config.mining.moacbase ?? dev[0]?.address ?? new Uint8Array(20);
    const miner = new Miner(chain, pool, builder, nodes, seal, {
      mode: config.mining.mine ? config.mining.mode : 'off',
      period: config.mining.period,
      coinbase,
      extraData: config.mining.extraData,
      targetGasLimit: config.mining.targetGasLimit,
      difficulty: {
        mode: config.mining.difficulty,
        genesisDifficulty: chain.genesis.header.difficulty,
        targetBlockTime: BigInt(config.mining.targetBlockTime),
        minimumDifficulty: config.mining.minimumDifficulty,
      },
    });
    const pending = new PendingBlockCache(db, chain, pool, miner);
    const work = new WorkPackages(db, chain, pool, miner);
    const calls = new CallExecutor(world, (sm) => builder.createEvm(sm), () => miner.coinbase);
    const filters = new FilterSystem({ chain, pool, pending }, { timeoutSeconds: config.filters.timeout });

    const restored = await pool.restore((raw) => decodeTransaction(raw, chainId));
    if (restored.restored || restored.dropped) log.info('transaction journal reloaded', restored);

    const submit = async (tx: SignedTx) => {
      if (tx.shardingFlag !== 0n) throw refused('app-chain transactions (shardingFlag 1-3) need the SCS service');
      await pool.add(tx);
    };
    const mc: McContext = {
      chain, world, pool, miner, pending, calls, wallet, chainId, gasPrice,
      decodeRaw: (raw) => decodeTransaction(raw, chainId),
      submit,
    };
    const net = { clientVersion: clientVersion(), networkId: config.chain.networkId, peerCount: () => 0 };
    // Method modules, one per namespace topic. New namespaces are added to this list.
    const common_modules = [
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
    ];
    const httpApis = () => config.rpc.api.filter((ns) => (NAMESPACES as readonly string[]).includes(ns));
    const methods = {
      http: buildMethodTable(...common_modules, rpcModules(httpApis)),
      ipc: buildMethodTable(...common_modules, rpcModules(() => NAMESPACES)),
    };

    const node = new McNode(config, db, chain, world, pool, miner, wallet, methods, log);
    node.devAccounts.push(...dev);
    node.sealer = sealer;
    node.filters = filters;
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
    miner.start();
    return node;
  }

  private async startRpc(): Promise<void> {
    const { config } = this;
    const debug = config.verbosity >= 4;
    if (config.rpc.enabled) {
      const allowed = new Set<string>(config.rpc.api);
      const dispatcher = new Dispatcher({
        methods: this.methods.http,
        isAllowed: (name) => allowed.has(namespaceOf(name)),
        debug,
      });
      this.http = new HttpRpcServer({
        host: config.rpc.addr,
        port: config.rpc.port,
        corsOrigins: config.rpc.corsDomain,
        vhosts: config.rpc.vhosts,
        route: () => dispatcher,
      });
      this.endpoints.http = await this.http.start();
    }
    if (!config.ipc.disabled) {
      const ipcPath = path.resolve(config.datadir, config.ipc.path);
      this.ipc = new IpcRpcServer({ path: ipcPath, dispatcher: new Dispatcher({ methods: this.methods.ipc, debug }) });
      await this.ipc.start();
      this.endpoints.ipc = ipcPath;
    }
  }

  /** Stops serving, lets an in-flight block write finish, closes the database. */
  async stop(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.http?.stop();
    await this.ipc?.stop();
    this.filters?.stop();
    await this.miner.stop();
    await this.sealer?.close();
    await this.db.close();
  }
}

export { VERSION };
