// The node behind the chain-facing RPC modules (rpc/backend.ts): block tags resolved against the
// chain and the pending block, state readers, the signer and the pool, calls and estimates.

import { payloadOf, type TxRequest, type TxSigner } from '../accounts/signer.js';
import type { Wallet } from '../accounts/wallet.js';
import type { Blockchain } from '../blockchain/blockchain.js';
import { feeHistory } from '../blockchain/feeHistory.js';
import type { SignedTx, TxFields } from '../chain/types.js';
import type { BlockTag } from '../encoding/hex.js';
import { notFound } from '../errors.js';
import type { CallExecutor, CallRequest } from '../execution/call.js';
import type { Miner } from '../miner/miner.js';
import type { PendingBlockCache } from '../miner/pendingBlock.js';
import type { McBackend, ResolvedBlock, SyncProgress } from '../rpc/backend.js';
import { proveAccount } from '../state/proof.js';
import { pendingStateReader, storedStateReader, type StateReader } from '../state/stateReader.js';
import type { WorldState } from '../state/worldState.js';
import type { TxPool } from '../txpool/txPool.js';
import type { TxSubmitter } from '../txpool/submitter.js';

export interface BackendParts {
  chain: Blockchain;
  world: WorldState;
  pool: TxPool;
  miner: Miner;
  pending: PendingBlockCache;
  calls: CallExecutor;
  wallet: Wallet;
  chainId: bigint;
  gasPrice: () => bigint;
  /** decodes and checks a raw transaction for this chain */
  decodeRaw: (raw: Uint8Array) => SignedTx;
  signer: TxSigner;
  submitter: TxSubmitter;
  syncProgress: () => SyncProgress | undefined;
}

/** Accounts sendable without a key (anvil_impersonateAccount), where dev controls are on. */
export interface Impersonation {
  isImpersonated(address: Uint8Array): boolean;
  sendImpersonated(from: Uint8Array, fields: TxFields): Promise<SignedTx>;
}

export class NodeBackend implements McBackend {
  readonly chainId: bigint;
  /** set once the developer controls exist (they are built after the backend) */
  impersonation: Impersonation | undefined;

  constructor(private readonly p: BackendParts) {
    this.chainId = p.chainId;
  }

  head() {
    return this.p.chain.head;
  }

  async blockAt(tag: BlockTag): Promise<ResolvedBlock | undefined> {
    const { chain, pending } = this.p;
    if (tag === 'pending') return { kind: 'pending', pending: await pending.get() };
    const block = tag === 'latest' ? chain.head : tag === 'earliest' ? chain.genesis : await chain.getBlockByNumber(tag);
    return block && { kind: 'mined', block };
  }

  blockByHash(hash: Uint8Array) {
    return this.p.chain.getBlockByHash(hash);
  }

  totalDifficulty(blockHash: Uint8Array) {
    return this.p.chain.getTotalDifficulty(blockHash);
  }

  findTransaction(hash: Uint8Array) {
    return this.p.chain.findTransaction(hash);
  }

  receipts(blockHash: Uint8Array) {
    return this.p.chain.getReceipts(blockHash);
  }

  poolTransaction(hash: Uint8Array) {
    return this.p.pool.get(hash);
  }

  async stateAt(tag: BlockTag): Promise<StateReader> {
    if (tag === 'latest') return storedStateReader(this.p.world, this.p.chain.head.header);
    const resolved = await this.blockAt(tag);
    if (!resolved) throw notFound('header not found');
    if (resolved.kind === 'pending') return pendingStateReader(resolved.pending.header, resolved.pending.state);
    return storedStateReader(this.p.world, resolved.block.header);
  }

  proof(stateRoot: Uint8Array, address: Uint8Array, slots: bigint[]) {
    return proveAccount(this.p.world, stateRoot, address, slots);
  }

  feeHistory(count: number, newest: bigint, percentiles: number[] | undefined) {
    return feeHistory(this.p.chain, count, newest, percentiles);
  }

  decodeRawTransaction(raw: Uint8Array): SignedTx {
    return this.p.decodeRaw(raw);
  }

  submit(tx: SignedTx): Promise<void> {
    return this.p.submitter.submit(tx);
  }

  async sendTransaction(req: TxRequest, key?: Uint8Array): Promise<SignedTx> {
    // An impersonated account sends without a key: sealed at once as a system transaction.
    if (key === undefined && req.from && this.impersonation?.isImpersonated(req.from)) {
      return this.impersonation.sendImpersonated(req.from, await this.p.signer.fill(req));
    }
    const tx = await this.p.signer.sign(req, key);
    await this.p.submitter.submit(tx);
    return tx;
  }

  signMessage(address: Uint8Array, message: Uint8Array, key?: Uint8Array): Uint8Array {
    return this.p.wallet.signMessage(address, message, key);
  }

  async call(req: TxRequest, tag: BlockTag): Promise<Uint8Array> {
    const at = tag === 'latest' ? { header: this.p.chain.head.header } : await this.stateAt(tag);
    return this.p.calls.call(this.withDefaultFrom(req), at);
  }

  async estimateGas(req: TxRequest, tag: BlockTag): Promise<bigint> {
    const at = await this.stateAt(tag);
    const cap = req.gas ?? (await this.p.pending.get()).header.gasLimit;
    return this.p.calls.estimateGas(this.withDefaultFrom(req), at, cap);
  }

  accounts(): Uint8Array[] {
    return this.p.wallet.accounts();
  }

  coinbase(): Uint8Array {
    return this.p.miner.coinbase;
  }

  mining(): boolean {
    return this.p.miner.mining;
  }

  gasPrice(): bigint {
    return this.p.gasPrice();
  }

  syncProgress(): SyncProgress | undefined {
    return this.p.syncProgress();
  }

  /** Calls without `from` run as the first owned account, as the real node does. */
  private withDefaultFrom(req: TxRequest): CallRequest {
    const from = req.from ?? this.p.wallet.firstAccount();
    return { from, to: req.to, gas: req.gas, gasPrice: req.gasPrice, value: req.value, data: payloadOf(req) };
  }
}
