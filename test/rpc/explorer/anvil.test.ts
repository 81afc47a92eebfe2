// ots_* and trace_* compared with Anvil's answers (npm @foundry-rs/anvil, on loopback) for the
// same contract actions (test/helpers/explorerScenario.ts), where the semantics match: addresses
// and hashes are replaced by their roles, gas figures dropped (MOAC's intrinsic gas differs), and
// the documented differences applied (docs/explorer.md#differences-from-anvil): Anvil lists the
// top-level transfer among internal operations and only CALL frames in ots_traceTransaction, and
// has no block rewards in its traces.

import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { startNode, type TestNode } from '../../helpers/node.js';
import { runScenario, type Rpc, type Scenario } from '../../helpers/explorerScenario.js';
import { testDir } from '../../helpers/testDir.js';

const require = createRequire(import.meta.url);

/** The binary of @foundry-rs/anvil's platform package, if this platform has one. */
function anvilBinary(): string | undefined {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  try {
    const pkg = require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`);
    const bin = path.join(path.dirname(pkg), 'bin', 'anvil');
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

const ANVIL = anvilBinary();
if (!ANVIL) t.plan(0, `no Anvil binary for ${process.platform}-${process.arch} (@foundry-rs/anvil)`);

async function startAnvil(): Promise<{ proc: ChildProcess; rpc: Rpc }> {
  const proc = spawn(ANVIL!, ['--port', '0', '--host', '127.0.0.1', '--hardfork', 'petersburg'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`anvil did not start:\n${out}`)), 30_000);
    proc.stdout!.on('data', () => {
      const m = /Listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    proc.on('exit', (code) => reject(new Error(`anvil exited with ${code}:\n${out}`)));
  });
  proc.removeAllListeners('exit');
  let id = 1;
  const rpc: Rpc = async (method, params = []) => {
    const res = await fetch(`http://127.0.0.1:${port}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }),
    });
    const reply = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (reply.error) throw new Error(`anvil ${method}: ${reply.error.message}`);
    return reply.result;
  };
  return { proc, rpc };
}

let node: TestNode;
let anvil: { proc: ChildProcess; rpc: Rpc } | undefined;
let mine: Scenario;
let theirs: Scenario;

t.before(async () => {
  [node, anvil] = await Promise.all([startNode(testDir(t), ['--mining.mode', 'instant', '--minerthreads', '1']), startAnvil()]);
  [mine, theirs] = await Promise.all([runScenario(node.rpc), runScenario(anvil.rpc)]);
});
t.teardown(async () => {
  anvil?.proc.kill();
  await node?.stop();
});

const CONSOLE = '0x000000000000000000636f6e736f6c652e6c6f67';
const DROPPED = new Set(['gas', 'gasUsed', 'blockHash', 'hash', 'r', 's', 'v', 'chainId', 'blockTimestamp', 'timestamp', 'logsBloom']);

/** Addresses and hashes by role, gas and signature fields dropped: what both nodes must agree on. */
function roles(s: Scenario, value: unknown): unknown {
  const names = new Map<string, string>([
    [s.from, 'from'], [s.payee, 'payee'], [s.ops.toLowerCase(), 'ops'], [s.children[0], 'child'], [s.children[1], 'child2'], [CONSOLE, 'console'],
    [s.deploy, 'deployTx'], [s.forward, 'forwardTx'], [s.make, 'makeTx'], [s.shout, 'shoutTx'], [s.fail, 'failTx'],
  ]);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      let text = v.toLowerCase();
      for (const [hex, name] of names) text = text.split(hex.slice(2)).join(`<${name}>`);
      return names.get(v.toLowerCase()) ?? text;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => !DROPPED.has(k)).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value);
}

/** Both answers by role. */
async function both(method: string, params: (s: Scenario) => unknown[]): Promise<[unknown, unknown]> {
  const [a, b] = await Promise.all([node.rpc(method, params(mine)), anvil!.rpc(method, params(theirs))]);
  return [roles(mine, a), roles(theirs, b)];
}

const keys = (o: unknown) => Object.keys(o as object).sort();

t.test('ots_getApiLevel, ots_hasCode, ots_getTransactionError', async (t) => {
  t.same(...(await both('ots_getApiLevel', () => [])));
  t.same(...(await both('ots_hasCode', (s) => [s.ops, 'latest'])));
  t.same(...(await both('ots_hasCode', (s) => [s.payee, 'latest'])));
  t.same(...(await both('ots_getTransactionError', (s) => [s.fail])), 'the same revert data');
  t.same(...(await both('ots_getTransactionError', (s) => [s.forward])));
});

t.test('ots_getInternalOperations: the same operations below the top frame', async (t) => {
  for (const tx of ['forward', 'make', 'shout'] as const) {
    const [ours, anvils] = (await both('ots_getInternalOperations', (s) => [s[tx]])) as [any[], any[]];
    t.same(ours, anvils.filter((op) => !(op.type === 0 && op.from === 'from')), tx);
  }
});

