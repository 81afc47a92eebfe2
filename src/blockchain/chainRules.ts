// Rules a chain fixes at genesis and keeps for life: whether dev-control system transactions are
// valid, the proof of work, and the first block taking classic transactions. They are stored
// beside the genesis block, so a datadir keeps its chain's rules whatever config a later start or
// `import` is given (docs/chain-rules.md#rules-kept-by-the-data-directory).

import type { PowName } from '../consensus/powNames.js';
import { POW_NAMES } from '../consensus/powNames.js';
import { bigintToBytes, bytesToBigint } from '../encoding/bytes.js';
import type { ChainRules } from '../execution/systemTxs.js';
import type { BatchOp, Database } from '../store/database.js';
import { keys } from '../store/schema.js';

/** The rules a datadir stores: the execution rules plus the seal and transaction-format rules. */
export interface DatadirRules extends ChainRules {
  pow: PowName;
  /** first block taking classic transactions; undefined = never */
  classicTxBlock?: bigint;
}

/** The writes that record `rules` (with a new chain's genesis, or once for a datadir made before they were stored). */
export function chainRulesOps(rules: DatadirRules): BatchOp[] {
  return [
    { type: 'put', key: keys.devControls, value: Uint8Array.of(rules.devControls ? 1 : 0) },
    { type: 'put', key: keys.chainPow, value: new TextEncoder().encode(rules.pow) },
    // [0] never; [1, ...n] from block n
    {
      type: 'put',
      key: keys.classicTxBlock,
      value: rules.classicTxBlock === undefined ? Uint8Array.of(0) : Uint8Array.of(1, ...bigintToBytes(rules.classicTxBlock)),
    },
  ];
}

/** One rule where the stored value and the config's differ (the stored one applies). */
export interface RuleMismatch {
  rule: 'devControls' | 'pow' | 'classicTxBlock';
  stored: string;
  config: string;
}

export interface StoredRules {
  rules: DatadirRules;
  /** rules the datadir did not have yet (made by an older version): taken from `fallback`, to be written */
  missing: BatchOp[];
  mismatches: RuleMismatch[];
}

/** The stored rules; any a datadir does not have yet take `fallback` (the config's) and come back in `missing`. */
export async function readChainRules(db: Database, fallback: DatadirRules): Promise<StoredRules> {
  const [devByte, powBytes, classicBytes] = await Promise.all([db.get(keys.devControls), db.get(keys.chainPow), db.get(keys.classicTxBlock)]);
  const stored: Partial<DatadirRules> = {};
  if (devByte) stored.devControls = devByte[0] === 1;
  if (powBytes) stored.pow = decodePow(powBytes);
  if (classicBytes) stored.classicTxBlock = classicBytes[0] === 1 ? bytesToBigint(classicBytes.subarray(1)) : undefined;
  const rules: DatadirRules = {
    devControls: 'devControls' in stored ? stored.devControls! : fallback.devControls,
    pow: stored.pow ?? fallback.pow,
    classicTxBlock: classicBytes ? stored.classicTxBlock : fallback.classicTxBlock,
  };
  const fresh = chainRulesOps(rules);
  const missing = [devByte, powBytes, classicBytes].flatMap((had, i) => (had ? [] : [fresh[i]]));
  const mismatches: RuleMismatch[] = [];
  const describe = (v: unknown) => (v === undefined ? 'never' : String(v));
  if (devByte && rules.devControls !== fallback.devControls) mismatches.push({ rule: 'devControls', stored: describe(rules.devControls), config: describe(fallback.devControls) });
  if (powBytes && rules.pow !== fallback.pow) mismatches.push({ rule: 'pow', stored: rules.pow, config: fallback.pow });
  if (classicBytes && rules.classicTxBlock !== fallback.classicTxBlock) {
    mismatches.push({ rule: 'classicTxBlock', stored: describe(rules.classicTxBlock), config: describe(fallback.classicTxBlock) });
  }
  return { rules, missing, mismatches };
}

function decodePow(bytes: Uint8Array): PowName {
  const name = new TextDecoder().decode(bytes);
  if (!(POW_NAMES as readonly string[]).includes(name)) throw new Error(`the datadir records an unknown proof of work "${name}"`);
  return name as PowName;
}
