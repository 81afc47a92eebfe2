// Mixed traffic for the soak run, as a long-lived dev node sees it: reads, raw transactions
// (transfers, calls of a contract that logs, app-chain transactions), installed filters polled
// (with churn, and some abandoned to expire), log queries, and SCS calls on both variants.
// Every lane paces itself, so the node is busy without being saturated.

import { bytesToHex, hexToBytes } from '../../src/encoding/hex.js';
import { contractAddress } from '../../src/chain/transaction.js';
import { rpc, RpcFailure, sleep, waitUntil } from '../lib/rpcClient.js';
import { Random } from '../lib/random.js';
import { ChainDriver, type Endpoints } from '../crash/chainDriver.js';

/** Runtime: MSTORE(0, 42); LOG1(0, 32, TOPIC); STOP — every call leaves one log. */
export const LOG_TOPIC = '0x' + '5a'.repeat(32);
const LOGGER_INIT = '0x602c600c600039602c6000f3' + '602a600052' + '7f' + LOG_TOPIC.slice(2) + '60206000a1' + '00';

export interface TrafficStats {
  calls: number;
  /** failures that are not designed refusals: transport errors, -32603 internal errors */
  unexpected: number;
  unexpectedSamples: string[];
  txs: number;
  appTxs: number;
  filtersCreated: number;
  filtersAbandoned: number;
  /** filters left without polls, with the time (ms, performance.now) of their last use */
  abandoned: Array<{ id: string; at: number }>;
}

export interface Traffic {
  stats: TrafficStats;
  stop(): Promise<void>;
}

/** Deploys the logging contract (a fresh chain: DEV account 1, nonce 0); returns its address. */
export async function deployLogger(ep: Endpoints, driver: ChainDriver): Promise<string> {
  const s = driver.senders[0];
  const hash = await rpc(ep.http, 'mc_sendTransaction', [{ from: s.address, data: LOGGER_INIT, gas: '0x30d40' }]);
  await waitUntil(() => rpc(ep.http, 'mc_getTransactionReceipt', [hash]), 'logger deploy', 30_000);
  return bytesToHex(contractAddress(hexToBytes(s.address), 0n));
}

export function startTraffic(ep: Endpoints, driver: ChainDriver, logger: string, seed: number, pace = 1): Traffic {
  const r = new Random(seed);
  const stats: TrafficStats = { calls: 0, unexpected: 0, unexpectedSamples: [], txs: 0, appTxs: 0, filtersCreated: 0, filtersAbandoned: 0, abandoned: [] };
  let running = true;
  const chain = driver.appChain;
  const account = driver.senders[1].address;

  /** One call; designed refusals (-32000, -32602, -32005) are fine, anything else is counted. */
  const call = async (url: string, method: string, params: unknown): Promise<any> => {
    stats.calls++;
    try {
      return await rpc(url, method, params, 10_000);
    } catch (err) {
      const designed = err instanceof RpcFailure && [-32000, -32602, -32005, 3].includes(err.error.code);
      if (!designed) {
        stats.unexpected++;
        if (stats.unexpectedSamples.length < 20) stats.unexpectedSamples.push(`${method}: ${(err as Error).message}`);
      }
      return undefined;
    }
  };
  const lane = (everyMs: number, body: () => Promise<unknown>) => async () => {
    while (running) {
      await body();
      await sleep(everyMs * pace * (0.5 + r.next() / 2 ** 32));
    }
  };

  const reads = lane(10, async () => {
    const head = await call(ep.http, 'mc_blockNumber', []);
    switch (r.int(7)) {
      case 0: return call(ep.http, 'mc_getBalance', [account, 'latest']);
      case 1: return call(ep.http, 'mc_getBlockByNumber', [head ?? 'latest', true]);
      case 2: return call(ep.http, 'mc_call', [{ to: logger, data: '0x' }, 'latest']);
      case 3: return call(ep.http, 'txpool_status', []);
      case 4: return call(ep.http, 'mc_estimateGas', [{ from: account, to: logger }]);
      case 5: return call(ep.http, 'mc_getTransactionCount', [account, 'pending']);
      default: return call(ep.http, 'mc_getBlockByNumber', ['pending', false]);
    }
  });

  const txs = lane(40, async () => {
    const s = driver.freeSender((n) => r.int(n));
    if (!s) return;
    const roll = r.int(10);
    if (roll < 3) {
      if (await driver.send(ep, s, r.pick(['call', 'transfer', 'deploy'] as const))) stats.appTxs++;
    } else if (roll < 6) {
      // A call of the logging contract, signed by the node (dev accounts are unlocked) with the
      // sender's next nonce, which this driver tracks.
      s.busy = true;
      try {
        if (await call(ep.http, 'mc_sendTransaction', [{ from: s.address, to: logger, gas: '0x186a0' }])) {
          stats.txs++;
          s.nonce++;
        }
      } finally {
        s.busy = false;
      }
    } else if (await driver.send(ep, s, 'main')) stats.txs++;
  });

  const filters: string[] = [];
  const filterLane = lane(20, async () => {
    if (filters.length < 12) {
      const kind = r.int(3);
      const id = await call(ep.http, kind === 0 ? 'mc_newBlockFilter' : kind === 1 ? 'mc_newPendingTransactionFilter' : 'mc_newFilter', kind === 2 ? [{ address: logger, topics: [LOG_TOPIC] }] : []);
      if (id) {
        filters.push(id);
        stats.filtersCreated++;
      }
      return;
    }
    const i = r.int(filters.length);
    const roll = r.int(100);
    if (roll < 3) {
      await call(ep.http, 'mc_uninstallFilter', [filters[i]]);
      filters.splice(i, 1);
    } else if (roll < 5) {
      // abandoned: the node must drop it after filters.timeout
      stats.abandoned.push({ id: filters.splice(i, 1)[0], at: performance.now() });
      stats.filtersAbandoned++;
    } else {
      const id = filters[i];
      await call(ep.http, r.chance(0.1) ? 'mc_getFilterLogs' : 'mc_getFilterChanges', [id]);
    }
  });

  const logs = lane(100, async () => {
    const head = Number((await call(ep.http, 'mc_blockNumber', [])) ?? '0x0');
    const from = '0x' + Math.max(0, head - r.range(1, 200)).toString(16);
    return call(ep.http, 'mc_getLogs', [{ fromBlock: from, toBlock: 'latest', address: logger, topics: [[LOG_TOPIC]] }]);
  });

  const scs = lane(25, async () => {
    switch (r.int(6)) {
      case 0: return call(ep.scs, 'scs_getBlock', [chain, 'latest']);
      case 1: return call(ep.scs, 'scs_getNonce', [chain, account]);
      case 2: return call(ep.scs, 'scs_getTxpool', [chain]);
      case 3: return call(`${ep.scs}/rpc`, 'ScsRPCMethod.GetBlockNumber', { SubChainAddr: chain });
      case 4: return call(`${ep.scs}/rpc`, 'ScsRPCMethod.GetBalance', { SubChainAddr: chain, Sender: account });
      default: return call(ep.scs, 'scs_getBlockList', [chain, '0x0', '0x10']);
    }
  });

  const lanes = [reads, reads, reads, txs, txs, filterLane, logs, scs].map((l) => l());
  return {
    stats,
    stop: async () => {
      running = false;
      await Promise.all(lanes);
    },
  };
}
