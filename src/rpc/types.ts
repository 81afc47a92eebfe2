// Wire-level types shared by the dispatcher, the transports and the method modules.

import type { RpcConnection } from './connection.js';

/** Positional (`mc_*`, `libx_*`, …) or named (`ScsRPCMethod.*`) parameters; a missing member is `[]`. */
export type RpcParams = unknown[] | Record<string, unknown>;

/** One served method. The handler returns a JSON-ready value (hex strings, not bigints). */
export interface RpcMethod {
  /** `ctx` is the caller's transport and connection; `sent` the method name as the client wrote it (`eth_…`). */
  handler: (params: RpcParams, ctx?: CallContext, sent?: string) => unknown | Promise<unknown>;
}

/** Full wire names: 'mc_blockNumber', 'ScsRPCMethod.GetNonce'. A Map, never a plain object. */
export type MethodTable = ReadonlyMap<string, RpcMethod>;

export interface CallContext {
  transport: 'http' | 'ipc' | 'ws';
  /** the long-lived connection (WebSocket, IPC) that can carry notifications; absent over HTTP */
  connection?: RpcConnection;
  /** run once the reply to this message has been handed to the transport (WebSocket) */
  afterReply?: (() => void)[];
}

/** A JSON-RPC id as it may legally appear on the wire. */
export type RpcId = string | number | null;

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}
