// The JSON-RPC namespaces and their other names, declared once: --rpcapi, admin_startRPC's apis,
// the method tables and the dispatcher's method-name aliases all read them. A leaf module, so
// that loading the configuration does not load the RPC stack.

export const NAMESPACES = ['libx', 'mc', 'net', 'admin', 'txpool', 'personal', 'vnode', 'miner', 'rpc', 'evm', 'anvil', 'hardhat', 'debug', 'ots', 'erigon', 'trace'] as const;
export type Namespace = (typeof NAMESPACES)[number];

/** Other names of a namespace, as the real VNODE and the client libraries send them. */
export const NAMESPACE_ALIASES: ReadonlyMap<string, Namespace> = new Map<string, Namespace>([
  ['eth', 'mc'],
  ['web3', 'libx'],
  ['chain3', 'libx'],
]);

/** `eth_*` → `mc_*`; `chain3_*`, `web3_*` → `libx_*` (what the real VNODE and chain3 send). */
export function canonicalName(sent: string): string {
  const i = sent.indexOf('_');
  const ns = i > 0 ? NAMESPACE_ALIASES.get(sent.slice(0, i)) : undefined;
  return ns === undefined ? sent : ns + sent.slice(i);
}
