// The moments of a SIGKILL: mid-sealing (a block's proof of work under way), right after a
// sendRawTransaction reply, during a burst of block writes, during a filter poll storm, and in
// the middle of a reorganisation (reorgKill.ts). Each drives traffic, kills the node at its
// moment, and says whether the moment was confirmed.

import type { NodeProcess } from '../lib/nodeProcess.js';
import { rpc, sleep } from '../lib/rpcClient.js';
import type { Random } from '../lib/random.js';
import type { ChainDriver, Endpoints, Sender } from './chainDriver.js';
import { midReorg, type ReorgPlan } from './reorgKill.js';

export const KILL_KINDS = ['sealing', 'afterAck', 'writeBurst', 'filterStorm', 'reorg'] as const;
export type KillKind = (typeof KILL_KINDS)[number];

export interface KillContext {
  node: NodeProcess;
  ep: Endpoints;
  driver: ChainDriver;
  random: Random;
  /** a scratch directory of this chain's run */
  workdir: string;
  /** the chain's flags (genesis), for a rival node on the same chain */
  chainFlags: string[];
  /** reorganisation kills record what the restart check must find */
  reorgs: ReorgPlan[];
}

export interface KillOutcome {
  /** the moment was observed, not just aimed at (e.g. the miner was still sealing) */
  confirmed: boolean;
  note: string;
}

type TxKind = 'main' | 'call' | 'transfer' | 'deploy';
const APP_KINDS: TxKind[] = ['call', 'transfer', 'deploy'];

const kill = (node: NodeProcess) => node.proc.kill('SIGKILL');

function txKind(r: Random, appShare = 0.3): TxKind {
  return r.chance(appShare) ? r.pick(APP_KINDS) : 'main';
}

/** Keeps `lanes` senders busy sending transactions until `stop()`; resolves when they all return. */
function stream(ctx: KillContext, lanes: number, appShare: number) {
  let running = true;
  let sent = 0;
  const lane = async () => {
    while (running && ctx.node.alive()) {
      const s = ctx.driver.freeSender(ctx.random.int.bind(ctx.random));
      if (!s) {
        await sleep(2);
        continue;
      }
      if ((await ctx.driver.send(ctx.ep, s, txKind(ctx.random, appShare))) !== undefined) sent++;
    }
  };
  const done = Promise.all(Array.from({ length: lanes }, lane));
  return {
    sent: () => sent,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/** A transaction starts a seal (instant mining, high difficulty); the kill comes before it ends. */
async function midSealing(ctx: KillContext): Promise<KillOutcome> {
  const s = ctx.driver.freeSender(ctx.random.int.bind(ctx.random)) as Sender;
  if (ctx.random.chance(0.5)) await ctx.driver.send(ctx.ep, s, ctx.random.pick(APP_KINDS));
  const hash = await ctx.driver.send(ctx.ep, s, 'main');
  await sleep(ctx.random.range(20, 600));
  // Confirm the moment: the miner is searching and the transaction is not in a block yet.
  const [mining, receipt] = await Promise.all([
    rpc(ctx.ep.http, 'mc_mining', [], 2000).catch(() => false),
    hash ? rpc(ctx.ep.http, 'mc_getTransactionReceipt', [hash], 2000).catch(() => null) : null,
  ]);
  kill(ctx.node);
  return { confirmed: mining === true && receipt === null && hash !== undefined, note: `mining ${mining}, tx ${receipt ? 'mined' : 'not yet mined'}` };
}

/** The kill is sent in the same tick as the sendRawTransaction reply arrives. */
async function afterAck(ctx: KillContext): Promise<KillOutcome> {
  const warmup = ctx.random.range(0, 5);
  const s = () => ctx.driver.freeSender(ctx.random.int.bind(ctx.random)) as Sender;
  for (let i = 0; i < warmup; i++) await ctx.driver.send(ctx.ep, s(), txKind(ctx.random, 0.4));
  const kind = txKind(ctx.random, 0.5);
  const hash = await ctx.driver.send(ctx.ep, s(), kind, () => kill(ctx.node));
  if (hash === undefined) kill(ctx.node);
  return { confirmed: hash !== undefined, note: `${kind} transaction acknowledged, then killed` };
}

/** Many senders at once with instant mining: blocks are being written back to back. */
async function writeBurst(ctx: KillContext): Promise<KillOutcome> {
  const before = Number(await rpc(ctx.ep.http, 'mc_blockNumber'));
  const traffic = stream(ctx, 6, 0.3);
  await sleep(ctx.random.range(200, 1500));
  const at = Number(await rpc(ctx.ep.http, 'mc_blockNumber', [], 2000).catch(() => before));
  kill(ctx.node);
  await traffic.stop();
  return { confirmed: at > before, note: `${at - before} blocks written during the burst, ${traffic.sent()} transactions acknowledged` };
}

/** Filters of every kind polled as fast as possible while transactions flow. */
async function filterStorm(ctx: KillContext): Promise<KillOutcome> {
  const { http } = ctx.ep;
  const a = ctx.driver.senders[0].address;
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) {
    ids.push(await rpc(http, 'mc_newBlockFilter'));
    ids.push(await rpc(http, 'mc_newPendingTransactionFilter'));
    ids.push(await rpc(http, 'mc_newFilter', [{ fromBlock: 'latest', address: a }]));
  }
  let polls = 0;
  let inFlight = 0;
  let running = true;
  const poller = async () => {
    while (running && ctx.node.alive()) {
      inFlight++;
      await rpc(http, ctx.random.chance(0.2) ? 'mc_getLogs' : 'mc_getFilterChanges', ctx.random.chance(0.2) ? [{ fromBlock: '0x0', toBlock: 'latest' }] : [ctx.random.pick(ids)], 5000)
        .then(() => polls++)
        .catch(() => undefined);
      inFlight--;
    }
  };
  const pollers = Promise.all(Array.from({ length: 16 }, poller));
  const traffic = stream(ctx, 2, 0.3);
  await sleep(ctx.random.range(200, 1500));
  const busy = inFlight;
  kill(ctx.node);
  running = false;
  await Promise.all([pollers, traffic.stop()]);
  return { confirmed: busy > 0 && polls > 0, note: `${polls} polls answered, ${busy} in flight at the kill` };
}

export const KILLERS: Record<KillKind, (ctx: KillContext) => Promise<KillOutcome>> = {
  sealing: midSealing,
  afterAck,
  writeBurst,
  filterStorm,
  reorg: midReorg,
};
