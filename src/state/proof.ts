// EIP-1186 account and storage proofs: the trie nodes on the path from a state root to an
// account, and from the account's storage root to each slot. Anyone holding the block's
// stateRoot can check them with a plain Merkle-Patricia walk.

import { RLP } from '@ethereumjs/rlp';
import { createMerkleProof } from '@ethereumjs/mpt';
import { KECCAK256_NULL } from '@ethereumjs/util';
import { EMPTY_TRIE_ROOT } from '../chain/block.js';
import { bigintToFixed, bytesToBigint } from '../encoding/bytes.js';
import type { WorldState } from './worldState.js';

export interface StorageProof {
  key: bigint;
  value: bigint;
  proof: Uint8Array[];
}

export interface AccountProof {
  address: Uint8Array;
  accountProof: Uint8Array[];
  balance: bigint;
  nonce: bigint;
  codeHash: Uint8Array;
  storageHash: Uint8Array;
  storageProof: StorageProof[];
}

export async function proveAccount(world: WorldState, stateRoot: Uint8Array, address: Uint8Array, slots: bigint[]): Promise<AccountProof> {
  const trie = await world.trieAt(stateRoot);
  const accountProof = await createMerkleProof(trie, address);
  const account = await world.getAccount(stateRoot, address);
  const storageHash = account?.storageRoot ?? EMPTY_TRIE_ROOT;
  const storageTrie = await world.trieAt(storageHash);
  const storageProof: StorageProof[] = [];
  for (const key of slots) {
    const slot = bigintToFixed(key, 32);
    const proof = await createMerkleProof(storageTrie, slot);
    const stored = await storageTrie.get(slot);
    const value = stored ? bytesToBigint(RLP.decode(stored) as Uint8Array) : 0n;
    storageProof.push({ key, value, proof });
  }
  return {
    address,
    accountProof,
    balance: account?.balance ?? 0n,
    nonce: account?.nonce ?? 0n,
    codeHash: account?.codeHash ?? KECCAK256_NULL,
    storageHash,
    storageProof,
  };
}
