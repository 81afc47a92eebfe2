// One app chain in memory: its spec, head block, Dapp list, exchange records and pool, with the
// reads the SCS methods need. Blocks and receipts stay in LevelDB (store.ts). Changes are
// prepared as batch operations plus an `apply` that updates memory once the batch landed.

import type { Common, StateManagerInterface } from '@ethereumjs/common';
import type { EVM } from '@ethereumjs/evm';
import type { Header, SignedTx } from '../chain/types.js';
import { notFound } from '../errors.js';
import { equalBytes } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import { CallExecutor, type CallOptions } from '../execution/call.js';
import { intrinsicGas } from '../execution/gas.js';
import { createChainEvm } from '../execution/evm.js';
import type { BatchOp } from '../store/database.js';
import type { TrieNodeStore } from '../state/trieNodeStore.js';
import type { WorldState } from '../state/worldState.js';
import type { AppChainSpec } from './appChainSpec.js';
import { buildAppBlock, DIRECT_CALL_GAS_LIMIT, type AppBuildInput, type BuiltAppBlock } from './appChainBuilder.js';
import { AppTxPool } from './appTxPool.js';
import { appOps, type AppBlock, type AppReceipt, type AppStore, type DappEntry, type ExchangeRecord, type StoredChain } from './store.js';

export interface AppChainDeps {
  store: AppStore;
  world: WorldState;
  /** the SCS's own trie node store: app-chain writes never mix with a main-chain block's */
  nodes: TrieNodeStore;
  common: Common;
  scsId: Uint8Array;
  /** how app-chain calls run (the node's interpreter switch, bounds and monitor) */
  calls?: CallOptions;
}

/** A transaction with where it is: mined (block, index, receipt) or waiting in the pool. */
export interface FoundTx {
  tx: SignedTx;
  block?: AppBlock;
  index?: number;
  receipt?: AppReceipt;
}

export interface PreparedChange {
  ops: BatchOp[];
  apply(): void;
}

export interface RecordChanges {
  created: Omit<ExchangeRecord, 'seq'>[];
  updated: ExchangeRecord[];
}

export class AppChain {
  readonly key: string;
  readonly pool = new AppTxPool();
  private readonly calls: CallExecutor;

  private constructor(
    readonly stored: StoredChain,
    public head: AppBlock,
    public dapps: DappEntry[],
    public records: ExchangeRecord[],
    private readonly deps: AppChainDeps,
  ) {
    this.key = bytesToHex(stored.spec.address);
    this.calls = new CallExecutor(deps.world, (sm) => this.makeEvm(sm), deps.calls);
  }

  static async load(stored: StoredChain, deps: AppChainDeps): Promise<AppChain> {
    const address = stored.spec.address;
    const n = await deps.store.headNumber(address);
    const head = n === undefined ? undefined : await deps.store.block(address, n);
    if (!head) throw new Error(`database is damaged: app chain ${bytesToHex(address)} has no head block`);
    return new AppChain(stored, head, await deps.store.dapps(address), await deps.store.records(address), deps);
  }

  /** A fresh app chain whose genesis is written by `ops`. */
  static create(stored: StoredChain, genesis: AppBlock, deps: AppChainDeps): { chain: AppChain; ops: BatchOp[] } {
    const chain = new AppChain(stored, genesis, [], [], deps);
    return { chain, ops: [appOps.chain(stored), ...appOps.block(stored.spec.address, genesis)] };
  }

  get address(): Uint8Array {
    return this.stored.spec.address;
  }

  get spec(): AppChainSpec {
    return this.stored.spec;
  }

  get dappBase(): Uint8Array | undefined {
    return this.dapps[0]?.address;
  }

  /** 1 once the DappBase is deployed (scs_getDappState). */
  get dappState(): 0 | 1 {
    return this.dapps.length ? 1 : 0;
  }

  /** BLOCKHASH inside app-chain code sees the app chain's own blocks. */
  makeEvm(sm: StateManagerInterface): Promise<EVM> {
    return createChainEvm(this.deps.common, sm, { getBlockByNumber: (n) => this.block(n) });
  }

  async nonceOf(address: Uint8Array, root = this.head.header.stateRoot): Promise<bigint> {
    return (await this.deps.world.getAccount(root, address))?.nonce ?? 0n;
  }

  async balanceOf(address: Uint8Array, root = this.head.header.stateRoot): Promise<bigint> {
    return (await this.deps.world.getAccount(root, address))?.balance ?? 0n;
  }

