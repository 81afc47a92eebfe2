// Assembles a block on a parent: executes candidate transactions in order, credits the reward,
// computes every root. Sealing (the proof of work) is the Sealer's job; this only builds.

import { createEVM, type EVM } from '@ethereumjs/evm';
import type { Common, StateManagerInterface } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { Block, Header, Receipt, SignedTx } from '../chain/types.js';
import { EMPTY_UNCLES_HASH, encodeReceiptForRoot, orBloom, orderedTrieRoot } from '../chain/block.js';
import { applyTransaction, creditReward, type BlockEnv, type TxRejection } from '../execution/executor.js';
import { blockReward } from '../execution/gas.js';
import { bytesToHex } from '../encoding/hex.js';
import { equalBytes } from '../encoding/bytes.js';
import type { WorldState } from '../state/worldState.js';
import type { TrieNodeStore } from '../state/trieNodeStore.js';
import { BlockParticipants, type AppliedMoves } from './blockParticipants.js';

export interface BlockHashSource {
  getBlockByNumber(number: bigint): Promise<Block | undefined>;
}

export interface BuildEnv {
  miner: Uint8Array;
  timestamp: bigint;
  difficulty: bigint;
  gasLimit: bigint;
  extraData: Uint8Array;
}

export interface BuiltBlock {
  /** header with zero mixHash and nonce, ready to seal */
  header: Header;
  transactions: SignedTx[];
  receipts: Receipt[];
  /** transactions that can never be included as they are (dropped from the pool) */
  rejected: { tx: SignedTx; reason: TxRejection }[];
  /** state manager holding the block's post-state (its trie writes are in the node store) */
  state: MerkleStateManager;
  /** system balance moves the block made (see blockParticipants.ts) */
  moves: AppliedMoves;
}

export class BlockBuilder {
  constructor(
    private readonly world: WorldState,
    private readonly common: Common,
    private readonly chain: BlockHashSource,
    readonly participants: BlockParticipants = new BlockParticipants(),
  ) {}

  async createEvm(sm: StateManagerInterface): Promise<EVM> {
    const chain = this.chain;
    return createEVM({
      // Each EVM subscribes to its Common's `hardforkChanged` event and never unsubscribes: on the
      // shared Common every EVM ever made (one per block and per call state) would stay reachable.
      common: this.common.copy(),
      stateManager: sm,
      blockchain: {
        async getBlock(number: number) {
          const block = await chain.getBlockByNumber(BigInt(number));
          return { hash: () => block?.hash ?? new Uint8Array(32) };
        },
        async putBlock() {},
        shallowCopy() {
          return this;
        },
      },
    });
  }

  /** The post-state of the last block built on the node's own store, with its EVM. */
  private last: { root: Uint8Array; sm: MerkleStateManager; evm: EVM } | undefined;

  async build(parent: Block, candidates: SignedTx[], env: BuildEnv, nodes?: TrieNodeStore): Promise<BuiltBlock> {
    // Building on the block built last (the usual case) keeps its warm caches and EVM; a state
    // root names exactly one state, so a match means the same state.
    const own = nodes === undefined || nodes === this.world.nodes;
    const reuse = own && this.last !== undefined && equalBytes(this.last.root, parent.header.stateRoot);
    const sm = reuse ? this.last!.sm : await this.world.stateManagerAt(parent.header.stateRoot, nodes);
    const evm = reuse ? this.last!.evm : await this.createEvm(sm);
    this.last = undefined;
    const number = parent.header.number + 1n;
    const blockEnv: BlockEnv = { number, timestamp: env.timestamp, miner: env.miner, difficulty: env.difficulty, gasLimit: env.gasLimit };
    const byzantium = this.common.gteHardfork('byzantium');

    const transactions: SignedTx[] = [];
    const receipts: Receipt[] = [];
    const rejected: BuiltBlock['rejected'] = [];
    const skippedSenders = new Set<string>();
    let gasUsed = 0n;
    for (const tx of candidates) {
      const senderKey = bytesToHex(tx.from);
      // After a sender's transaction is skipped, its later nonces cannot apply either.
      if (skippedSenders.has(senderKey)) continue;
      const result = await applyTransaction(evm, sm, tx, blockEnv, gasUsed);
      if (!result.ok) {
        skippedSenders.add(senderKey);
        // A full block defers the transaction; everything else is permanent for this tx.
        if (result.reason !== 'exceeds block gas limit' && result.reason !== 'nonce too high') rejected.push({ tx, reason: result.reason });
        continue;
      }
      if (!byzantium) result.receipt.root = await sm.getStateRoot();
      gasUsed += result.gasUsed;
      transactions.push(tx);
      receipts.push(result.receipt);
    }
    // System moves (app-chain withdrawals) come after the transactions and before the reward.
    const moves = await this.participants.applyMoves(sm, number);
    await creditReward(sm, env.miner, blockReward(number));
    const stateRoot = await sm.getStateRoot();
    if (own) this.last = { root: stateRoot, sm, evm };

    const bloom = new Uint8Array(256);
    for (const r of receipts) orBloom(bloom, r.logsBloom);
    const header: Header = {
      parentHash: parent.hash,
      sha3Uncles: EMPTY_UNCLES_HASH,
      miner: env.miner,
      stateRoot,
      transactionsRoot: orderedTrieRoot(transactions.map((tx) => tx.raw)),
      receiptsRoot: orderedTrieRoot(receipts.map(encodeReceiptForRoot)),
      logsBloom: bloom,
      difficulty: env.difficulty,
      number,
      gasLimit: env.gasLimit,
      gasUsed,
      timestamp: env.timestamp,
      extraData: env.extraData,
      mixHash: new Uint8Array(32),
      nonce: new Uint8Array(8),
    };
    return { header, transactions, receipts, rejected, state: sm, moves };
  }
}
