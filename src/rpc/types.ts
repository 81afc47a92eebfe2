// Wire-level types shared by the dispatcher, the transports and the method modules.

/** Positional (`mc_*`, `libx_*`, …) or named (`ScsRPCMethod.*`) parameters; a missing member is `[]`. */
export type RpcParams = unknown[] | Record<string, unknown>;

/** One served method. The handler returns a JSON-ready value (hex strings, not bigints). */
export interface RpcMethod {
  handler: (params: RpcParams) => unknown | Promise<unknown>;
}

/** Full wire names: 'mc_blockNumber', 'ScsRPCMethod.GetNonce'. A Map, never a plain object. */
export type MethodTable = ReadonlyMap<string, RpcMethod>;

export interface CallContext {
  transport: 'http' | 'ipc';
}

/** A JSON-RPC id as it may legally appear on the wire. */
export type RpcId = string | number | null;

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}
