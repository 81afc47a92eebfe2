// mc_* methods that read blocks, transactions and receipts.

import type { Block } from '../../../chain/types.js';
import { bytesToHex, encodeQuantity, type BlockTag } from '../../../encoding/hex.js';
import { Lru } from '../../../store/lru.js';
import { RawJson } from '../../rawJson.js';
import { blockTag, boolean, hash, method, uint64, withDefault } from '../../params.js';
import { formatBlock, formatPendingBlock, formatReceipt, formatTransaction } from '../../format.js';
import type { RpcMethod } from '../../types.js';
import type { McBackend } from '../../backend.js';

const fullFlag = withDefault(boolean, false);

export function blockMethods(backend: McBackend): Record<string, RpcMethod> {

  // A block's reply depends on its hash alone: its contents and total difficulty never change, even
  // when a reorganisation or rewind takes it off the canonical chain. The text is cached by hash.
  const replies = new Lru<string, RawJson>(256);
  const blockObject = async (block: Block | undefined, full: boolean) => {
    if (!block) return null;
    const key = bytesToHex(block.hash) + (full ? 'f' : 'h');
    const cached = replies.get(key);
    if (cached) return cached;
    const reply = new RawJson(JSON.stringify(formatBlock(block, (await backend.totalDifficulty(block.hash)) ?? 0n, full)));
    replies.set(key, reply);
    return reply;
  };

  const byTag = async (tag: BlockTag, full: boolean) => {
    const resolved = await backend.blockAt(tag);
    if (!resolved) return null;
    if (resolved.kind === 'mined') return blockObject(resolved.block, full);
    const { pending } = resolved;
    const td = ((await backend.totalDifficulty(backend.head().hash)) ?? 0n) + pending.header.difficulty;
    return formatPendingBlock(pending.header, pending.transactions, pending.size, td, full);
  };

  const txCount = async (tag: BlockTag) => {
    const resolved = await backend.blockAt(tag);
    if (!resolved) return null;
    return encodeQuantity(resolved.kind === 'mined' ? resolved.block.transactions.length : resolved.pending.transactions.length);
  };

  const txInBlock = (block: Block | undefined, index: bigint) => {
    const tx = block?.transactions[Number(index)];
    if (!block || !tx || index > BigInt(block.transactions.length)) return null;
    return formatTransaction(tx, { blockHash: block.hash, blockNumber: block.header.number, index: Number(index) });
  };

  const uncleCount = async (block: Block | undefined) => (block ? '0x0' : null);

  return {
    mc_blockNumber: method([], () => encodeQuantity(backend.head().header.number)),
    mc_getBlockByNumber: method([blockTag, fullFlag], byTag),
    mc_getBlockByHash: method([hash, fullFlag], async (h, full) => blockObject(await backend.blockByHash(h), full)),
    mc_getBlockTransactionCountByNumber: method([blockTag], txCount),
    mc_getBlockTransactionCountByHash: method([hash], async (h) => {
      const block = await backend.blockByHash(h);
      return block ? encodeQuantity(block.transactions.length) : null;
    }),
    mc_getUncleCountByBlockHash: method([hash], async (h) => uncleCount(await backend.blockByHash(h))),
    mc_getUncleCountByBlockNumber: method([blockTag], async (tag) => {
      const resolved = await backend.blockAt(tag);
      return resolved ? '0x0' : null;
    }),
    // No uncles are ever produced (docs/methods.md#blocks-transactions-state): any index finds nothing.
    mc_getUncleByBlockHashAndIndex: method([hash, uint64], () => null),
    mc_getUncleByBlockNumberAndIndex: method([blockTag, uint64], () => null),
    mc_getTransactionByBlockHashAndIndex: method([hash, uint64], async (h, i) => txInBlock(await backend.blockByHash(h), i)),
    mc_getTransactionByBlockNumberAndIndex: method([blockTag, uint64], async (tag, i) => {
      const resolved = await backend.blockAt(tag);
      if (!resolved) return null;
      if (resolved.kind === 'mined') return txInBlock(resolved.block, i);
      const tx = resolved.pending.transactions[Number(i)];
      return tx ? formatTransaction(tx) : null;
    }),
    mc_getTransactionByHash: method([hash], async (h) => {
      const found = await backend.findTransaction(h);
      if (found) return txInBlock(found.block, BigInt(found.index));
      const pooled = backend.poolTransaction(h);
      return pooled ? formatTransaction(pooled) : null;
    }),
    mc_getTransactionReceipt: method([hash], async (h) => {
      const found = await backend.findTransaction(h);
      if (!found) return null;
      const receipts = await backend.receipts(found.block.hash);
      if (!receipts) return null;
      let firstLogIndex = 0;
      for (let i = 0; i < found.index; i++) firstLogIndex += receipts[i].logs.length;
      return formatReceipt(found.block.transactions[found.index], receipts[found.index], found.block, found.index, firstLogIndex);
    }),
  };
}

