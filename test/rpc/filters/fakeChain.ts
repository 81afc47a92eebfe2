// An in-memory chain for FilterSystem tests: blocks with synthetic transactions and logs, the
// same `newHead` event as Blockchain, and a pending block that tests set directly.

import { EventEmitter } from 'node:events';
import type { Block, Header, Log, Receipt, SignedTx } from '../../../src/chain/types.js';
import { logsBloom } from '../../../src/chain/block.js';
import { bigintToFixed, keccak256 } from '../../../src/encoding/bytes.js';
import { bytesToHex } from '../../../src/encoding/hex.js';

export const addr = (n: number): Uint8Array => bigintToFixed(BigInt(n) + 0x1000n, 20);
export const word = (n: number | bigint): Uint8Array => bigintToFixed(BigInt(n), 32);

export function fakeTx(seed: string): SignedTx {
  return { hash: keccak256(new TextEncoder().encode(seed)) } as SignedTx;
}

function receiptOf(logs: Log[]): Receipt {
  return { status: 1, cumulativeGasUsed: 0n, gasUsed: 0n, logsBloom: logsBloom(logs), logs, contractAddress: null };
}

type ChainEvent = { block: Block; receipts: Receipt[] };

export class FakeChain extends EventEmitter<{ newHead: [ChainEvent]; rewound: [{ removed: ChainEvent[] }] }> {
  readonly blocks: Block[] = [];
  readonly receipts = new Map<Block, Receipt[]>();
  private readonly byHash = new Map<string, Block>();
  pendingBlock: { transactions: SignedTx[]; receipts: Receipt[] } = { transactions: [], receipts: [] };
  receiptReads = 0;

  constructor() {
    super();
    this.append([]);
  }

  get head(): Block {
    return this.blocks[this.blocks.length - 1];
  }

  /** Appends a block whose transactions emit `txLogs[i]`; announces it. */
  append(txLogs: Log[][]): Block {
    const number = BigInt(this.blocks.length);
    const receipts = txLogs.map(receiptOf);
    const bloom = logsBloom(txLogs.flat());
    const header = { number, logsBloom: bloom } as Header;
    const block: Block = {
      header,
      hash: keccak256(word(number + 77n)),
      transactions: txLogs.map((_, i) => fakeTx(`${number}/${i}`)),
      size: 0,
    };
    this.blocks.push(block);
    this.receipts.set(block, receipts);
    this.byHash.set(bytesToHex(block.hash), block);
    this.emit('newHead', { block, receipts });
    return block;
  }

  /** Drops the last `count` blocks and announces them as removed, newest first. */
  rewind(count: number): Block[] {
    const removed = this.blocks.splice(this.blocks.length - count).reverse();
    this.emit('rewound', { removed: removed.map((block) => ({ block, receipts: this.receipts.get(block)! })) });
    return removed;
  }

  setPending(txLogs: Log[][]): SignedTx[] {
    const transactions = txLogs.map((_, i) => fakeTx(`pending/${i}/${Math.random()}`));
    this.pendingBlock = { transactions, receipts: txLogs.map(receiptOf) };
    return transactions;
  }

  async getBlockByNumber(n: bigint) {
    return this.blocks[Number(n)];
  }
  async getBlockByHash(h: Uint8Array) {
    return this.byHash.get(bytesToHex(h));
  }
  async getReceipts(hash: Uint8Array) {
    this.receiptReads++;
    const block = await this.getBlockByHash(hash);
    return block && this.receipts.get(block);
  }
}

export class FakePool extends EventEmitter<{ pendingTx: [SignedTx] }> {}
