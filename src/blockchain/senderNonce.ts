// The canonical transaction a sender sent with a given nonce (eth_getTransactionBySenderAndNonce),
// found without an index: an account's nonce only grows along the chain, so a binary search
// over heights finds the first block after which the nonce is past `nonce`, and the transaction
// is in that block. A nonce moved by a setter (anvil_setNonce) can hide it: then nothing is found.

import type { Block } from '../chain/types.js';
import { equalBytes } from '../encoding/bytes.js';
import type { TxLocation } from './blockchain.js';

export interface NonceHistory {
  readonly head: Block;
  getBlockByNumber(number: bigint): Promise<Block | undefined>;
  /** the account's nonce in the state after block `block` */
  nonceAfter(block: Block, address: Uint8Array): Promise<bigint>;
}

export async function findBySenderAndNonce(chain: NonceHistory, sender: Uint8Array, nonce: bigint): Promise<TxLocation | undefined> {
  const head = chain.head;
  if ((await chain.nonceAfter(head, sender)) <= nonce) return undefined;
  // Smallest height whose post-state nonce is above `nonce`: the block that used it.
  let low = 0n;
  let high = head.header.number;
  let found: Block = head;
  while (low <= high) {
    const mid = (low + high) / 2n;
    const block = mid === head.header.number ? head : await chain.getBlockByNumber(mid);
    if (!block) return undefined;
    if ((await chain.nonceAfter(block, sender)) > nonce) {
      found = block;
      high = mid - 1n;
    } else {
      low = mid + 1n;
    }
  }
  const index = found.transactions.findIndex((tx) => tx.nonce === nonce && equalBytes(tx.from, sender));
  return index < 0 ? undefined : { block: found, index };
}
