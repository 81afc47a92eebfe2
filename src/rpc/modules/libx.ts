// libx_* (the client library's namespace; `chain3_*` / `web3_*` reach it by alias) and net_*.

import { keccak256 } from '../../encoding/bytes.js';
import { bytesToHex } from '../../encoding/hex.js';
import { data, method } from '../params.js';
import type { RpcMethod } from '../types.js';

export interface NetInfo {
  clientVersion: string;
  networkId: bigint;
  peerCount: () => number;
}

export function libxMethods(info: NetInfo): Record<string, RpcMethod> {
  return {
    libx_clientVersion: method([], () => info.clientVersion),
    libx_sha3: method([data], (bytes) => bytesToHex(keccak256(bytes))),
  };
}

export function netMethods(info: NetInfo): Record<string, RpcMethod> {
  return {
    net_version: method([], () => info.networkId.toString()),
    // The RPC endpoint answering is itself the proof that the node listens.
    net_listening: method([], () => true),
    net_peerCount: method([], () => '0x' + info.peerCount().toString(16)),
    // Anvil's eth_networkId: net_version under the chain namespace.
    mc_networkId: method([], () => info.networkId.toString()),
  };
}
