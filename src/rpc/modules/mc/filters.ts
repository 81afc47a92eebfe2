// mc_* filter and log methods (docs/methods.md#filters-and-logs): decode the filter options, call
// the FilterSystem, format log objects and hashes.

import { DecodeError } from '../../../errors.js';
import { bytesToHex, decodeAddress, decodeHash, decodeQuantity, encodeQuantity } from '../../../encoding/hex.js';
import type { FilterChanges, FilterSystem } from '../../../filters/filterSystem.js';
import type { LogCriteria, LogEntry, LogQuery } from '../../../filters/logQuery.js';
import { ParamError, blockTag, hash, member, method, objectParam, type Codec } from '../../params.js';
import { formatLog } from '../../format.js';
import type { RpcMethod } from '../../types.js';

const fieldError = (i: number, key: string, reason: string) => new ParamError(i, `field "${key}": ${reason}`);
const reasonOf = (err: unknown): string => {
  if (err instanceof DecodeError) return err.reason;
  throw err;
};

/** `address`: one DATA 20 or an array of them. */
function decodeAddresses(value: unknown, i: number): Uint8Array[] {
  if (value === undefined || value === null) return [];
  try {
    return Array.isArray(value) ? value.map((a) => decodeAddress(a)) : [decodeAddress(value)];
  } catch (err) {
    throw fieldError(i, 'address', reasonOf(err));
  }
}

/** `topics`: each position null (anything), a DATA 32, or an OR-array of DATA 32 (a null inside means anything, as geth). */
function decodeTopics(value: unknown, i: number): (Uint8Array[] | null)[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw fieldError(i, 'topics', 'expected an array');
  try {
    return value.map((position) => {
      if (position === null) return null;
      if (!Array.isArray(position)) return [decodeHash(position)];
      if (position.includes(null)) return null;
      return position.map((t) => decodeHash(t));
    });
  } catch (err) {
    throw fieldError(i, 'topics', reasonOf(err));
  }
}

/** The filter options object (docs/methods.md#filters-and-logs); unknown keys are ignored (chain3 also sends `from`/`to`). */
export const filterQuery: Codec<LogQuery> = (v, i) => {
  const o = objectParam(v, i);
  const blockHash = member(o, 'blockHash', hash, i);
  const fromBlock = member(o, 'fromBlock', blockTag, i);
  const toBlock = member(o, 'toBlock', blockTag, i);
  if (blockHash && (fromBlock !== undefined || toBlock !== undefined)) {
    throw new ParamError(i, `cannot specify both blockHash and fromBlock/toBlock, choose one or the other`);
  }
  const criteria: LogCriteria = { addresses: decodeAddresses(o.address, i), topics: decodeTopics(o.topics, i) };
  return { fromBlock: fromBlock ?? 'latest', toBlock: toBlock ?? 'latest', blockHash, criteria };
};

// Ids are positive; a string that is no QUANTITY names no filter (geth answers "not found").
const NO_SUCH_ID = -1n;

/** A filter id: any string (as geth), mapped to its number when it is a QUANTITY. */
export const filterId: Codec<bigint> = (v, i) => {
  if (typeof v !== 'string') throw new ParamError(i, `expected a filter id string`);
  try {
    return decodeQuantity(v, 128);
  } catch {
    return NO_SUCH_ID;
  }
};

const formatEntries = (entries: LogEntry[]) => entries.map((e) => formatLog(e.log, e.at, e.removed));

const formatChanges = (changes: FilterChanges) =>
  changes.kind === 'logs' ? formatEntries(changes.logs) : changes.hashes.map(bytesToHex);

export function filterMethods(filters: FilterSystem): Record<string, RpcMethod> {
  return {
    mc_newFilter: method([filterQuery], (query) => encodeQuantity(filters.newLogFilter(query))),
    mc_newBlockFilter: method([], () => encodeQuantity(filters.newBlockFilter())),
    mc_newPendingTransactionFilter: method([], () => encodeQuantity(filters.newPendingTransactionFilter())),
    mc_uninstallFilter: method([filterId], (id) => filters.uninstall(id)),
    mc_getFilterChanges: method([filterId], async (id) => formatChanges(await filters.changes(id))),
    mc_getFilterLogs: method([filterId], async (id) => formatEntries(await filters.filterLogs(id))),
    mc_getLogs: method([filterQuery], async (query) => formatEntries(await filters.getLogs(query))),
  };
}
