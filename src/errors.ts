// Domain errors. Code below `rpc/` throws these; `rpc/errors.ts` maps each kind to a JSON-RPC
// code in one table, so a new kind without a code fails to compile.

export const ErrorKind = {
  /** A parameter could not be decoded (wrong type, bad hex, wrong length). */
  InvalidParams: 'invalidParams',
  /** The node refuses the request for a reason no specific kind covers (an OS failure it passes on). */
  Refused: 'refused',
  /** The pool (main or app chain) refused a transaction: known, nonce, price, funds, gas, size, full. */
  TxRejected: 'txRejected',
  /** What the request names does not exist here: a filter, a block, an app chain. */
  NotFound: 'notFound',
  /** A call or estimate could not run to the end (out of gas at the cap, an EVM error), or its output does not decode. */
  ExecutionFailed: 'executionFailed',
  /** A transaction no pool state could make acceptable: type, chain id, signature, syscnt, sharding flag, missing fields. */
  InvalidTransaction: 'invalidTransaction',
  /** A signed message's signature does not recover a sender. */
  InvalidSignature: 'invalidSignature',
  /** A key file cannot be used: unknown format, unsafe or broken scrypt parameters, a key that does not match its address. */
  KeyFile: 'keyFile',
  /** An enode URL that does not parse (admin_addPeer, static nodes). */
  InvalidEnode: 'invalidEnode',
  /** A block range whose start lies after its end (filters, logs). */
  InvalidRange: 'invalidRange',
  /** What the request would create exists already: an account, an app chain, a running endpoint. */
  AlreadyExists: 'alreadyExists',
  /** The request does not fit the node's current state: an endpoint not running, a block off the canonical chain. */
  WrongState: 'wrongState',
  /** A value the node cannot honour: an unlock duration or a timestamp beyond what blocks and keys allow. */
  OutOfRange: 'outOfRange',
  /** The node does not serve this request in this form: the pending block for a proof, genesis for a trace. */
  Unsupported: 'unsupported',
  /** Work stopped before its end: a trace over its time or size limit, sealing interrupted by a moving head. */
  Aborted: 'aborted',
  /** A signing account is locked or the password is wrong. */
  Unauthorized: 'unauthorized',
  /** A configured limit was exceeded (filters, log ranges, batch sizes). */
  LimitExceeded: 'limitExceeded',
  /** The EVM reverted a call; `data` carries the revert bytes as hex. */
  Reverted: 'reverted',
  /** A fork needs data from its upstream, which did not answer (after the retries). */
  ForkUnavailable: 'forkUnavailable',
  /** The method exists but is not served in this configuration. */
  Unavailable: 'unavailable',
  /** A wait the caller bounded ran out (eth_sendRawTransactionSync); `data` says what is still under way. */
  Timeout: 'timeout',
  /** eth_simulateV1 refused a block or a call: geth's -380xx code is the error's `code` (SimulationError). */
  SimulationRejected: 'simulationRejected',
  /** A bug or an unexpected failure inside the node. */
  Internal: 'internal',
} as const;
export type ErrorKind = (typeof ErrorKind)[keyof typeof ErrorKind];

export class NodeError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'NodeError';
  }
}

/** An eth_simulateV1 failure with geth's code (nonce -38010/-38011, intrinsic gas -38013, funds -38014, block gas -38015, block number -38020, timestamp -38021, too many blocks -38026). */
export class SimulationError extends NodeError {
  constructor(readonly code: number, message: string) {
    super(ErrorKind.SimulationRejected, message);
  }
}

export const invalidParams = (message: string): NodeError => new NodeError(ErrorKind.InvalidParams, message);
export const refused = (message: string, data?: unknown): NodeError => new NodeError(ErrorKind.Refused, message, data);
export const txRejected = (message: string): NodeError => new NodeError(ErrorKind.TxRejected, message);
export const notFound = (message: string): NodeError => new NodeError(ErrorKind.NotFound, message);
export const executionFailed = (message: string): NodeError => new NodeError(ErrorKind.ExecutionFailed, message);
export const invalidTransaction = (message: string): NodeError => new NodeError(ErrorKind.InvalidTransaction, message);
export const invalidSignature = (message: string): NodeError => new NodeError(ErrorKind.InvalidSignature, message);
export const keyFileError = (message: string): NodeError => new NodeError(ErrorKind.KeyFile, message);
export const invalidEnode = (reason: string): NodeError => new NodeError(ErrorKind.InvalidEnode, `invalid enode: ${reason}`);
export const invalidRange = (): NodeError => new NodeError(ErrorKind.InvalidRange, 'invalid block range: fromBlock > toBlock');
export const alreadyExists = (message: string): NodeError => new NodeError(ErrorKind.AlreadyExists, message);
export const wrongState = (message: string): NodeError => new NodeError(ErrorKind.WrongState, message);
export const outOfRange = (message: string): NodeError => new NodeError(ErrorKind.OutOfRange, message);
export const unsupported = (message: string): NodeError => new NodeError(ErrorKind.Unsupported, message);
export const aborted = (message: string): NodeError => new NodeError(ErrorKind.Aborted, message);
export const timedOut = (message: string, data?: unknown): NodeError => new NodeError(ErrorKind.Timeout, message, data);
export const limitExceeded = (what: string): NodeError => new NodeError(ErrorKind.LimitExceeded, `limit exceeded: ${what}`);

/**
 * A value could not be decoded (bad hex, wrong length, malformed RLP). `reason` says what is wrong
 * and nothing about where the value came from: the caller adds that (rpc/params.ts names the
 * argument, a config loader the key).
 */
export class DecodeError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'DecodeError';
  }
}

/** Startup and configuration failures: the CLI prints the message and exits non-zero. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
