// Every account of a state, with its code and storage, for anvil_dumpState and --dump-state. The
// trie keys are hashes (keccak of the address, of the slot); the node records their preimages
// as it writes state (trieNodeStore.ts), and the dump names accounts and slots through them.
// State written before preimages were kept has keys without one: those are counted, not named.

import { RLP } from '@ethereumjs/rlp';
import { Address } from '@ethereumjs/util';
import { bytesToBigint } from '../encoding/bytes.js';
import { hexToBytes } from '../encoding/hex.js';
import type { Database } from '../store/database.js';
import { keys } from '../store/schema.js';
import type { WorldState } from './worldState.js';

export interface DumpedAccount {
  address: Uint8Array;
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  /** [slot, value], non-zero values only, by slot */
  storage: [bigint, bigint][];
}

export interface StateDump {
  accounts: DumpedAccount[];
  /** accounts and slots whose preimage the datadir does not hold (state from before it kept them) */
  unnamed: number;
}

export async function dumpState(world: WorldState, db: Database, root: Uint8Array): Promise<StateDump> {
  const trie = await world.trieAt(root);
  const sm = await world.stateManagerAt(root);
  const { values } = await trie.getValueMap();
  const accounts: DumpedAccount[] = [];
  let unnamed = 0;
  for (const keyHash of Object.keys(values)) {
    const preimage = await db.get(keys.preimage(hexToBytes(keyHash)));
    if (!preimage) {
      unnamed++;
      continue;
    }
    const address = new Address(preimage);
    const account = await sm.getAccount(address);
    if (!account) continue;
    const storage: [bigint, bigint][] = [];
    for (const [slotHash, encoded] of Object.entries(await sm.dumpStorage(address))) {
      const slot = await db.get(keys.preimage(hexToBytes(slotHash)));
      if (!slot) {
        unnamed++;
        continue;
      }
      storage.push([bytesToBigint(slot), bytesToBigint(RLP.decode(hexToBytes(encoded)) as Uint8Array)]);
    }
    storage.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    accounts.push({ address: preimage, nonce: account.nonce, balance: account.balance, code: await sm.getCode(address), storage });
  }
  accounts.sort((a, b) => Buffer.compare(a.address, b.address));
  return { accounts, unnamed };
}
