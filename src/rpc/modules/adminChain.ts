// admin_exportChain / admin_importChain (geth's): block files on the node's own disk. Served over
// IPC; over HTTP only when `admin` is in --rpcapi. Paths are the node process's.

import { count, method, optional, string } from '../params.js';
import type { RpcMethod } from '../types.js';

export interface ChainFiles {
  exportChain(file: string, from?: bigint, to?: bigint): Promise<unknown>;
  importChain(file: string): Promise<unknown>;
}

/** A refused file throws ChainFileError, which names the problem (`block 17: state root mismatch (…)`). */
async function translate(work: () => Promise<unknown>): Promise<true> {
  await work();
  return true;
}

const big = (n: number | undefined): bigint | undefined => (n === undefined ? undefined : BigInt(n));

export function adminChainMethods(files: ChainFiles): Record<string, RpcMethod> {
  return {
    admin_exportChain: method([string, optional(count), optional(count)], (file, from, to) =>
      translate(() => files.exportChain(file, big(from), big(to))),
    ),
    admin_importChain: method([string], (file) => translate(() => files.importChain(file))),
  };
}
