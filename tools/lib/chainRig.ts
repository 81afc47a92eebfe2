// An in-process chain for rewind, side-chain and reorganisation tests and benches: the node's own parts
// (chain, state, pool, miner, one import path, filters) wired as node.ts wires them, a seal
// found by brute force at the devnet difficulty, and blocks built on any parent without being
// stored, so a test can grow two branches from one parent.

import path from 'node:path';
import { defaultConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { Database } from '../../src/store/database.js';
import { openChainCore, devAccounts, difficultyRule, type ChainCore } from '../../src/node/chainCore.js';
import { TxPool } from '../../src/txpool/txPool.js';
import { PoolEntries } from '../../src/store/poolEntries.js';
import { Miner, type Seal } from '../../src/miner/miner.js';
import { TrieNodeStore } from '../../src/state/trieNodeStore.js';
import { BlockImporter } from '../../src/importer/blockImporter.js';
import { FilterSystem } from '../../src/filters/filterSystem.js';
import { PendingBlockCache } from '../../src/miner/pendingBlock.js';
import { blockFromParts, sealHash } from '../../src/chain/block.js';
import { decodeTransaction, signTransaction } from '../../src/chain/transaction.js';
import { nextDifficulty } from '../../src/consensus/difficulty.js';
import { powMix, powTarget } from '../../src/consensus/pow.js';
import { bigintToFixed, bytesToBigint } from '../../src/encoding/bytes.js';
import type { Block, SignedTx, TxFields } from '../../src/chain/types.js';

export const GWEI = 1_000_000_000n;

/** A nonce for `hash` at `difficulty` by trying them in order (the devnet difficulty is 512). */
export function solve(hash: Uint8Array, difficulty: bigint): Seal {
  const target = powTarget(difficulty);
  for (let n = 0n; ; n++) {
    const mix = powMix(hash, bigintToFixed(n, 8));
    if (bytesToBigint(mix) <= target) return { nonce: n, mix };
  }
}

export interface Rig extends ChainCore {
  config: Config;
  db: Database;
  dir: string;
  pool: TxPool;
  miner: Miner;
  importer: BlockImporter;
  filters: FilterSystem;
  keys: Uint8Array[];
  addresses: Uint8Array[];
  /** a signed transfer (or any fields) from dev account `from` */
  tx(from: number, nonce: bigint, fields?: Partial<TxFields>): SignedTx;
  /** mines one block on the head with the pool's transactions */
  mine(): Promise<Block>;
  /** a sealed block on `parent` holding `txs`, not stored; `salt` varies the coinbase so branches differ */
  buildOn(parent: Block, txs: SignedTx[], salt?: number): Promise<Block>;
  close(): Promise<void>;
}

/** Opens (or creates) the devnet chain in `dir`; the caller closes it. */
export async function openRig(dir: string): Promise<Rig> {
  const config = defaultConfig();
  const chainId = config.chain.chainId;
  const db = await Database.open(path.join(dir, 'chaindata'));
  const core = await openChainCore(config, db, createLogger(0));
  const { chain, world, builder, nodes } = core;
  const pool = new TxPool(new PoolEntries(db), {
    minGasPrice: 1n, priceBump: 10n, globalSlots: 4096, globalQueue: 1024, accountQueue: 64,
    blockGasLimit: () => chain.head.header.gasLimit,
    accountAt: async (address) => {
      const account = await world.getAccount(chain.head.header.stateRoot, address);
      return { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n };
    },
    journalPath: path.join(dir, 'txpool.journal'),
  });
  const rule = difficultyRule(config, chain.genesis);
  const seal = async (hash: Uint8Array, difficulty: bigint) => solve(hash, difficulty);
  const miner = new Miner(chain, pool, builder, nodes, seal, {
    mode: 'off', period: 1, coinbase: new Uint8Array(20), extraData: new Uint8Array(),
    targetGasLimit: config.mining.targetGasLimit, difficulty: rule,
  });
  // As node.ts wires them.
  chain.on('newHead', ({ block }) => pool.forgetMined(block.transactions));
  chain.on('rewound', ({ removed, returnTransactions }) => void pool.returnRemoved(removed.flatMap((r) => r.block.transactions), returnTransactions));
  const importer = new BlockImporter({ chain, builder, nodes: new TrieNodeStore(db, 8 * 2 ** 20), chainId, difficulty: rule, miner, pool, pow: core.pow });
  const pending = new PendingBlockCache(nodes, chain, pool, miner);
  const filters = new FilterSystem({ chain, pool, pending }, { timeoutSeconds: 300 });
  await pool.restore((raw) => decodeTransaction(raw, chainId));
  const accounts = devAccounts(config);
  const keys = accounts.map((a) => a.privateKey);
  const scratch = new TrieNodeStore(db, 2 ** 19);
  let closed = false;
  const rig: Rig = {
    ...core, config, db, dir, pool, miner, importer, filters, keys,
    addresses: accounts.map((a) => a.address),
    tx: (from, nonce, fields = {}) =>
      signTransaction(
        { nonce, syscnt: 0n, gasPrice: 20n * GWEI, gas: 21_000n, to: new Uint8Array(20).fill(0xab), value: 1n, data: new Uint8Array(), shardingFlag: 0n, via: null, ...fields },
        keys[from],
        chainId,
      ),
    async mine() {
      const [block] = await miner.mineBlocks(1);
      if (!block) throw new Error('no block mined');
      return block;
    },
    async buildOn(parent, txs, salt = 1) {
      const timestamp = parent.header.timestamp + 1n;
      // The writes stay in the scratch store (memory only), so an unstored block can be built on.
      const built = await builder.build(parent, txs, {
        miner: bigintToFixed(BigInt(salt), 20), timestamp, difficulty: nextDifficulty(rule, parent.header, timestamp),
        gasLimit: parent.header.gasLimit, extraData: new Uint8Array(),
      }, scratch);
      if (built.transactions.length !== txs.length) throw new Error('a transaction did not apply');
      const found = solve(sealHash(built.header), built.header.difficulty);
      return blockFromParts({ ...built.header, nonce: bigintToFixed(found.nonce, 8), mixHash: found.mix }, built.transactions);
    },
    async close() {
      if (closed) return;
      closed = true;
      filters.stop();
      await miner.stop();
      pool.close(); // after the last block's pool updates
      await db.close();
    },
  };
  return rig;
}
