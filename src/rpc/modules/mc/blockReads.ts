// mc_* reads beside the block methods that tools use daily (docs/methods.md#more-reads): headers
// alone, a block's receipts at once, raw transaction bytes.

import type { Block } from '../../../chain/types.js';
import { bytesToHex } from '../../../encoding/hex.js';
import { blockRef, blockTag, hash, method, uint64, type BlockRef } from '../../params.js';
import { formatBlockReceipts, formatHeader, formatPendingHeader } from '../../format.js';
import type { RpcMethod } from '../../types.js';
import type { McBackend } from '../../backend.js';

export function blockReadMethods(backend: McBackend): Record<string, RpcMethod> {
  const mined = async (ref: BlockRef): Promise<Block | undefined> => {
    if ('hash' in ref) return backend.blockByHash(ref.hash);
    const resolved = await backend.blockAt(ref.tag);
    return resolved?.kind === 'mined' ? resolved.block : undefined;
  };
  const rawAt = (block: Block | undefined, index: bigint) => {
    const tx = block?.transactions[Number(index)];
    return tx ? bytesToHex(tx.raw) : null;
  };

  return {
    mc_getHeaderByNumber: method([blockTag], async (tag) => {
      const resolved = await backend.blockAt(tag);
      if (!resolved) return null;
      return resolved.kind === 'mined' ? formatHeader(resolved.block) : formatPendingHeader(resolved.pending.header);
    }),
    mc_getHeaderByHash: method([hash], async (h) => {
      const block = await backend.blockByHash(h);
      return block ? formatHeader(block) : null;
    }),
    // The pending block has no hash for its receipts to name: null, as for an unknown block.
    mc_getBlockReceipts: method([blockRef], async (ref) => {
      const block = await mined(ref);
      const receipts = block && (await backend.receipts(block.hash));
      return block && receipts ? formatBlockReceipts(block, receipts) : null;
    }),
    mc_getRawTransactionByHash: method([hash], async (h) => {
      const found = await backend.findTransaction(h);
      const tx = found ? found.block.transactions[found.index] : backend.poolTransaction(h);
      return tx ? bytesToHex(tx.raw) : null;
    }),
    mc_getRawTransactionByBlockHashAndIndex: method([hash, uint64], async (h, i) => rawAt(await backend.blockByHash(h), i)),
    mc_getRawTransactionByBlockNumberAndIndex: method([blockTag, uint64], async (tag, i) => rawAt(await mined({ tag }), i)),
  };
}