t.test('ots_traceTransaction: the same CALL-family frames', async (t) => {
  for (const tx of ['make', 'shout', 'fail'] as const) {
    const [ours, anvils] = (await both('ots_traceTransaction', (s) => [s[tx]])) as [any[], any[]];
    const calls = ours.filter((f) => /CALL/.test(f.type)).map((f) => ({ ...f, value: f.value ?? '0x0' }));
    t.same(calls.map((f) => f.type), anvils.filter((f) => /CALL/.test(f.type)).map((f) => f.type), `${tx}: frame types`);
    t.same(calls.map(({ type: _t, output: _o, ...f }) => f), anvils.filter((f) => /CALL/.test(f.type)).map(({ type: _t, output: _o, ...f }) => f), `${tx}: frames`);
  }
});

t.test('ots_getBlockDetails, ots_getBlockTransactions, erigon_getHeaderByNumber: the same shapes', async (t) => {
  const [ours, anvils] = (await both('ots_getBlockDetails', () => [2])) as [any, any];
  t.same(keys(ours), keys(anvils));
  t.same(keys(ours.block), keys(anvils.block));
  t.same(keys(ours.issuance), keys(anvils.issuance));
  t.equal(ours.block.transactionCount, anvils.block.transactionCount);
  const [page, anvilPage] = (await both('ots_getBlockTransactions', () => [3, 0, 5])) as [any, any];
  t.same(keys(page), keys(anvilPage));
  t.same(keys(page.fullblock), keys(anvilPage.fullblock));
  const common = (tx: any, other: any) => Object.fromEntries(Object.entries(tx).filter(([k]) => k in other));
  t.same(page.fullblock.transactions.map((x: any, i: number) => common(x, anvilPage.fullblock.transactions[i])), anvilPage.fullblock.transactions.map((x: any, i: number) => common(x, page.fullblock.transactions[i])), 'the same transactions, input cut to the selector');
  t.equal(page.fullblock.transactions[0].input.length, 10);
  const receiptKeys = keys(anvilPage.receipts[0]).filter((k) => k !== 'blobGasPrice');
  t.same(receiptKeys.filter((k) => !keys(page.receipts[0]).includes(k)), [], 'every receipt field Anvil gives');
  const [header, anvilHeader] = await both('erigon_getHeaderByNumber', () => [2]);
  t.same(keys(header), keys(anvilHeader));
});

t.test('ots_search*, sender+nonce, contract creator: the same transactions', async (t) => {
  const pick = (page: any) => ({ txs: page.txs.map((x: any) => x.hash ?? x.blockNumber), firstPage: page.firstPage, lastPage: page.lastPage });
  for (const who of ['ops', 'payee', 'from'] as const) {
    const [before, anvilBefore] = (await both('ots_searchTransactionsBefore', (s) => [s[who], 0, 2])) as [any, any];
    t.same(before.txs.map((x: any) => x.nonce), anvilBefore.txs.map((x: any) => x.nonce), `${who}: before, the same page`);
    t.same(pick(before).firstPage, pick(anvilBefore).firstPage);
    t.same(pick(before).lastPage, pick(anvilBefore).lastPage);
    const [after, anvilAfter] = (await both('ots_searchTransactionsAfter', (s) => [s[who], 0, 2])) as [any, any];
    t.same(after.txs.map((x: any) => x.nonce), anvilAfter.txs.map((x: any) => x.nonce), `${who}: after, the same page`);
    t.same(keys(after.receipts[0] ?? {}).filter((k) => k !== 'timestamp').length > 0, true);
  }
  t.same(...(await both('ots_getTransactionBySenderAndNonce', (s) => [s.from, 2])));
  t.same(...(await both('ots_getContractCreator', (s) => [s.ops])));
  t.same(...(await both('ots_getContractCreator', (s) => [s.children[1]])), 'a CREATE2 inside a call');
});

t.test('trace_transaction, trace_block, trace_filter, trace_replayBlockTransactions: the same traces', async (t) => {
  for (const tx of ['forward', 'make', 'shout', 'fail'] as const) {
    t.same(...(await both('trace_transaction', (s) => [s[tx]])), `trace_transaction ${tx}`);
  }
  for (const n of ['0x2', '0x3', '0x5']) {
    const [ours, anvils] = (await both('trace_block', () => [n])) as [any[], any[]];
    t.same(ours.filter((x) => x.type !== 'reward'), anvils, `trace_block ${n} (without the reward)`);
  }
  const filter = (s: Scenario) => [{ fromBlock: '0x1', toBlock: '0x5', fromAddress: [s.ops] }];
  t.same(...(await both('trace_filter', filter)), 'trace_filter by sender');
  const [replay, anvilReplay] = (await both('trace_replayBlockTransactions', () => ['0x3', ['trace']])) as [any[], any[]];
  t.same(replay, anvilReplay, 'trace_replayBlockTransactions');
});
