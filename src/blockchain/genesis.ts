// Builds the genesis block and its state from the genesis spec (config `genesis` section or an
// `init` file in the real node's format) plus the funded dev accounts.

import { Account, Address } from '@ethereumjs/util';
import type { Block, Header } from '../chain/types.js';
import { EMPTY_TRIE_ROOT, EMPTY_UNCLES_HASH, blockFromParts } from '../chain/block.js';
import { bigintToFixed } from '../encoding/bytes.js';
import { hexToBytes } from '../encoding/hex.js';
import type { BatchOp } from '../store/database.js';
import type { WorldState } from '../state/worldState.js';
import type { GenesisAlloc, GenesisSpec } from './genesisSpec.js';

export type { GenesisAlloc, GenesisSpec };

export async function buildGenesis(
  spec: GenesisSpec,
  world: WorldState,
): Promise<{ block: Block; stateOps: BatchOp[] }> {
  const sm = await world.stateManagerAt(EMPTY_TRIE_ROOT);
  for (const [hex, alloc] of spec.alloc) {
    const address = new Address(hexToBytes(hex));
    // The library trie writes genesis: its keys are recorded here for state dumps.
    world.nodes.recordPreimage(address.bytes);
    await sm.putAccount(address, new Account(alloc.nonce ?? 0n, alloc.balance));
    if (alloc.code && alloc.code.length) await sm.putCode(address, alloc.code);
    for (const [slot, value] of alloc.storage ?? []) {
      if (value === 0n) continue;
      world.nodes.recordPreimage(bigintToFixed(slot, 32));
      await sm.putStorage(address, bigintToFixed(slot, 32), bigintToFixed(value, 32));
    }
  }
  const stateRoot = await sm.getStateRoot();
  const header: Header = {
    parentHash: new Uint8Array(32),
    sha3Uncles: EMPTY_UNCLES_HASH,
    miner: spec.coinbase,
    stateRoot,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: spec.difficulty,
    number: 0n,
    gasLimit: spec.gasLimit,
    gasUsed: 0n,
    timestamp: spec.timestamp,
    extraData: spec.extraData,
    mixHash: spec.mixHash,
    nonce: bigintToFixed(spec.nonce, 8),
  };
  return { block: blockFromParts(header, []), stateOps: world.nodes.drainWrites() };
}

