// mc_* methods that read account state at a block.

import { bytesToHex, encodeQuantity } from '../../../encoding/hex.js';
import { address, blockTag, method, storageSlot, withDefault } from '../../params.js';
import type { RpcMethod } from '../../types.js';
import type { McBackend } from '../../backend.js';

const latest = withDefault(blockTag, 'latest' as const);

export function stateMethods(backend: McBackend): Record<string, RpcMethod> {
  return {
    mc_getBalance: method([address, latest], async (addr, tag) => {
      const acct = await (await backend.stateAt(tag)).getAccount(addr);
      return encodeQuantity(acct?.balance ?? 0n);
    }),
    mc_getTransactionCount: method([address, latest], async (addr, tag) => {
      const acct = await (await backend.stateAt(tag)).getAccount(addr);
      return encodeQuantity(acct?.nonce ?? 0n);
    }),
    mc_getCode: method([address, latest], async (addr, tag) => bytesToHex(await (await backend.stateAt(tag)).getCode(addr))),
    mc_getStorageAt: method([address, storageSlot, latest], async (addr, slot, tag) =>
      bytesToHex(await (await backend.stateAt(tag)).getStorage(addr, slot)),
    ),
  };
}
