// What a fork asks its upstream, in the upstream's dialect: `mc_*` (mcnode, MOAC) or `eth_*`
// (Ethereum nodes, Anvil). Detected once: mc_blockNumber answers on mcnode and MOAC, and an
// Ethereum node refuses it. Accounts come from eth_getAccountInfo (Anvil's; mcnode's
// mc_getAccountInfo) where the upstream has it, else from balance, nonce and code in one batch.

import type { Block, Header, Log, Receipt } from '../chain/types.js';
import { UpstreamError, forkUnavailable, type UpstreamClient } from './upstreamClient.js';
import {
  decodeAccountInfo, decodeBlock, decodeHeader, decodeLog, decodeReceipt, decodeWord, data, encodeBytes, encodeNumber, quantity, type UpstreamBlock,
} from './upstreamCodec.js';

export type Dialect = 'mc' | 'eth';

export interface UpstreamAccount {
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
}

/** A log filter as the upstream takes it (a range of blocks at or below the fork block). */
export interface UpstreamLogFilter {
  fromBlock: bigint;
  toBlock: bigint;
  addresses: Uint8Array[];
  topics: (Uint8Array[] | null)[];
}

export interface UpstreamLog {
  log: Log;
  blockHash: Uint8Array;
  blockNumber: bigint;
  txHash: Uint8Array;
  txIndex: number;
  logIndex: number;
}

/** Finds the dialect; an upstream that answers neither is unreachable or not a node. */
export async function detectDialect(client: UpstreamClient): Promise<Dialect> {
  try {
    quantity(await client.call('mc_blockNumber'), 'mc_blockNumber');
    return 'mc';
  } catch (err) {
    if (!(err instanceof UpstreamError)) throw err;
  }
  try {
    quantity(await client.call('eth_blockNumber'), 'eth_blockNumber');
    return 'eth';
  } catch (err) {
    if (!(err instanceof UpstreamError)) throw err;
    throw forkUnavailable(`${client.shownUrl} answers neither mc_blockNumber nor eth_blockNumber (${err.message})`);
  }
}

/** An error answer where data was expected: the fork cannot get it (e.g. a pruned upstream). */
const refusedBy = (err: unknown): unknown =>
  err instanceof UpstreamError ? forkUnavailable(`${err.method}: ${err.message}`) : err;

export class Upstream {
  /** undefined until tried; false once the upstream refused it */
  private accountInfo: boolean | undefined;
  private blockReceipts: boolean | undefined;

  constructor(
    readonly client: UpstreamClient,
    readonly dialect: Dialect,
  ) {}

  private m(name: string): string {
    return `${this.dialect}_${name}`;
  }

  private async ask(method: string, params: unknown[]): Promise<unknown> {
    try {
      return await this.client.call(method, params);
    } catch (err) {
      throw refusedBy(err);
    }
  }

  async blockNumber(): Promise<bigint> {
    return quantity(await this.ask(this.m('blockNumber'), []), 'blockNumber');
  }

  async networkId(): Promise<bigint> {
    // A decimal string, as geth writes it.
    return quantity(await this.ask('net_version', []), 'net_version');
  }

  /** The chain id, or the network id where the upstream has no chainId method (older MOAC nodes). */
  async chainId(): Promise<bigint> {
    try {
      return quantity(await this.client.call(this.m('chainId'), []), 'chainId');
    } catch (err) {
      if (err instanceof UpstreamError && err.methodMissing) return this.networkId();
      throw refusedBy(err);
    }
  }

  async account(address: Uint8Array, block: bigint): Promise<UpstreamAccount> {
    const params = [encodeBytes(address), encodeNumber(block)];
    if (this.accountInfo !== false) {
      try {
        const info = decodeAccountInfo(await this.client.call(this.m('getAccountInfo'), params));
        this.accountInfo = true;
        return info;
      } catch (err) {
        if (!(err instanceof UpstreamError && err.methodMissing)) throw refusedBy(err);
        this.accountInfo = false;
      }
    }
    try {
      const [balance, nonce, code] = await Promise.all([
        this.client.call(this.m('getBalance'), params),
        this.client.call(this.m('getTransactionCount'), params),
        this.client.call(this.m('getCode'), params),
      ]);
      return { balance: quantity(balance, 'getBalance'), nonce: quantity(nonce, 'getTransactionCount'), code: data(code, 'getCode') };
    } catch (err) {
      throw refusedBy(err);
    }
  }

