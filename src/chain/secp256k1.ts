// The native secp256k1 binding (signing, recovery), loaded on first use: finding the addon and
// building its context costs ~13 ms, which a node's start does not need (addresses of known keys
// come from node:crypto, accounts/keys.ts). The node loads it in the background after start.

import { createRequire } from 'node:module';

type Secp256k1 = typeof import('secp256k1');

/** The order of the curve's group: private keys and signature values r are 1 … n-1. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

let library: Secp256k1 | undefined;

export function secp256k1(): Secp256k1 {
  return (library ??= createRequire(import.meta.url)('secp256k1') as Secp256k1);
}
