// The chain of a datadir with its state and block builder, as the node, `import` and `fixture`
// open it: the common (chain id, hardfork, fast keccak), the genesis with the dev accounts funded,
// the difficulty rule, the proof of work.

import { availableParallelism } from 'node:os';
import { Mainnet, createCustomCommon, type Common } from '@ethereumjs/common';
import type { Config, Hardfork } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import { bytesToHex } from '../encoding/hex.js';
import { keccak256 } from '../encoding/bytes.js';
import type { Database } from '../store/database.js';
import { TrieNodeStore } from '../state/trieNodeStore.js';
import { WorldState } from '../state/worldState.js';
import { Blockchain } from '../blockchain/blockchain.js';
import { buildGenesis, type GenesisSpec } from '../blockchain/genesis.js';
import { BlockProcessor } from '../execution/blockProcessor.js';
import type { DifficultyRule } from '../consensus/difficulty.js';
import { chainRulesOps, readChainRules, type DatadirRules } from '../blockchain/chainRules.js';
import { deriveDevAccounts, privateKeyToAddress, type DevAccountKey } from '../accounts/keys.js';
import type { Logger } from '../log.js';
import type { Genesis } from '../config/schema.js';
import type { PowEngine, PowName } from '../consensus/powEngine.js';
import { choosePow } from '../consensus/powNames.js';
import { createPowEngine } from '../consensus/selectPow.js';
import { ChainHistory, type ChainReader } from '../blockchain/chainHistory.js';
import type { ForkStart } from '../fork/forkStart.js';
import { forkRules, openFork, type OpenFork } from './forkChain.js';

export function createCommon(config: Config, chainId = config.chain.chainId): Common {
  return commonFor(chainId, config.chain.hardfork);
}

/** The common of a chain id and hardfork (the conformance runner makes one per hardfork). */
export function commonFor(chainId: bigint, hardfork: Hardfork): Common {
  return createCustomCommon({ chainId: Number(chainId), name: 'mcnode' }, Mainnet, {
    hardfork,
    customCrypto: { keccak256 }, // the EVM's SHA3 and the state manager's code hashes
  });
}

/** The dev accounts: derived from the mnemonic, then the configured keys. */
export function devAccounts(config: Config): DevAccountKey[] {
  return [
    ...deriveDevAccounts(config.accounts.mnemonic, config.accounts.devCount),
    ...config.accounts.keys.map((privateKey) => ({ privateKey, address: privateKeyToAddress(privateKey) })),
  ];
}

/** The genesis spec of the config with the dev accounts funded. */
export function genesisSpec(config: Config, accounts: DevAccountKey[] = devAccounts(config)): GenesisSpec {
  const alloc = new Map(config.genesis.alloc);
  for (const { address } of accounts) {
    const hex = bytesToHex(address);
    if (!alloc.has(hex)) alloc.set(hex, { balance: config.accounts.devBalance });
  }
  return { ...config.genesis, alloc };
}

export function difficultyRule(config: Config, genesis: { header: { difficulty: bigint } }): DifficultyRule {
  return {
    mode: config.mining.difficulty,
    genesisDifficulty: genesis.header.difficulty,
    targetBlockTime: BigInt(config.mining.targetBlockTime),
    minimumDifficulty: config.mining.minimumDifficulty,
  };
}

/** Ethash when the config says so or the genesis file's `config` has `ethash: {}`; keccak-pow otherwise. */
export function chainPow(config: Config, genesis: Pick<Genesis, 'ethash'> = config.genesis): PowName {
  return choosePow(config.chain.pow, genesis.ethash);
}

/** The chain of a datadir with its state and block builder: what the node, import and fixture share. */
export interface ChainCore {
  common: Common;
  /** the chain's proof of work (a running node calls its prepare(); commands fetch caches as blocks need them) */
  pow: PowEngine;
  nodes: TrieNodeStore;
  world: WorldState;
  chain: Blockchain;
  builder: BlockProcessor;
  /** rules fixed at genesis and stored in the datadir: dev controls, proof of work, classic transactions */
  rules: DatadirRules;
  /** the chain as readers see it: the chain itself, or in a fork the chain over the upstream's history */
  reader: ChainReader;
  /** the difficulty rule of the next blocks */
  difficulty: DifficultyRule;
  /** a fork datadir's fork (docs/fork-mode.md) */
  fork?: OpenFork;
  /** the chain's ids: the config's, or those a fork recorded */
  chainId: bigint;
  networkId: bigint;
}