  async storage(address: Uint8Array, slot: Uint8Array, block: bigint): Promise<bigint> {
    return decodeWord(await this.ask(this.m('getStorageAt'), [encodeBytes(address), encodeBytes(slot), encodeNumber(block)]), 'getStorageAt');
  }

  async blockByNumber(n: bigint, full: boolean): Promise<UpstreamBlock | undefined> {
    const j = await this.ask(this.m('getBlockByNumber'), [encodeNumber(n), full]);
    return j == null ? undefined : decodeBlock(j, `block ${n}`);
  }

  /** A block's header and hash, without its transactions. */
  async headerByNumber(n: bigint): Promise<{ header: Header; hash: Uint8Array } | undefined> {
    const j = await this.ask(this.m('getBlockByNumber'), [encodeNumber(n), false]);
    if (j == null) return undefined;
    if (typeof j !== 'object') throw forkUnavailable(`getBlockByNumber: expected a block, got ${JSON.stringify(j)?.slice(0, 60)}`);
    const what = `block ${n}`;
    return { header: decodeHeader(j as Record<string, unknown>, what), hash: data((j as Record<string, unknown>).hash, `${what} hash`, 32) };
  }

  async blockByHash(hash: Uint8Array): Promise<UpstreamBlock | undefined> {
    const j = await this.ask(this.m('getBlockByHash'), [encodeBytes(hash), true]);
    return j == null ? undefined : decodeBlock(j, `block ${encodeBytes(hash)}`);
  }

  /** The receipts of `block`, in order: one call where the upstream has getBlockReceipts, else one per transaction. */
  async receipts(block: Block): Promise<Receipt[]> {
    const what = `receipts of block ${block.header.number}`;
    if (this.blockReceipts !== false) {
      try {
        const list = await this.client.call(this.m('getBlockReceipts'), [encodeNumber(block.header.number)]);
        this.blockReceipts = true;
        if (!Array.isArray(list) || list.length !== block.transactions.length) throw forkUnavailable(`${what}: ${Array.isArray(list) ? list.length : 'no'} receipts for ${block.transactions.length} transactions`);
        return list.map((r, i) => decodeReceipt(r, `${what} ${i}`));
      } catch (err) {
        if (!(err instanceof UpstreamError && err.methodMissing)) throw refusedBy(err);
        this.blockReceipts = false;
      }
    }
    const answers = await Promise.all(block.transactions.map((tx) => this.ask(this.m('getTransactionReceipt'), [encodeBytes(tx.hash)])));
    return answers.map((r, i) => {
      if (r == null) throw forkUnavailable(`${what}: the upstream has no receipt for transaction ${i}`);
      return decodeReceipt(r, `${what} ${i}`);
    });
  }

  /** Where a transaction sits, or undefined when the upstream does not have it mined. */
  async transactionLocation(hash: Uint8Array): Promise<{ blockHash: Uint8Array; blockNumber: bigint; index: number } | undefined> {
    const j = (await this.ask(this.m('getTransactionByHash'), [encodeBytes(hash)])) as Record<string, unknown> | null;
    if (j == null || j.blockHash == null) return undefined;
    return {
      blockHash: data(j.blockHash, 'transaction blockHash', 32),
      blockNumber: quantity(j.blockNumber, 'transaction blockNumber'),
      index: Number(quantity(j.transactionIndex, 'transaction transactionIndex')),
    };
  }

  async logs(filter: UpstreamLogFilter): Promise<UpstreamLog[]> {
    const topics = filter.topics.map((t) => (t === null || t.length === 0 ? null : t.map(encodeBytes)));
    const params = {
      fromBlock: encodeNumber(filter.fromBlock),
      toBlock: encodeNumber(filter.toBlock),
      ...(filter.addresses.length ? { address: filter.addresses.map(encodeBytes) } : {}),
      ...(topics.length ? { topics } : {}),
    };
    const list = await this.ask(this.m('getLogs'), [params]);
    if (!Array.isArray(list)) throw forkUnavailable(`getLogs: expected a list of logs`);
    return list.map((l, i) => decodeLog(l, `log ${i}`));
  }
}
