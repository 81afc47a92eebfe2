// Rules a chain fixes at genesis and keeps for life (today: whether dev-control system
// transactions are valid). They are stored beside the genesis block, so a datadir keeps its
// chain's rules whatever config a later start or `import` is given.

import type { ChainRules } from '../execution/systemTxs.js';
import type { BatchOp, Database } from '../store/database.js';
import { keys } from '../store/schema.js';

/** The write that records `rules` with a new chain's genesis. */
export function chainRulesOps(rules: ChainRules): BatchOp[] {
  return [{ type: 'put', key: keys.devControls, value: Uint8Array.of(rules.devControls ? 1 : 0) }];
}

/** The stored rules; a datadir written before they were stored takes `fallback` (the config's genesis). */
export async function readChainRules(db: Database, fallback: ChainRules): Promise<ChainRules> {
  const stored = await db.get(keys.devControls);
  return stored ? { devControls: stored[0] === 1 } : fallback;
}
