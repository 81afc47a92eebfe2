// The one batch that moves the head to another block of the stored tree: a rewind (the target
// is a canonical ancestor) or a reorganisation (the target is on a side branch). Canonical
// index, transaction lookups, the pool journal and the head pointer change together, so a
// crash leaves either the old head with its indexes or the new one with its.

import { RLP } from '@ethereumjs/rlp';
import type { Block } from '../chain/types.js';
import { bytesToHex } from '../encoding/hex.js';
import type { BatchOp } from '../store/database.js';
import { keys } from '../store/schema.js';
import { indexOps, type TouchedAddresses } from './addressIndex.js';

/**
 * Ops for switching from `oldHead` to `target`: `removed` left the canonical chain (any order),
 * `added` join it; `journal`: the removed transactions go back to the pool journal; `touched`:
 * the blocks' touched addresses by hash (hex), whose address-index entries move with them.
 * Deletions come first: a transaction in both branches ends up pointing at its new block.
 */
export function headSwitchOps(
  oldHead: Block, target: Block, removed: Block[], added: Block[], journal = true, touched: ReadonlyMap<string, TouchedAddresses> = new Map(),
): BatchOp[] {
  const dels: BatchOp[] = [];
  const puts: BatchOp[] = [];
  for (let n = target.header.number + 1n; n <= oldHead.header.number; n++) dels.push({ type: 'del', key: keys.canonical(n) });
  const addedTxs = new Set<string>();
  for (const block of added) {
    puts.push({ type: 'put', key: keys.canonical(block.header.number), value: block.hash });
    puts.push(...indexOps('put', block, touched.get(bytesToHex(block.hash)) ?? []));
    block.transactions.forEach((tx, index) => {
      addedTxs.add(bytesToHex(tx.hash));
      puts.push({ type: 'put', key: keys.txIndex(tx.hash), value: RLP.encode([block.hash, index]) });
      // Mined again on this branch: no longer pending, as when a block is mined locally.
      dels.push({ type: 'del', key: keys.poolJournal(tx.hash) });
    });
  }
  for (const block of removed) {
    dels.push(...indexOps('del', block, touched.get(bytesToHex(block.hash)) ?? []));
    for (const tx of block.transactions) {
      dels.push({ type: 'del', key: keys.txIndex(tx.hash) });
      // Back into the journal in the same batch, so a crash right after cannot lose them; the
      // pool revalidates them (now or at the next start). System transactions never enter it.
      if (journal && tx.syscnt === 0n && !addedTxs.has(bytesToHex(tx.hash))) puts.push({ type: 'put', key: keys.poolJournal(tx.hash), value: tx.raw });
    }
  }
  puts.push({ type: 'put', key: keys.head, value: target.hash });
  return [...dels, ...puts];
}
