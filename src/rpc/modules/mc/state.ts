// mc_* methods that read account state at a block.

import { bigintToFixed, keccak256 } from '../../../encoding/bytes.js';
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

/** The storage slot of `mapping[key]` at `slot` (README, "Methods served"), for tests and docs. */
export function mappingSlot(key: Uint8Array, slot: bigint): Uint8Array {
  const buf = new Uint8Array(64);
  buf.set(key, 32 - key.length);
  buf.set(bigintToFixed(slot, 32), 32);
  return keccak256(buf);
}
