// The app chain object (docs/scs.md#declaring-app-chains), as declared in the config's `appChains[]` or sent to
// scs_createAppChain: decoded once into typed values, each bad key named in the error.

import { RLP } from '@ethereumjs/rlp';
import { DecodeError } from '../errors.js';
import { bigintToBytes, bytesToBigint } from '../encoding/bytes.js';
import { decodeAddress, decodeQuantity } from '../encoding/hex.js';

export interface AppChainSpec {
  address: Uint8Array;
  owner: Uint8Array;
  /** app-chain base units credited to the DappBase when it is deployed */
  tokenSupply: bigint;
  /** app-chain base units per sha */
  exchangeRate: bigint;
  /** main-chain blocks between flushes */
  flushRound: number;
  blockReward: bigint;
  txReward: bigint;
  viaReward: bigint;
  bondLimit: bigint;
  scsList: Uint8Array[];
}

/** Values for the keys an object leaves out. */
export interface SpecDefaults {
  owner: Uint8Array;
  scsId: Uint8Array;
  /** called only when `address` is absent */
  deriveAddress: () => Uint8Array;
}

/** A bad key of an app chain object; the caller adds where the object came from. */
export class AppChainSpecError extends Error {
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(`${key}: ${reason}`);
  }
}

const KEYS = [
  'address', 'owner', 'tokenSupply', 'exchangeRate', 'flushRound', 'blockReward', 'txReward', 'viaReward', 'bondLimit', 'scsList',
] as const;

export const SPEC_DEFAULTS = {
  exchangeRate: 1n,
  flushRound: 40,
  blockReward: 0x1c6bf52634000n,
  txReward: 0x174876e800n,
  viaReward: 0x9184e72a000n,
  bondLimit: 0xde0b6b3a7640000n,
} as const;

// Keep flush arithmetic in safe integers.
const MAX_FLUSH_ROUND = 1_000_000_000;

export function decodeAppChainSpec(raw: unknown, defaults: SpecDefaults): AppChainSpec {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new AppChainSpecError('(object)', 'expected an object');
  const o = raw as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!(KEYS as readonly string[]).includes(key)) throw new AppChainSpecError(key, `unknown key (known: ${KEYS.join(', ')})`);
  }
  const present = (key: string) => o[key] !== undefined && o[key] !== null;
  const quantity = (key: string, fallback: bigint) => (present(key) ? field(key, () => decodeQuantity(o[key])) : fallback);
  const address = (key: string) => field(key, () => decodeAddress(o[key]));
  return {
    address: present('address') ? address('address') : defaults.deriveAddress(),
    owner: present('owner') ? address('owner') : defaults.owner,
    tokenSupply: quantity('tokenSupply', 0n),
    exchangeRate: present('exchangeRate') ? positiveInteger('exchangeRate', o.exchangeRate) : SPEC_DEFAULTS.exchangeRate,
    flushRound: present('flushRound') ? Number(positiveInteger('flushRound', o.flushRound, MAX_FLUSH_ROUND)) : SPEC_DEFAULTS.flushRound,
    blockReward: quantity('blockReward', SPEC_DEFAULTS.blockReward),
    txReward: quantity('txReward', SPEC_DEFAULTS.txReward),
    viaReward: quantity('viaReward', SPEC_DEFAULTS.viaReward),
    bondLimit: quantity('bondLimit', SPEC_DEFAULTS.bondLimit),
    scsList: present('scsList') ? addressList('scsList', o.scsList) : [defaults.scsId],
  };
}

function field<T>(key: string, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (err instanceof DecodeError) throw new AppChainSpecError(key, err.reason);
    throw err;
  }
}

/** A JSON integer ≥ 1 (a QUANTITY string is accepted too, for values beyond 2^53). */
function positiveInteger(key: string, value: unknown, max?: number): bigint {
  let n: bigint;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new AppChainSpecError(key, 'expected a positive JSON integer');
    n = BigInt(value);
  } else if (typeof value === 'string' && /^0x/i.test(value)) {
    n = field(key, () => decodeQuantity(value));
  } else {
    throw new AppChainSpecError(key, 'expected a positive JSON integer');
  }
  if (n < 1n) throw new AppChainSpecError(key, 'must be at least 1');
  if (max !== undefined && n > BigInt(max)) throw new AppChainSpecError(key, `must be at most ${max}`);
  return n;
}

function addressList(key: string, value: unknown): Uint8Array[] {
  if (!Array.isArray(value)) throw new AppChainSpecError(key, 'expected an array of addresses');
  return value.map((item, i) => field(`${key}[${i}]`, () => decodeAddress(item)));
}

// --- storage -----------------------------------------------------------------------------

export function encodeSpec(s: AppChainSpec): Uint8Array[] {
  return [
    s.address, s.owner, bigintToBytes(s.tokenSupply), bigintToBytes(s.exchangeRate), bigintToBytes(BigInt(s.flushRound)),
    bigintToBytes(s.blockReward), bigintToBytes(s.txReward), bigintToBytes(s.viaReward), bigintToBytes(s.bondLimit),
    RLP.encode(s.scsList),
  ];
}

export function decodeSpec(f: Uint8Array[]): AppChainSpec {
  return {
    address: f[0],
    owner: f[1],
    tokenSupply: bytesToBigint(f[2]),
    exchangeRate: bytesToBigint(f[3]),
    flushRound: Number(bytesToBigint(f[4])),
    blockReward: bytesToBigint(f[5]),
    txReward: bytesToBigint(f[6]),
    viaReward: bytesToBigint(f[7]),
    bondLimit: bytesToBigint(f[8]),
    scsList: RLP.decode(f[9]) as Uint8Array[],
  };
}
