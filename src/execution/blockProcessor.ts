// Assembles a block on a parent: executes candidate transactions in order, adds the settlement
// system transaction of the participants' payouts, credits the reward, computes every root.
// Replaying a block from outside runs the same code on the block's own transactions, so import
// and sync accept exactly what building produces. Sealing is the Sealer's job; this only builds.

import type { EVM } from '@ethereumjs/evm';
import type { Common, StateManagerInterface } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { Block, Header, Receipt, SignedTx } from '../chain/types.js';
import { assembleHeader } from '../chain/block.js';
import { applyTransaction, creditReward, type BlockEnv, type ApplyResult } from './executor.js';
import { applySystemTx, payableNow, recordDeposit, systemNonce, type ChainRules } from './systemTxs.js';
import { SYSCNT, decodeSystemPayload, isSystemTx, settlementTx } from '../chain/systemTx.js';
import { blockReward } from './gas.js';
import { createChainEvm, type BlockHashSource } from './evm.js';
import { bytesToHex } from '../encoding/hex.js';
import { equalBytes } from '../encoding/bytes.js';
import type { WorldState } from '../state/worldState.js';
import type { TrieNodeStore } from '../state/trieNodeStore.js';
import { BlockParticipants, type AppliedMoves } from './blockParticipants.js';

/** The main chain as block building sees it (BLOCKHASH); side branches see their own ancestors. */
export interface ChainBlocks extends BlockHashSource {
  getBlockByNumber(number: bigint): Promise<Block | undefined>;
  /** with getHashByNumber: blocks on side branches see their own ancestors' hashes */
  getBlockByHash?(hash: Uint8Array): Promise<Block | undefined>;
  getHashByNumber?(number: bigint): Promise<Uint8Array | undefined>;
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
  rejected: { tx: SignedTx; reason: string }[];
  /** state manager holding the block's post-state (its trie writes are in the node store) */
  state: MerkleStateManager;
  /** participants' payouts the block's settlement made (see blockParticipants.ts) */
  moves: AppliedMoves;
}

/** `build`: candidates from the pool (and dev controls); `replay`: exactly a block's transactions. */
export type BuildMode = 'build' | 'replay';

export class BlockProcessor {
  constructor(
    private readonly world: WorldState,
    private readonly common: Common,
    private readonly chain: ChainBlocks,
    readonly participants: BlockParticipants = new BlockParticipants(),
    readonly rules: ChainRules = { devControls: false },
  ) {}

  /**
   * Blocks verified on top of the head whose one batch is not written yet (an import group,
   * oldest first): building on the last of them sees them as the main chain (BLOCKHASH, warm state).
   */
  private uncommitted: readonly Block[] = [];

  /** The main chain's block hashes with the uncommitted blocks above the head. */
  private readonly mainHashes: BlockHashSource = {
    getBlockByNumber: (number) => {
      const first = this.uncommitted[0]?.header.number;
      const ahead = first === undefined || number < first ? undefined : this.uncommitted[Number(number - first)];
      return ahead ? Promise.resolve(ahead) : this.chain.getBlockByNumber(number);
    },
  };

  /** Sets (an empty list: clears) the uncommitted blocks; the list may grow while set. */
  setUncommitted(blocks: readonly Block[]): void {
    this.uncommitted = blocks;
  }

  createEvm(sm: StateManagerInterface, hashes: BlockHashSource = this.mainHashes): Promise<EVM> {
    return createChainEvm(this.common, sm, hashes);
  }

  /**
   * Per node store, the post-state of the last block built there with its EVM: the miner's store
   * and the importer's each keep their own, so consecutive imported blocks reuse it too.
   */
  private last = new WeakMap<TrieNodeStore, { root: Uint8Array; sm: MerkleStateManager; evm: EVM }>();

  /** Drops the warm state kept for `nodes` (its block was refused and its writes discarded). */
  forgetWarm(nodes: TrieNodeStore = this.world.nodes): void {
    this.last.delete(nodes);
  }

  /** Account 0x…64's nonce after `parent`: the nonce of the next settlement or setter. */
  async systemNonceAt(parent: Block): Promise<bigint> {
    return systemNonce(await this.world.stateManagerAt(parent.header.stateRoot));
  }

