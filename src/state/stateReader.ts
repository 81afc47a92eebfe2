// One read interface over a block's state, whether stored (a state root) or the pending block's
// in-memory state, so callers read balances, code and storage without knowing which it is.

import { Address } from '@ethereumjs/util';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { Header } from '../chain/types.js';
import type { WorldState } from './worldState.js';

export interface AccountState {
  nonce: bigint;
  balance: bigint;
  /** the roots eth_getAccount reports */
  storageRoot: Uint8Array;
  codeHash: Uint8Array;
}

export interface StateReader {
  /** the header whose state this is (calls and estimates run on it) */
  readonly header: Header;
  /** the pending block's state manager, for calls on it; undefined for a stored state */
  readonly pendingState?: MerkleStateManager;
  /** undefined for an account that does not exist */
  getAccount(address: Uint8Array): Promise<AccountState | undefined>;
  getCode(address: Uint8Array): Promise<Uint8Array>;
  /** the 32-byte word at `slot` (zero when unset or the account does not exist) */
  getStorage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array>;
}

/** The state at a stored block's root. */
export function storedStateReader(world: WorldState, header: Header): StateReader {
  const root = header.stateRoot;
  return {
    header,
    getAccount: (address) => world.getAccount(root, address),
    getCode: (address) => world.getCode(root, address),
    getStorage: (address, slot) => world.getStorage(root, address, slot),
  };
}

/** The pending block's state (its state manager holds the pool's executed transactions). */
export function pendingStateReader(header: Header, state: MerkleStateManager): StateReader {
  return {
    header,
    pendingState: state,
    getAccount: (address) => state.getAccount(new Address(address)),
    getCode: (address) => state.getCode(new Address(address)),
    async getStorage(address, slot) {
      const addr = new Address(address);
      const word = new Uint8Array(32);
      if ((await state.getAccount(addr)) === undefined) return word;
      const value = await state.getStorage(addr, slot);
      word.set(value, 32 - value.length);
      return word;
    },
  };
}
