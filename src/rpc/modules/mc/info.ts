// mc_* methods about the node itself: protocol, sync status, accounts, gas price, coinbase.

import { bytesToHex, encodeQuantity } from '../../../encoding/hex.js';
import { method } from '../../params.js';
import type { RpcMethod } from '../../types.js';
import type { McContext } from './context.js';

/** mc63, the real VNODE's protocol version (pinned by test/rpc/golden/transcripts/02-mc-chain.txt). */
export const PROTOCOL_VERSION = '0x3f';

export function infoMethods(ctx: McContext): Record<string, RpcMethod> {
  return {
    mc_protocolVersion: method([], () => PROTOCOL_VERSION),
    // While behind a peer: where this sync began, where we are, the peer's head; else false.
    mc_syncing: method([], () => {
      const p = ctx.syncProgress?.();
      if (!p) return false;
      return { startingBlock: encodeQuantity(p.startingBlock), currentBlock: encodeQuantity(p.currentBlock), highestBlock: encodeQuantity(p.highestBlock) };
    }),
    mc_coinbase: method([], () => bytesToHex(ctx.miner.coinbase)),
    mc_mining: method([], () => ctx.miner.mining),
    mc_gasPrice: method([], () => encodeQuantity(ctx.gasPrice())),
    mc_accounts: method([], () => ctx.wallet.accounts().map(bytesToHex)),
    mc_chainId: method([], () => encodeQuantity(ctx.chainId)),
  };
}
