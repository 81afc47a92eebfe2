// Param codecs: each decodes one wire value into a typed value or throws invalid-params naming
// the argument. `method(codecs, handler)` turns a handler over typed values into an RpcMethod.
// This is the only place that writes "invalid argument N": decoders below rpc/ give the reason.

import { DecodeError, ErrorKind, NodeError, invalidParams } from '../errors.js';
import {
  decodeAddress, decodeBlockTag, decodeData, decodeHash, decodeQuantity, decodeStorageSlot, decodeUint64, type BlockTag,
} from '../encoding/hex.js';
import type { RpcMethod, RpcParams } from './types.js';

export type Codec<T> = (value: unknown, index: number) => T;

/** Invalid params naming the argument (an index, or a member name in the named-params variant). */
export class ParamError extends NodeError {
  constructor(
    readonly argument: number | string,
    readonly reason: string,
  ) {
    super(ErrorKind.InvalidParams, `invalid argument ${argument}: ${reason}`);
  }
}

/** Runs a decoder for `argument`: its DecodeError becomes a ParamError naming that argument. */
export function decodeArg<T>(argument: number | string, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (err instanceof DecodeError) throw new ParamError(argument, err.reason);
    throw err;
  }
}
type Decoded<C extends readonly Codec<unknown>[]> = { [K in keyof C]: C[K] extends Codec<infer T> ? T : never };

const OPTIONAL = Symbol('optional');
type OptionalCodec<T> = Codec<T> & { [OPTIONAL]: true };

export const address: Codec<Uint8Array> = (v, i) => decodeArg(i, () => decodeAddress(v));
export const hash: Codec<Uint8Array> = (v, i) => decodeArg(i, () => decodeHash(v));
export const data: Codec<Uint8Array> = (v, i) => decodeArg(i, () => decodeData(v));
export const quantity: Codec<bigint> = (v, i) => decodeArg(i, () => decodeQuantity(v));
/** A storage position: hex of up to 32 bytes, leading zeros allowed (not a QUANTITY). */
export const storageSlot: Codec<Uint8Array> = (v, i) => decodeArg(i, () => decodeStorageSlot(v));
export const uint64: Codec<bigint> = (v, i) => decodeArg(i, () => decodeUint64(v));
export const blockTag: Codec<BlockTag> = (v, i) => decodeArg(i, () => decodeBlockTag(v));
export const string: Codec<string> = (v, i) => {
  if (typeof v !== 'string') throw new ParamError(i, 'expected a string');
  return v;
};
export const boolean: Codec<boolean> = (v, i) => {
  if (typeof v !== 'boolean') throw new ParamError(i, 'expected a boolean');
  return v;
};
/**
 * The one integer-or-quantity codec: an unsigned safe JSON number or a 64-bit QUANTITY string
 * (nonces, indexes, counts, durations; chain3 and the SCS tools pass either).
 */
export function integer(v: unknown, argument: number | string): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string') return decodeArg(argument, () => decodeUint64(v));
  throw new ParamError(argument, 'expected a non-negative integer');
}
/** `integer` as a JS number. */
export const count: Codec<number> = (v, i) => Number(integer(v, i));

/** Absent or null → undefined. */
export function optional<T>(codec: Codec<T>): OptionalCodec<T | undefined> {
  const wrapped = ((v: unknown, i: number) => (v === undefined || v === null ? undefined : codec(v, i))) as OptionalCodec<T | undefined>;
  wrapped[OPTIONAL] = true;
  return wrapped;
}

/** Absent or null → `fallback`. */
export function withDefault<T>(codec: Codec<T>, fallback: T): OptionalCodec<T> {
  const wrapped = ((v: unknown, i: number) => (v === undefined || v === null ? fallback : codec(v, i))) as OptionalCodec<T>;
  wrapped[OPTIONAL] = true;
  return wrapped;
}

export function decodePositional<const C extends readonly Codec<unknown>[]>(params: RpcParams, codecs: C): Decoded<C> {
  if (!Array.isArray(params)) throw invalidParams('invalid params: expected an array of positional arguments');
  if (params.length > codecs.length) {
    throw invalidParams(`too many arguments, want at most ${codecs.length}`);
  }
  return codecs.map((codec, i) => {
    const value = params[i];
    if (value === undefined && !(OPTIONAL in codec)) throw invalidParams(`missing value for required argument ${i}`);
    return codec(value, i);
  }) as Decoded<C>;
}

export function method<const C extends readonly Codec<unknown>[]>(
  codecs: C,
  handler: (...args: Decoded<C>) => unknown,
): RpcMethod {
  return { handler: (params) => handler(...decodePositional(params, codecs)) };
}

/** Decodes one object member; `where` names it in the error (`invalid argument 0: from: …`). */
export function member<T>(obj: Record<string, unknown>, key: string, codec: Codec<T>, argIndex: number): T | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  try {
    return codec(value, argIndex);
  } catch (err) {
    if (err instanceof ParamError) throw new ParamError(argIndex, `field "${key}": ${err.reason}`);
    throw err;
  }
}

export function objectParam(v: unknown, i: number): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ParamError(i, 'expected an object');
  return v as Record<string, unknown>;
}

/** A block by tag or by hash (geth's BlockNumberOrHash): a tag, a 32-byte hash, or `{blockHash}` / `{blockNumber}`. */
export type BlockRef = { tag: BlockTag } | { hash: Uint8Array };

export const blockRef: Codec<BlockRef> = (v, i) => {
  if (typeof v === 'string' && v.length === 66) return { hash: hash(v, i) };
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (o.blockHash !== undefined) return { hash: hash(o.blockHash, i) };
    if (o.blockNumber !== undefined) return { tag: blockTag(o.blockNumber, i) };
    throw new ParamError(i, 'expected a block tag, a block hash, or {blockHash} / {blockNumber}');
  }
  return { tag: blockTag(v, i) };
};
