// mc_* methods that read account state at a block.

import { Address } from '@ethereumjs/util';
import { bigintToFixed, keccak256 } from '../../../encoding/bytes.js';
import { bytesToHex, encodeQuantity } from '../../../encoding/hex.js';
import { address, blockTag, method, storageSlot, withDefault } from '../../params.js';
import type { RpcMethod } from '../../types.js';
import { resolveState, type McContext, type StateAt } from './context.js';

const latest = withDefault(blockTag, 'latest' as const);

async function account(ctx: McContext, at: StateAt, addr: Uint8Array) {
  if (at.pendingState) return at.pendingState.getAccount(new Address(addr));
  return ctx.world.getAccount(at.header.stateRoot, addr);
}

export function stateMethods(ctx: McContext): Record<string, RpcMethod> {
  return {
    mc_getBalance: method([address, latest], async (addr, tag) => {
      const acct = await account(ctx, await resolveState(ctx, tag), addr);
      return encodeQuantity(acct?.balance ?? 0n);
    }),
    mc_getTransactionCount: method([address, latest], async (addr, tag) => {
      const at = await resolveState(ctx, tag);
      const acct = await account(ctx, at, addr);
      return encodeQuantity(acct?.nonce ?? 0n);
    }),
    mc_getCode: method([address, latest], async (addr, tag) => {
      const at = await resolveState(ctx, tag);
      const code = at.pendingState
        ? await at.pendingState.getCode(new Address(addr))
        : await ctx.world.getCode(at.header.stateRoot, addr);
      return bytesToHex(code);
    }),
    mc_getStorageAt: method([address, storageSlot, latest], async (addr, slot, tag) => {
      const at = await resolveState(ctx, tag);
      if (at.pendingState) {
        const sm = at.pendingState;
        const acct = await sm.getAccount(new Address(addr));
        const value = acct ? await sm.getStorage(new Address(addr), slot) : new Uint8Array();
        return bytesToHex(bigintToFixed(BigInt(bytesToHex(value.length ? value : Uint8Array.of(0))), 32));
      }
      return bytesToHex(await ctx.world.getStorage(at.header.stateRoot, addr, slot));
    }),
  };
}

/** The storage slot of `mapping[key]` at `slot` (interface §4.4 rule 4), for tests and docs. */
export function mappingSlot(key: Uint8Array, slot: bigint): Uint8Array {
  const buf = new Uint8Array(64);
  buf.set(key, 32 - key.length);
  buf.set(bigintToFixed(slot, 32), 32);
  return keccak256(buf);
}
