// mc_* methods about the node itself: protocol, sync status, accounts, gas price, coinbase.

import { bytesToHex, encodeQuantity } from '../../../encoding/hex.js';
import { method } from '../../params.js';
import type { RpcMethod } from '../../types.js';
import type { McBackend } from '../../backend.js';

/** mc63, the real VNODE's protocol version (pinned by test/rpc/golden/transcripts/02-mc-chain.txt). */
export const PROTOCOL_VERSION = '0x3f';

export function infoMethods(backend: McBackend): Record<string, RpcMethod> {
  return {
    mc_protocolVersion: method([], () => PROTOCOL_VERSION),
    // While behind a peer: where this sync began, where we are, the peer's head; else false.
    mc_syncing: method([], () => {
      const p = backend.syncProgress();
      if (!p) return false;
      return { startingBlock: encodeQuantity(p.startingBlock), currentBlock: encodeQuantity(p.currentBlock), highestBlock: encodeQuantity(p.highestBlock) };
    }),
    mc_coinbase: method([], () => bytesToHex(backend.coinbase())),
    mc_mining: method([], () => backend.mining()),
    mc_gasPrice: method([], () => encodeQuantity(backend.gasPrice())),
    mc_accounts: method([], () => backend.accounts().map(bytesToHex)),
    mc_chainId: method([], () => encodeQuantity(backend.chainId)),
  };
}
