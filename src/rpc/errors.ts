// The one place where failures become JSON-RPC error objects. Domain code throws NodeError with
// a kind; KIND_TO_ERROR has one entry per kind, so adding a kind without a code fails to compile.

import { DecodeError, ErrorKind, NodeError, SimulationError } from '../errors.js';
import { bytesToHex } from '../encoding/hex.js';
import { ChainFileError } from '../chainFile/chainFileError.js';
import { AbiError } from '../scs/abi.js';
import { AppChainSpecError } from '../scs/appChainSpec.js';
import { ParamError } from './params.js';
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
  /** EIP-7966: eth_sendRawTransactionSync's receipt did not come in time */
  Timeout: 4,
} as const;

const REVERTED = 'execution reverted';

const KIND_TO_ERROR: { readonly [K in ErrorKind]: (err: NodeError, debug: boolean) => RpcErrorObject } = {
  [ErrorKind.InvalidParams]: (e) => withData(RpcCode.InvalidParams, e.message, e.data),
  [ErrorKind.Refused]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.TxRejected]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.NotFound]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.ExecutionFailed]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.InvalidTransaction]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.InvalidSignature]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.KeyFile]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.InvalidEnode]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.InvalidRange]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.AlreadyExists]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.WrongState]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.OutOfRange]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.Unsupported]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.Aborted]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.Unauthorized]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.LimitExceeded]: (e) => withData(RpcCode.LimitExceeded, e.message, e.data),
  [ErrorKind.Reverted]: (e) => withData(RpcCode.Reverted, revertMessage(e.message), revertData(e.data)),
  [ErrorKind.ForkUnavailable]: (e) => withData(RpcCode.Server, e.message, e.data),
  [ErrorKind.Timeout]: (e) => withData(RpcCode.Timeout, e.message, revertData(e.data)),
  [ErrorKind.Unavailable]: (e) => withData(RpcCode.MethodNotFound, e.message, e.data),
  [ErrorKind.SimulationRejected]: (e) => withData(e instanceof SimulationError ? e.code : RpcCode.Server, e.message, e.data),
  [ErrorKind.Internal]: (e, debug) => withData(RpcCode.Internal, e.message || 'internal error', debug ? e.stack : undefined),
};

/** Maps anything a handler threw (or rejected with) to an error object; never throws. */
export function toRpcError(err: unknown, debug: boolean): RpcErrorObject {
  if (err instanceof NodeError) {
    const map = KIND_TO_ERROR[err.kind];
    // A kind that is not in the table can only come from a cast; treat it as a bug.
    if (map !== undefined) return map(err, debug);
  }
  const foreign = fromDomainClass(err);
  if (foreign !== undefined) return foreign;
  const stack = debug ? stackOf(err) : undefined;
  return withData(RpcCode.Internal, 'internal error', stack);
}

// Errors of modules that also serve the CLI (which prints them as they stand) and so are not
// NodeErrors. Each reaches RPC through exactly one parameter, named here.
function fromDomainClass(err: unknown): RpcErrorObject | undefined {
  // A decode error that no codec attributed to an argument (rpc/params.ts decodeArg does that).
  if (err instanceof DecodeError) return { code: RpcCode.InvalidParams, message: err.reason };
  // admin_exportChain / admin_importChain: the message names the refused file or block.
  if (err instanceof ChainFileError) return { code: RpcCode.Server, message: err.message };
  // scs_createAppChain's one argument, the app chain object.
  if (err instanceof AppChainSpecError) return { code: RpcCode.InvalidParams, message: new ParamError(0, `field "${err.key}": ${err.reason}`).message };
  // ScsRPCMethod.AnyCall's member Params, the only values encoded by the ABI codec.
  if (err instanceof AbiError) return { code: RpcCode.InvalidParams, message: new ParamError('Params', err.message).message };
  return undefined;
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
