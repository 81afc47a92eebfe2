// Builds the one method table from the namespace modules. The served-namespace rules (which
// namespaces HTTP may call) live in namespaceOf / the transports' isAllowed.

import type { MethodTable, RpcMethod } from '../types.js';
import { method } from '../params.js';

export { NAMESPACES, type Namespace } from '../namespaces.js';

export function namespaceOf(methodName: string): string {
  const i = methodName.indexOf('_');
  return i < 0 ? methodName : methodName.slice(0, i);
}

/** Merges module records into a Map; a name served twice is a wiring bug. */
export function buildMethodTable(...modules: Record<string, RpcMethod>[]): Map<string, RpcMethod> {
  const table = new Map<string, RpcMethod>();
  for (const mod of modules) {
    for (const [name, m] of Object.entries(mod)) {
      if (table.has(name)) throw new Error(`method ${name} registered twice`);
      table.set(name, m);
    }
  }
  return table;
}

/** rpc_modules: the namespaces a transport serves, each at version "1.0". */
export function rpcModules(served: () => readonly string[]): Record<string, RpcMethod> {
  return {
    rpc_modules: method([], () => Object.fromEntries(served().map((ns) => [ns, '1.0']))),
  };
}

export type { MethodTable };
