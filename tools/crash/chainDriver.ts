// Drives a node with signed transactions for the crash harness: main-chain transfers and
// app-chain transactions (shardingFlag 1 call, 2 transfer, 3 deploy, handed to the SCS through
// mc_sendRawTransaction), from several dev accounts, each sender's nonces in sequence. Every hash
// the node acknowledged is remembered: after a crash it must still be pending or mined.

import { deriveDevKeys, privateKeyToAddress } from '../../src/accounts/keys.js';
import { signTransaction } from '../../src/chain/transaction.js';
import { bytesToHex, hexToBytes } from '../../src/encoding/hex.js';
import { rpc } from '../lib/rpcClient.js';

export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
export const CHAIN_ID = 100n;
const GWEI = 1_000_000_000n;

export interface Sender {
  key: Uint8Array;
  address: string;
  /** next main-chain nonce, and next app-chain nonce, as this driver believes */
  nonce: bigint;
  appNonce: bigint;
  /** one transaction in flight per sender keeps nonces gap-free */
  busy: boolean;
}

export interface Endpoints {
  http: string;
  scs: string;
}

export class ChainDriver {
  readonly senders: Sender[];
  /** acknowledged main-chain hashes */
  readonly acked = new Set<string>();
  /** acknowledged app-chain hashes */
  readonly appAcked = new Set<string>();
  /** send attempts that failed without an acknowledgement (refusals, resets at the kill) */
  unacknowledged = 0;
  /** The VNODE address app-chain transactions must name as `via` (the first dev account). */
  readonly viaAddress: string;

  constructor(
    readonly appChain: string,
    senderCount = 6,
    firstSender = 1,
  ) {
    const keys = deriveDevKeys(DEV_MNEMONIC, firstSender + senderCount);
    this.viaAddress = bytesToHex(privateKeyToAddress(keys[0]));
    this.senders = keys
      .slice(firstSender)
      .map((key) => ({ key, address: bytesToHex(privateKeyToAddress(key)), nonce: 0n, appNonce: 0n, busy: false }));
  }

  /** After a restart: each sender's next nonces from the node (the pool journal included). */
  async resync(ep: Endpoints): Promise<void> {
    for (const s of this.senders) {
      s.nonce = BigInt(await rpc(ep.http, 'mc_getTransactionCount', [s.address, 'pending']));
      s.appNonce = BigInt(await rpc(ep.scs, 'scs_getNonce', [this.appChain, s.address]));
      s.busy = false;
    }
  }

  /** A free sender, or undefined when all have a transaction in flight. */
  freeSender(pick: (n: number) => number): Sender | undefined {
    const free = this.senders.filter((s) => !s.busy);
    return free.length ? free[pick(free.length)] : undefined;
  }

  /**
   * Signs and sends one transaction from `s`: kind 'main' (a transfer), or an app-chain one
   * ('call' flag 1, 'transfer' flag 2, 'deploy' flag 3). Resolves with the hash once the node
   * acknowledged it, or undefined when it did not. `onAck` runs first thing after the reply.
   */
  async send(ep: Endpoints, s: Sender, kind: 'main' | 'call' | 'transfer' | 'deploy', onAck?: () => void): Promise<string | undefined> {
    const main = kind === 'main';
    const flag = { main: 0n, call: 1n, transfer: 2n, deploy: 3n }[kind];
    const recipient = hexToBytes(this.senders[(this.senders.indexOf(s) + 1) % this.senders.length].address);
    const data =
      kind === 'call' ? new Uint8Array([...recipient, 0x12, 0x34, 0x56, 0x78])
      : kind === 'transfer' ? recipient
      : kind === 'deploy' ? hexToBytes('0x600a600c600039600a6000f3' + '602a60005260206000f3') // returns 42
      : new Uint8Array();
    const tx = signTransaction(
      {
        nonce: main ? s.nonce : s.appNonce,
        syscnt: 0n,
        gasPrice: main ? 20n * GWEI : 0n,
        gas: main ? 21_000n : 0n,
        to: main ? recipient : hexToBytes(this.appChain),
        value: main ? 1n : 0n,
        data,
        shardingFlag: flag,
        via: main ? null : hexToBytes(this.viaAddress),
      },
      s.key,
      CHAIN_ID,
    );
    const hash = bytesToHex(tx.hash);
    s.busy = true;
    try {
      const got = await rpc(ep.http, 'mc_sendRawTransaction', [bytesToHex(tx.raw)], 10_000);
      onAck?.();
      if (got !== hash) throw new Error(`node answered hash ${got} for ${hash}`);
      (main ? this.acked : this.appAcked).add(hash);
      if (main) s.nonce++;
      else s.appNonce++;
      return hash;
    } catch (err) {
      if (err instanceof Error && /answered hash/.test(err.message)) throw err;
      this.unacknowledged++;
      return undefined;
    } finally {
      s.busy = false;
    }
  }

}