  async build(parent: Block, candidates: SignedTx[], env: BuildEnv, nodes?: TrieNodeStore, mode: BuildMode = 'build'): Promise<BuiltBlock> {
    // Building on the block built last (the usual case) keeps its warm caches and EVM; a state
    // root names exactly one state, so a match means the same state.
    // On a side branch BLOCKHASH must see the branch's own ancestors: a fresh EVM, no cache.
    const branch = await this.branchHashes(parent);
    const store = nodes ?? this.world.nodes;
    const warm = branch ? undefined : this.last.get(store);
    const reuse = warm !== undefined && equalBytes(warm.root, parent.header.stateRoot);
    const sm = reuse ? warm.sm : await this.world.buildingStateAt(parent.header.stateRoot, nodes);
    const evm = reuse ? warm.evm : await this.createEvm(sm, branch);
    this.last.delete(store);
    const number = parent.header.number + 1n;
    const blockEnv: BlockEnv = { number, timestamp: env.timestamp, miner: env.miner, difficulty: env.difficulty, gasLimit: env.gasLimit };
    const byzantium = this.common.gteHardfork('byzantium');

    // One checkpoint around the block's transactions: each transaction's commit merges into it
    // instead of flushing the caches into the trie, so the trie is written once, with the final
    // state, rather than once per transaction that runs in the EVM.
    await sm.checkpoint();
    const transactions: SignedTx[] = [];
    const receipts: Receipt[] = [];
    const rejected: BuiltBlock['rejected'] = [];
    const skippedSenders = new Set<string>();
    let gasUsed = 0n;
    let moves: AppliedMoves = new Map();
    const include = (tx: SignedTx, result: ApplyResult & { ok: true }) => {
      gasUsed += result.gasUsed;
      transactions.push(tx);
      receipts.push(result.receipt);
    };
    for (const [i, tx] of candidates.entries()) {
      const senderKey = bytesToHex(tx.from);
      // After a sender's transaction is skipped, its later nonces cannot apply either.
      if (skippedSenders.has(senderKey)) continue;
      if (tx.syscnt === SYSCNT.settlement) {
        // Only the builder makes settlements; a block's own is checked against the rules.
        const checked = mode === 'replay' && i === candidates.length - 1
          ? await this.checkSettlement(sm, tx, number)
          : { problem: mode === 'replay' ? 'a settlement is the last transaction of its block' : 'settlements are made by the block builder' };
        if ('problem' in checked) {
          skippedSenders.add(senderKey);
          rejected.push({ tx, reason: checked.problem });
          continue;
        }
        moves = checked.applied;
      }
      // A slot's "original" value (SSTORE gas) is the one before this transaction.
      sm.originalStorageCache.clear();
      const result = isSystemTx(tx)
        ? await applySystemTx(evm, sm, tx, blockEnv, gasUsed, this.rules)
        : await applyTransaction(evm, sm, tx, blockEnv, gasUsed);
      if (!result.ok) {
        skippedSenders.add(senderKey);
        if (tx.syscnt === SYSCNT.settlement) moves = new Map();
        // A full block defers the transaction; everything else is permanent for this tx.
        if (result.reason !== 'exceeds block gas limit' && result.reason !== 'nonce too high') rejected.push({ tx, reason: result.reason });
        continue;
      }
      await recordDeposit(sm, tx, result.receipt);
      if (!byzantium) result.receipt.root = await sm.getStateRoot();
      include(tx, result);
    }
    // The participants' payouts come after the transactions and before the reward, as the
    // block's last transaction.
    if (mode === 'build') {
      const paid = await payableNow(sm, await this.participants.proposals(number));
      if (paid.length) {
        const tx = settlementTx(await systemNonce(sm), paid);
        sm.originalStorageCache.clear();
        const result = await applySystemTx(evm, sm, tx, blockEnv, gasUsed, this.rules);
        if (!result.ok) throw new Error(`settlement the builder made does not apply: ${result.reason}`);
        if (!byzantium) result.receipt.root = await sm.getStateRoot();
        include(tx, result);
        moves = this.participants.attribute(paid);
      }
    }
    await sm.commit();
    sm.originalStorageCache.clear();
    await creditReward(sm, env.miner, blockReward(number));
    const stateRoot = await sm.getStateRoot();
    if (!branch) this.last.set(store, { root: stateRoot, sm, evm });

    const header = assembleHeader({ ...env, parentHash: parent.hash, stateRoot, number, gasUsed }, transactions, receipts);
    return { header, transactions, receipts, rejected, state: sm, moves };
  }

  /** A block's settlement against what the participants' proposals pay on the same state. */
  private async checkSettlement(sm: MerkleStateManager, tx: SignedTx, number: bigint) {
    let payload;
    try {
      payload = decodeSystemPayload(tx);
    } catch (err) {
      return { problem: `system transaction: ${(err as Error).message}` };
    }
    if (payload.kind !== 'settlement') return { problem: 'not a settlement' };
    const expected = await payableNow(sm, await this.participants.proposals(number));
    return this.participants.matchSettlement(payload.payouts, expected);
  }

  /** Block lookups by number as seen from `parent` when it is off the canonical chain; else undefined. */
  private async branchHashes(parent: Block): Promise<ChainBlocks | undefined> {
    const { chain } = this;
    if (!chain.getBlockByHash || !chain.getHashByNumber) return undefined;
    const tip = this.uncommitted[this.uncommitted.length - 1];
    if (tip && equalBytes(tip.hash, parent.hash)) return undefined;
    const isCanonical = async (b: Block) => {
      const hash = await chain.getHashByNumber!(b.header.number);
      return hash !== undefined && equalBytes(hash, b.hash);
    };
    if (await isCanonical(parent)) return undefined;
    return {
      async getBlockByNumber(number) {
        // Walk back from the parent (BLOCKHASH reaches 256 blocks) until the canonical chain.
        let block: Block | undefined = parent;
        while (block && block.header.number > number) {
          if (await isCanonical(block)) return chain.getBlockByNumber(number);
          block = await chain.getBlockByHash!(block.header.parentHash);
        }
        return block && block.header.number === number ? block : undefined;
      },
    };
  }
}
