// mc_* methods that read account state at a block.

import { bytesToHex, encodeQuantity } from '../../../encoding/hex.js';
import { address, blockTag, method, storageSlot, withDefault } from '../../params.js';
import type { RpcMethod } from '../../types.js';
import { resolveState, type McContext } from './context.js';

const latest = withDefault(blockTag, 'latest' as const);

export function stateMethods(ctx: McContext): Record<string, RpcMethod> {
  return {
    mc_getBalance: method([address, latest], async (addr, tag) => {
      const acct = await (await resolveState(ctx, tag)).getAccount(addr);
      return encodeQuantity(acct?.balance ?? 0n);
    }),
    mc_getTransactionCount: method([address, latest], async (addr, tag) => {
      const acct = await (await resolveState(ctx, tag)).getAccount(addr);
      return encodeQuantity(acct?.nonce ?? 0n);
    }),
    mc_getCode: method([address, latest], async (addr, tag) => bytesToHex(await (await resolveState(ctx, tag)).getCode(addr))),
    mc_getStorageAt: method([address, storageSlot, latest], async (addr, slot, tag) =>
      bytesToHex(await (await resolveState(ctx, tag)).getStorage(addr, slot)),
    ),
  };
}