/** The config a fork runs with: its recorded chain ids (logged when the flags say otherwise), no peers. */
export function forkConfig(config: Config, fork: OpenFork | undefined, log?: Logger): Config {
  if (!fork) return config;
  const { record } = fork.runtime;
  const given = config.given ?? new Set<string>();
  for (const [key, configured, kept] of [['chain.chainId', config.chain.chainId, record.chainId], ['chain.networkId', config.chain.networkId, record.networkId]] as const) {
    if (given.has(key) && configured !== kept) log?.info('the fork keeps its recorded value; the configured one does not apply', { key, fork: kept, config: configured });
  }
  return {
    ...config,
    chain: { ...config.chain, chainId: record.chainId, networkId: record.networkId },
    p2p: { ...config.p2p, maxPeers: 0 },
  };
}

/**
 * Opens the chain in `db`, writing `genesis` (default: the config's, dev accounts funded) into a
 * fresh one; a fork datadir (or a fresh one with --fork.url) opens its fork instead (`forkStart`:
 * the fork already fetched before the database was opened).
 */
export async function openChainCore(config: Config, db: Database, log: Logger, genesis?: GenesisSpec, forkStart?: ForkStart): Promise<ChainCore> {
  const fork = await openFork(config, db, log, forkStart);
  const chainId = fork?.runtime.record.chainId ?? config.chain.chainId;
  const common = createCommon(config, chainId);
  const nodes = new TrieNodeStore(db);
  const world = new WorldState(nodes, common, fork?.runtime);
  const spec = genesis ?? genesisSpec(config);
  const wanted: DatadirRules = fork ? forkRules(config) : {
    devControls: spec.devControls ?? true,
    pow: chainPow(config, (genesis as Genesis | undefined) ?? config.genesis),
    classicTxBlock: (genesis as Genesis | undefined)?.classicTxBlock ?? config.genesis.classicTxBlock,
  };
  let chain = fork?.chain ?? (await Blockchain.open(db));
  if (!chain) {
    const { block, stateOps } = await buildGenesis(spec, world);
    chain = await Blockchain.create(db, block, [...stateOps, ...chainRulesOps(wanted)]);
    log.info('wrote genesis block', { hash: bytesToHex(block.hash) });
  }
  const { rules, missing, mismatches } = await readChainRules(db, wanted);
  if (missing.length > 0) await db.batch(missing); // a datadir from before these rules were stored keeps this start's
  for (const m of mismatches) {
    log.info('the datadir keeps its chain rule; the configured value does not apply', { rule: m.rule, datadir: m.stored, config: m.config });
  }
  if (!(await world.hasState(chain.head.header.stateRoot))) await rewindToState(chain, world, log);
  const pow = createPowEngine(rules.pow, {
    datadir: config.datadir,
    log: (message, fields, level) => {
      if (level === 'warn') log.warn(message, fields);
      else if (message === 'Ethash cache progress') log.debug(message, fields);
      else log.info(message, fields);
    },
    dagdir: config.ethash.dagdir,
    dagWorkers: config.mining.threads > 0 ? config.mining.threads : availableParallelism(),
  });
  // A fork's local blocks keep one difficulty (recorded with the fork): the upstream's is no rule for them.
  const difficulty: DifficultyRule = fork
    ? { ...difficultyRule(config, chain.genesis), mode: 'fixed', genesisDifficulty: fork.runtime.record.difficulty }
    : difficultyRule(config, chain.genesis);
  const reader: ChainReader = fork ? new ChainHistory(chain, fork.runtime.history) : chain;
  return {
    common, nodes, world, chain, rules, reader, difficulty, fork, pow,
    builder: new BlockProcessor(world, common, reader, undefined, rules),
    chainId, networkId: fork?.runtime.record.networkId ?? config.chain.networkId,
  };
}

/** A head without state (blocks and state are written together, so only damage does this): back to the newest block with state. */
async function rewindToState(chain: Blockchain, world: WorldState, log: Logger): Promise<void> {
  const head = chain.head;
  for (let n = head.header.number - 1n; n >= 0n; n--) {
    const block = await chain.getBlockByNumber(n);
    if (!block || !(await world.hasState(block.header.stateRoot))) continue;
    log.warn('the head block has no state in the database; rewinding to the newest block with state', {
      head: head.header.number.toString(), to: n.toString(), hash: bytesToHex(block.hash),
    });
    await chain.rewindTo(block.hash);
    return;
  }
  throw new ConfigError('no block of the chain has its state in the database; the datadir is damaged');
}