  /** The nonce the sender's next transaction needs (state nonce plus its pending run). */
  async nextNonce(address: Uint8Array): Promise<bigint> {
    return this.pool.pendingNonce(address, await this.nonceOf(address));
  }

  async block(n: bigint): Promise<AppBlock | undefined> {
    if (n === this.head.header.number) return this.head;
    if (n > this.head.header.number || n < 0n) return undefined;
    return this.deps.store.block(this.address, n);
  }

  async findTx(hash: Uint8Array): Promise<FoundTx | undefined> {
    const pending = this.pool.get(hash);
    if (pending) return { tx: pending };
    const at = await this.deps.store.txLocation(this.address, hash);
    const block = at && (await this.block(at.number));
    if (!at || !block) return undefined;
    return { tx: block.transactions[at.index], block, index: at.index, receipt: block.receipts[at.index] };
  }

  async findTxByNonce(sender: Uint8Array, nonce: bigint): Promise<FoundTx | undefined> {
    const hash = await this.deps.store.txHashByNonce(this.address, sender, nonce);
    if (hash) return this.findTx(hash);
    const content = await this.pool.content((a) => this.nonceOf(a));
    const waiting = [...content.pending.values(), ...content.queued.values()].flat();
    const tx = waiting.find((t) => equalBytes(t.from, sender) && t.nonce === nonce);
    return tx && { tx };
  }

  /** A registered Dapp (index 1 on); the DappBase is not callable by name. */
  registeredDapp(address: Uint8Array): DappEntry | undefined {
    return this.dapps.slice(1).find((d) => equalBytes(d.address, address));
  }

  /** Runs a constant call on the head state; reverts become Reverted errors. */
  directCall(from: Uint8Array | undefined, to: Uint8Array, data: Uint8Array, at: Header = this.head.header): Promise<Uint8Array> {
    const gas = DIRECT_CALL_GAS_LIMIT + intrinsicGas(data, false);
    return this.calls.call({ from, to, data, gas, gasPrice: 0n }, { header: at });
  }

  build(input: Omit<AppBuildInput, 'parent' | 'miner' | 'dappBase' | 'tokenSupply'>): Promise<BuiltAppBlock> {
    const timestamp = input.timestamp > this.head.header.timestamp ? input.timestamp : this.head.header.timestamp;
    return buildAppBlock(this.deps.world, (sm) => this.makeEvm(sm), {
      ...input,
      timestamp,
      parent: this.head,
      miner: this.deps.scsId,
      dappBase: this.dappBase,
      tokenSupply: this.spec.tokenSupply,
    });
  }

  /**
   * Writes for a built block (and/or record changes) and the matching memory update. The
   * block's trie nodes are taken from the SCS node store here, so prepare right after building.
   */
  prepare(built: BuiltAppBlock | undefined, changes: RecordChanges = { created: [], updated: [] }): PreparedChange {
    const address = this.address;
    const ops: BatchOp[] = [];
    const dapps = [...this.dapps];
    const records = [...this.records];
    const add = (r: Omit<ExchangeRecord, 'seq'>) => {
      const record = { ...r, seq: records.length };
      records.push(record);
      ops.push(appOps.record(address, record));
    };
    for (const r of changes.updated) {
      records[r.seq] = r;
      ops.push(appOps.record(address, r));
    }
    changes.created.forEach(add);
    if (built) {
      const { block } = built;
      ops.push(...this.deps.nodes.drainWrites(), ...appOps.block(address, block));
      if (built.dappBase) {
        const deployer = block.transactions.find((_, i) => equalBytes(block.receipts[i].contractAddress ?? new Uint8Array(), built.dappBase!));
        const entry = { address: built.dappBase, owner: deployer?.from ?? new Uint8Array(20), abi: '' };
        ops.push(appOps.dapp(address, dapps.length, entry));
        dapps.push(entry);
      }
      for (const entry of built.registered) {
        ops.push(appOps.dapp(address, dapps.length, entry));
        dapps.push(entry);
      }
      for (const w of built.withdrawals) {
        add({ kind: 'withdraw', user: w.user, amount: w.amount, time: block.header.timestamp, requestBlock: block.header.number });
      }
      for (const tx of built.stale) ops.push(appOps.unjournal(address, tx.hash));
    }
    return {
      ops,
      apply: () => {
        this.records = records;
        this.dapps = dapps;
        if (built) {
          this.head = built.block;
          this.pool.remove([...built.block.transactions, ...built.stale]);
        }
      },
    };
  }
}

export function unknownAppChain(address: Uint8Array): Error {
  return notFound(`unknown app chain ${bytesToHex(address)}: this SCS does not serve it`);
}
