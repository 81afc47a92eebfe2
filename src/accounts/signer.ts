// Turns a transaction request into a signed transaction as the real node does: nonce, gas and
// gas price filled when absent, `dappAddr` put in front of the data, signed with the unlocked key
// of `from` (or a key given for one use, as personal_sendTransaction's password opens it).

import type { CallRequest } from '../execution/call.js';
import type { SignedTx, TxFields } from '../chain/types.js';
import { invalidTransaction } from '../errors.js';
import type { Header } from '../chain/types.js';
import type { WorldState } from '../state/worldState.js';
import type { Wallet } from './wallet.js';

/** mc_sendTransaction's default gas (docs/methods.md#sending-transactions). */
export const DEFAULT_SEND_GAS = 90_000n;

/** A transaction or call request (plus MOAC's shardingFlag, via, dappAddr). */
export interface TxRequest extends CallRequest {
  nonce?: bigint;
  shardingFlag?: bigint;
  via?: Uint8Array;
  dappAddr?: Uint8Array;
}

export interface SignerDeps {
  wallet: Wallet;
  /** the suggested gas price (mc_gasPrice) */
  gasPrice: () => bigint;
  world: WorldState;
  chain: { readonly head: { readonly header: Header } };
  pool: { pendingNonce(sender: Uint8Array, stateNonce: bigint): bigint };
  /** next nonce of `from` on an app chain (requests with shardingFlag 1–3) */
  appChainNonce(appChain: Uint8Array, from: Uint8Array): Promise<bigint>;
}

/** The request's data with the Dapp address in front, when one is named. */
export function payloadOf(req: Pick<TxRequest, 'data' | 'dappAddr'>): Uint8Array | undefined {
  if (!req.dappAddr) return req.data;
  return new Uint8Array([...req.dappAddr, ...(req.data ?? [])]);
}

export class TxSigner {
  constructor(private readonly deps: SignerDeps) {}

  /** Fills and signs; `key` signs for this one transaction instead of the wallet's unlocked key. */
  async sign(req: TxRequest, key?: Uint8Array): Promise<SignedTx> {
    if (!req.from) throw invalidTransaction('missing from address');
    if (req.shardingFlag !== undefined && req.shardingFlag >= 4n) throw invalidTransaction('shardingFlag error');
    const signingKey = key ?? this.deps.wallet.keyOf(req.from);
    return this.deps.wallet.signTransaction(await this.fill(req), req.from, signingKey);
  }

  /** The fields the real node signs for `req`: its own, or the defaults. */
  async fill(req: TxRequest): Promise<TxFields> {
    if (!req.from) throw invalidTransaction('missing from address');
    const appChainTx = req.shardingFlag !== undefined && req.shardingFlag !== 0n;
    return {
      nonce: req.nonce ?? (await this.nextNonce(req.from, appChainTx ? req.to : undefined, appChainTx)),
      syscnt: 0n,
      gasPrice: req.gasPrice ?? this.deps.gasPrice(),
      // App-chain transactions pay no gas; the real tools send 0.
      gas: req.gas ?? (appChainTx ? 0n : DEFAULT_SEND_GAS),
      to: req.to ?? null,
      value: req.value ?? 0n,
      data: payloadOf(req) ?? new Uint8Array(),
      shardingFlag: req.shardingFlag ?? 0n,
      via: req.via ?? null,
    };
  }

  private async nextNonce(from: Uint8Array, appChain: Uint8Array | undefined, appChainTx: boolean): Promise<bigint> {
    if (appChainTx) {
      if (!appChain) throw invalidTransaction('an app-chain transaction needs `to` (the app chain address)');
      return this.deps.appChainNonce(appChain, from);
    }
    const account = await this.deps.world.getAccount(this.deps.chain.head.header.stateRoot, from);
    return this.deps.pool.pendingNonce(from, account?.nonce ?? 0n);
  }
}
