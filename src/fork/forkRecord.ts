// What a fork datadir records about itself (store key `m:fork`): its upstream and the block it
// forked, the chain ids it took, the difficulty of its local blocks and where its cache is. A
// restart reads it instead of asking the upstream; `export` writes the same facts in the file.

import { RLP } from '@ethereumjs/rlp';
import { bigintToBytes, bytesToBigint } from '../encoding/bytes.js';
import type { Dialect } from './upstream.js';

export interface ForkRecord {
  /** the upstream, or undefined for a fork imported from a file (`--fork.url` gives it one) */
  url: string | undefined;
  /** undefined until the upstream was asked */
  dialect: Dialect | undefined;
  /** the fork block */
  number: bigint;
  hash: Uint8Array;
  /** the upstream's state root at the fork block (its header's) */
  stateRoot: Uint8Array;
  chainId: bigint;
  networkId: bigint;
  /** every local block's difficulty (the fixed rule of the fork's proof of work) */
  difficulty: bigint;
  /** the fork cache directory */
  cacheDir: string;
}

const VERSION = 1n;
const text = (s: string | undefined) => new TextEncoder().encode(s ?? '');
const str = (b: Uint8Array) => new TextDecoder().decode(b);

export function encodeForkRecord(r: ForkRecord): Uint8Array {
  return RLP.encode([
    bigintToBytes(VERSION), text(r.url), text(r.dialect), bigintToBytes(r.number), r.hash, r.stateRoot,
    bigintToBytes(r.chainId), bigintToBytes(r.networkId), bigintToBytes(r.difficulty), text(r.cacheDir),
  ]);
}

export function decodeForkRecord(bytes: Uint8Array): ForkRecord {
  const f = RLP.decode(bytes) as Uint8Array[];
  if (bytesToBigint(f[0]) !== VERSION) throw new Error(`the datadir's fork record has version ${bytesToBigint(f[0])}; this mcnode reads ${VERSION}`);
  const dialect = str(f[2]);
  return {
    url: f[1].length ? str(f[1]) : undefined,
    dialect: dialect === 'mc' || dialect === 'eth' ? dialect : undefined,
    number: bytesToBigint(f[3]),
    hash: f[4],
    stateRoot: f[5],
    chainId: bytesToBigint(f[6]),
    networkId: bytesToBigint(f[7]),
    difficulty: bytesToBigint(f[8]),
    cacheDir: str(f[9]),
  };
}
