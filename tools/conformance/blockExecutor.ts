// Runs state-test cases on mcnode's block executor: the pre-state written through the account
// trie blocks are built on (WorldState.buildingStateAt: AccountTrie over a TrieNodeStore), the
// transaction applied by the same applyTransaction the block builder calls, on ChainEvm from
// createChainEvm, under Ethereum's intrinsic gas (the one table MOAC's chain sets differently).
// The post-state root and keccak256(RLP(logs)) are what the vectors check.

import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { Account, Address } from '@ethereumjs/util';
import { privateKeyToAddress } from '../../src/accounts/keys.js';
import { commonFor } from '../../src/node/chainCore.js';
import type { SignedTx } from '../../src/chain/types.js';
import type { Hardfork } from '../../src/config/schema.js';
import { bigintToBytes, bigintToFixed, keccak256 } from '../../src/encoding/bytes.js';
import { hexToBytes } from '../../src/encoding/hex.js';
import { createChainEvm, type BlockHashSource } from '../../src/execution/evm.js';
import { applyTransaction, creditAccount, type BlockEnv } from '../../src/execution/executor.js';
import { ethereumTxGas } from '../../src/execution/gas.js';
import { TrieNodeStore } from '../../src/state/trieNodeStore.js';
import { WorldState } from '../../src/state/worldState.js';
import type { Database } from '../../src/store/database.js';
import type { StateCase, StateTest } from './corpus.js';

/** Mainnet's: no opcode of these hardforks reads it, and the vectors' transactions are not replayed as RLP. */
const CHAIN_ID = 1n;
const EMPTY_TRIE_ROOT = keccak256(Uint8Array.of(0x80));

/**
 * BLOCKHASH in a state test: keccak256 of the block number written in decimal, the hash the
 * reference clients' state-test runners give every earlier block (there is no chain behind a vector).
 */
export const testBlockHashes: BlockHashSource = {
  async getBlockByNumber(number: bigint) {
    return { hash: keccak256(new TextEncoder().encode(number.toString())) };
  },
};

/** A test's pre-state, written once and read by each of its cases through a scratch store. */
export interface PreState {
  nodes: TrieNodeStore;
  root: Uint8Array;
}

export interface CaseOutcome {
  root: Uint8Array;
  logs: Uint8Array;
  /** the rejection when the transaction was not applied, else the EVM's error, if any */
  note?: string;
}

export class BlockExecutorRunner {
  private readonly commons = new Map<Hardfork, Common>();
  private readonly worlds = new Map<Hardfork, WorldState>();

  /** @param db the LevelDB under every node store (writes stay in the stores: nothing is drained into it) */
  constructor(private readonly db: Database) {}

  common(hardfork: Hardfork): Common {
    let common = this.commons.get(hardfork);
    if (common === undefined) {
      common = commonFor(CHAIN_ID, hardfork);
      this.commons.set(hardfork, common);
    }
    return common;
  }

  world(hardfork: Hardfork, nodes: TrieNodeStore): WorldState {
    return new WorldState(nodes, this.common(hardfork));
  }

  async preState(test: StateTest): Promise<PreState> {
    const nodes = new TrieNodeStore(this.db);
    // The trie's nodes do not depend on the hardfork.
    const sm = await this.world('petersburg', nodes).buildingStateAt(EMPTY_TRIE_ROOT);
    for (const [hex, a] of test.pre) {
      const address = new Address(hexToBytes(hex));
      await sm.putAccount(address, new Account(a.nonce, a.balance));
      if (a.code.length > 0) await sm.putCode(address, a.code);
      for (const [slot, value] of a.storage) {
        if (value !== 0n) await sm.putStorage(address, bigintToFixed(slot, 32), bigintToBytes(value));
      }
    }
    return { nodes, root: await sm.getStateRoot() };
  }

  /** Applies the case's transaction to the pre-state as a block's only transaction (no block reward). */
  async run(test: StateTest, pre: PreState, c: StateCase): Promise<CaseOutcome> {
    const nodes = TrieNodeStore.scratchOver(pre.nodes);
    const common = this.common(c.hardfork);
    const sm = await this.world(c.hardfork, nodes).buildingStateAt(pre.root);
    const evm = await createChainEvm(common, sm, testBlockHashes);
    const tx = transactionOf(test, c);
    const env: BlockEnv = {
      number: test.env.number, timestamp: test.env.timestamp, miner: test.env.coinbase,
      difficulty: test.env.difficulty, gasLimit: test.env.gasLimit,
    };
    const result = await applyTransaction(evm, sm, tx, env, 0n, false, ethereumTxGas(common));
    // The vectors' block pays no reward, and paying it touches the coinbase all the same, valid
    // transaction or not: an empty one is created before spuriousDragon, removed from it on.
    await creditAccount(sm, env.miner, 0n, common.gteHardfork('spuriousDragon'));
    const root = await sm.getStateRoot();
    if (!result.ok) return { root, logs: logsHash([]), note: result.reason };
    const logs = result.receipt.logs.map((l) => [l.address, l.topics, l.data]);
    return { root, logs: logsHash(logs), note: result.error };
  }
}

export function logsHash(logs: unknown[]): Uint8Array {
  return keccak256(RLP.encode(logs as never));
}

/** The case's transaction, as the executor reads one (signature fields unused: the sender is known). */
export function transactionOf(test: StateTest, c: StateCase): SignedTx {
  const t = test.tx;
  return {
    nonce: t.nonce, syscnt: 0n, gasPrice: t.gasPrice, gas: t.gasLimit[c.gas], to: t.to ?? null,
    value: t.value[c.value], data: t.data[c.data], shardingFlag: 0n, via: null,
    v: 0n, r: 0n, s: 0n, hash: new Uint8Array(32), raw: new Uint8Array(0),
    from: privateKeyToAddress(t.secretKey),
  };
}
