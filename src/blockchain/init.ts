// `mcnode init <genesis.json>`: writes the genesis block of a real-node genesis file into a
// fresh data directory. A datadir that already holds a chain is left untouched.

import path from 'node:path';
import { Mainnet, createCustomCommon } from '@ethereumjs/common';
import { ConfigError } from '../errors.js';
import { keccak256 } from '../encoding/bytes.js';
import { Database } from '../store/database.js';
import { TrieNodeStore } from '../state/trieNodeStore.js';
import { WorldState } from '../state/worldState.js';
import { Blockchain } from './blockchain.js';
import { buildGenesis, type GenesisSpec } from './genesis.js';
import { chainRulesOps, type DatadirRules } from './chainRules.js';
import type { Block } from '../chain/types.js';

/** `rules` (proof of work, classic transactions; dev controls come from the spec, default off) are stored with the genesis. */
export async function initChain(
  datadir: string,
  spec: GenesisSpec,
  chainId: bigint,
  hardfork: string,
  rules: Omit<DatadirRules, 'devControls'>,
): Promise<Block> {
  const db = await Database.open(path.join(datadir, 'chaindata'));
  try {
    const existing = await Blockchain.open(db);
    if (existing) {
      throw new ConfigError(`${datadir} already holds a chain (head #${existing.head.header.number}); init needs a fresh --datadir`);
    }
    const common = createCustomCommon({ chainId: Number(chainId), name: 'mcnode' }, Mainnet, {
      hardfork,
      customCrypto: { keccak256 },
    });
    const world = new WorldState(new TrieNodeStore(db), common);
    const { block, stateOps } = await buildGenesis(spec, world);
    await Blockchain.create(db, block, [...stateOps, ...chainRulesOps({ ...rules, devControls: spec.devControls ?? false })]);
    return block;
  } finally {
    await db.close();
  }
}
