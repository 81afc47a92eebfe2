// The one place where failures become JSON-RPC error objects. Domain code throws NodeError with
// a kind; KIND_TO_ERROR has one entry per kind, so adding a kind without a code fails to compile.

import { ErrorKind, NodeError } from '../errors.js';
import { bytesToHex } from '../encoding/hex.js';
import type { RpcErrorObject } from './types.js';

/** Codes used by the envelope layer itself (JSON-RPC 2.0 plus geth's extensions). */
export const RpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  Internal: -32603,
  Server: -32000,
  ResponseTooLarge: -32003,
  LimitExceeded: -32005,
  Reverted: 3,
} as const;

const REVERTED = 'execution reverted';

const KIND_TO_ERROR: { readonly [K in ErrorKind]: (err: NodeError, debug: boolean) => RpcErrorObject } = {
  [ErrorKind.InvalidParams]: (e) => withData(RpcCode.InvalidParams, e.message, e.data),
  [ErrorKind.Refused]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.TxRejected]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.NotFound]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.ExecutionFailed]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.Unauthorized]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.LimitExceeded]: (e) => withData(RpcCode.LimitExceeded, e.message, e.data),
  [ErrorKind.Reverted]: (e) => withData(RpcCode.Reverted, revertMessage(e.message), revertData(e.data)),
  [ErrorKind.Unavailable]: (e) => withData(RpcCode.MethodNotFound, e.message, e.data),
  [ErrorKind.Internal]: (e, debug) => withData(RpcCode.Internal, e.message || 'internal error', debug ? e.stack : undefined),
};

/** Maps anything a handler threw (or rejected with) to an error object; never throws. */
export function toRpcError(err: unknown, debug: boolean): RpcErrorObject {
  if (err instanceof NodeError) {
    const map = KIND_TO_ERROR[err.kind];
    // A kind that is not in the table can only come from a cast; treat it as a bug.
    if (map !== undefined) return map(err, debug);
  }
  const stack = debug ? stackOf(err) : undefined;
  return withData(RpcCode.Internal, 'internal error', stack);
}

export const methodNotFound = (name: string): RpcErrorObject => ({
  code: RpcCode.MethodNotFound,
  message: `the method ${name} does not exist/is not available`,
});

function withData(code: number, message: string, data: unknown): RpcErrorObject {
  return data === undefined ? { code, message } : { code, message, data };
}

// Domain code may say just the reason, or the full geth text; the wire always says geth's text.
function revertMessage(message: string): string {
  if (message === '' || message === REVERTED) return REVERTED;
  if (message.startsWith(REVERTED + ': ')) return message;
  return `${REVERTED}: ${message}`;
}

function revertData(data: unknown): unknown {
  return data instanceof Uint8Array ? bytesToHex(data) : data;
}

function stackOf(err: unknown): string {
  if (err instanceof Error && typeof err.stack === 'string') return err.stack;
  try {
    return String(err);
  } catch {
    return 'unprintable thrown value';
  }
}
