// The node behind the chain-facing RPC modules (rpc/backend.ts): block tags resolved against the
// chain and the pending block, state readers, the signer and the pool, calls and estimates.

import { payloadOf, type TxRequest, type TxSigner } from '../accounts/signer.js';
import type { Wallet } from '../accounts/wallet.js';
import type { ChainReader } from '../blockchain/chainHistory.js';
import { feeHistory } from '../blockchain/feeHistory.js';
import type { Block, SignedTx, TxFields } from '../chain/types.js';
import { findBySenderAndNonce } from '../blockchain/senderNonce.js';
import { equalBytes } from '../encoding/bytes.js';
import type { BlockTag } from '../encoding/hex.js';
import { notFound } from '../errors.js';
import type { CallExecutor, CallOverrides, CallRequest } from '../execution/call.js';
import type { Miner } from '../miner/miner.js';
import type { Blockchain } from '../blockchain/blockchain.js';
import type { PendingBlockCache } from '../miner/pendingBlock.js';
import type { McBackend, ResolvedBlock, SyncProgress } from '../rpc/backend.js';
import { proveAccount } from '../state/proof.js';
import { pendingStateReader, storedStateReader, type StateReader } from '../state/stateReader.js';
import type { WorldState } from '../state/worldState.js';
import type { TxPool } from '../txpool/txPool.js';
import type { TxSubmitter } from '../txpool/submitter.js';

export interface BackendParts {
  /** the chain as readers see it (in a fork: with the upstream's history below the fork block) */
  chain: ChainReader;
  /** where new heads are announced (eth_sendRawTransactionSync waits on it) */
  heads: Pick<Blockchain, 'on' | 'off'>;
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
  /** every address whose key the node does not hold sends as if impersonated */
  readonly autoImpersonate: boolean;
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
    const block = tag === 'latest' ? chain.head : await chain.getBlockByNumber(tag === 'earliest' ? 0n : tag);
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

  poolTransactions(): SignedTx[] {
    const { pending, queued } = this.p.pool.content();
    return [...pending.values(), ...queued.values()].flat();
  }

  async transactionBySenderAndNonce(sender: Uint8Array, nonce: bigint) {
    const pooled = this.poolTransactions().find((tx) => tx.nonce === nonce && equalBytes(tx.from, sender));
    if (pooled) return { tx: pooled };
    const { chain, world } = this.p;
    const history = {
      head: chain.head,
      getBlockByNumber: (n: bigint) => chain.getBlockByNumber(n),
      nonceAfter: async (block: Block, address: Uint8Array) => (await world.getAccount(block.header.stateRoot, address))?.nonce ?? 0n,
    };
    const at = await findBySenderAndNonce(history, sender, nonce);
    return at && { tx: at.block.transactions[at.index], at };
  }

  waitForTransaction(hash: Uint8Array, timeoutMs: number): Promise<{ block: Block; index: number } | undefined> {
    const { chain, heads } = this.p;
    return new Promise((resolve, reject) => {
      const done = (found: { block: Block; index: number } | undefined) => {
        clearTimeout(timer);
        heads.off('newHead', onHead);
        resolve(found);
      };
      const onHead = ({ block }: { block: Block }) => {
        const index = block.transactions.findIndex((tx) => equalBytes(tx.hash, hash));
        if (index >= 0) done({ block, index });
      };
      const timer = setTimeout(() => done(undefined), timeoutMs);
      heads.on('newHead', onHead);
      // Mined before the listener was added (instant mining can be that fast).
      chain.findTransaction(hash).then((found) => found && done(found), (err: unknown) => {
        clearTimeout(timer);
        heads.off('newHead', onHead);
        reject(err);
      });
    });
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
    if (key === undefined && req.from && this.impersonates(req.from)) {
      return this.impersonation!.sendImpersonated(req.from, await this.p.signer.fill(req));
    }
    const tx = await this.p.signer.sign(req, key);
    await this.p.submitter.submit(tx);
    return tx;
  }

  /** Impersonated by name, or automatically when the node holds no unlocked key for it. */
  private impersonates(from: Uint8Array): boolean {
    const imp = this.impersonation;
    return imp !== undefined && (imp.isImpersonated(from) || (imp.autoImpersonate && !this.p.wallet.canSign(from)));
  }

  signMessage(address: Uint8Array, message: Uint8Array, key?: Uint8Array): Uint8Array {
    return this.p.wallet.signMessage(address, message, key);
  }

  signDigest(address: Uint8Array, digest: Uint8Array): Uint8Array {
    return this.p.wallet.signDigest(address, digest);
  }

  signTransaction(req: TxRequest): Promise<SignedTx> {
    return this.p.signer.sign(req);
  }

  async call(req: TxRequest, tag: BlockTag, overrides?: CallOverrides): Promise<Uint8Array> {
    const at = tag === 'latest' ? { header: this.p.chain.head.header } : await this.stateAt(tag);
    return this.p.calls.call(this.withDefaultFrom(req), overrides === undefined ? at : { ...at, overrides });
  }

  async estimateGas(req: TxRequest, tag: BlockTag, overrides?: CallOverrides): Promise<bigint> {
    const at = await this.stateAt(tag);
    const cap = req.gas ?? (await this.p.pending.get()).header.gasLimit;
    return this.p.calls.estimateGas(this.withDefaultFrom(req), overrides === undefined ? at : { ...at, overrides }, cap);
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
