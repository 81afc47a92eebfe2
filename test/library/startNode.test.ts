// startNode() in this process (docs/library.md): the result's URLs and accounts, the in-process
// provider answering exactly what HTTP answers (results and errors), its EIP-1193 events, options
// in object form through the config schema, start errors with the command line's message and
// nothing left open after them, stop() idempotent and thorough, and nothing global touched.

import t, { type Test } from 'tap';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import v8 from 'node:v8';
import { startNode, ProviderRpcError, type RunningNode } from '../../src/library/index.js';
import { CLI, postJson } from '../helpers/node.js';
import { testDir } from '../helpers/testDir.js';

/** Handles that outlive a call by design or for a moment (timers, file requests in flight). */
const TRANSIENT = new Set(['Timeout', 'Immediate', 'FSReqCallback', 'FSReqPromise', 'FileHandleCloseReq']);
const openHandles = () => process.getActiveResourcesInfo().filter((r) => !TRANSIENT.has(r)).sort();

/** Handles open now that were not open at `before` (an earlier test's may have closed meanwhile). */
async function leftOpen(before: string[]): Promise<string[]> {
  await new Promise((r) => setTimeout(r, 100)); // closed handles leave the list on a later turn
  const remaining = [...before];
  return openHandles().filter((h) => {
    const i = remaining.indexOf(h);
    if (i < 0) return true;
    remaining.splice(i, 1);
    return false;
  });
}

/** A data directory with a path short enough for the IPC socket inside it. */
function shortDir(t: Test): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mclib-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const rpcOver = (url: string) => async (method: string, params: unknown[] = []) => postJson(url, { jsonrpc: '2.0', id: 7, method, params });

/** The provider's answer in the shape of a JSON-RPC reply's result or error. */
async function viaProvider(node: RunningNode, method: string, params: unknown[] = []) {
  try {
    return { result: await node.provider.request({ method, params }) };
  } catch (err) {
    const e = err as ProviderRpcError;
    if (!(e instanceof ProviderRpcError)) throw err;
    return { error: e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, data: e.data } };
  }
}

async function withoutId(reply: Promise<{ result?: unknown; error?: unknown }>) {
  const { result, error } = await reply;
  return error === undefined ? { result } : { error };
}

t.test('a node in this process: addresses, accounts, and the provider answering as HTTP does', async (t) => {
  const node = await startNode({ mining: { mode: 'instant' } });
  t.teardown(() => node.stop());
  t.match(node.rpcUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.not(node.rpcUrl, 'http://127.0.0.1:8545', 'port 0 by default: a free port');
  t.equal(node.wsUrl, node.rpcUrl!.replace('http:', 'ws:'), 'WebSocket on the HTTP port');
  t.ok(node.ipcPath && existsSync(node.ipcPath), 'the IPC socket exists');
  t.match(node.scsUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.match(node.enode, /^enode:\/\/[0-9a-f]{128}@127\.0\.0\.1:[1-9]\d*$/, 'the enode carries the bound port');
  t.equal(node.chainId, 100);
  t.equal(node.accounts.length, 10);
  t.match(node.accounts[0], { address: /^0x[0-9a-f]{40}$/, privateKey: /^0x[0-9a-f]{64}$/ });
  t.ok(node.datadir.startsWith(os.tmpdir()), 'a temporary datadir');

  const http = rpcOver(node.rpcUrl!);
  t.same((await http('mc_accounts')).result, node.accounts.map((a) => a.address));
  const enodePort = Number(node.enode!.split(':').pop());
  t.equal((await http('admin_nodeInfo')).error?.code, -32601, 'admin is not served over HTTP by default');

  // A transfer, so that blocks, receipts and balances have something in them.
  const [from, to] = node.accounts;
  const hash = await node.provider.request({ method: 'eth_sendTransaction', params: [{ from: from.address, to: to.address, value: '0x2a' }] }) as string;
  for (let i = 0; i < 400 && !(await node.provider.request({ method: 'eth_getTransactionReceipt', params: [hash] })); i++) await new Promise((r) => setTimeout(r, 25));

  const calls: [string, unknown[]][] = [
    ['eth_blockNumber', []],
    ['mc_blockNumber', []],
    ['eth_chainId', []],
    ['net_version', []],
    ['eth_getBalance', [to.address, 'latest']],
    ['eth_getBlockByNumber', ['latest', true]],
    ['eth_getTransactionReceipt', [hash]],
    ['eth_call', [{ to: to.address, data: '0x' }, 'latest']],
    ['eth_estimateGas', [{ from: from.address, to: to.address, value: '0x1' }]],
    ['rpc_modules', []],
    // errors: unknown method, a namespace HTTP does not serve, bad params, a revert with data
    ['eth_nonsense', []],
    ['personal_listAccounts', []],
    ['eth_getBalance', ['0x12', 'latest']],
    ['eth_call', [{ to: null, data: '0x60006000fd' }, 'latest']],
    ['eth_call', [{ data: '0x6c63616e6e6f74207374617274600052600d6013fd' }, 'latest']],
  ];
  for (const [method, params] of calls) {
    t.same(await viaProvider(node, method, params), await withoutId(http(method, params)), `${method} ${JSON.stringify(params)}: as over HTTP`);
  }
  t.ok(enodePort > 0);
});

t.test('EIP-1193: connect, subscription messages, disconnect, requests after stop', async (t) => {
  const node = await startNode({ mining: { mode: 'instant' } });
  t.teardown(() => node.stop());
  const connected = new Promise((resolve) => node.provider.on('connect', resolve));
  t.same(await connected, { chainId: '0x64' }, 'connect, after startNode resolved');

  const messages: any[] = [];
  node.provider.on('message', (m: unknown) => messages.push(m));
  const heads = await node.provider.request({ method: 'eth_subscribe', params: ['newHeads'] });
  const pending = await node.provider.request({ method: 'mc_subscribe', params: ['newPendingTransactions'] });
  t.match(heads, /^0x[0-9a-f]{32}$/);
  const [from, to] = node.accounts;
  const hash = await node.provider.request({ method: 'eth_sendTransaction', params: [{ from: from.address, to: to.address, value: '0x1' }] });
  for (let i = 0; i < 400 && messages.length < 2; i++) await new Promise((r) => setTimeout(r, 25));
  t.same(messages.find((m) => m.data.subscription === pending), { type: 'eth_subscription', data: { subscription: pending, result: hash } });
  t.match(messages.find((m) => m.data.subscription === heads), { type: 'eth_subscription', data: { subscription: heads, result: { number: '0x1' } } });
  t.equal(await node.provider.request({ method: 'eth_unsubscribe', params: [heads] }), true);

  const disconnected = new Promise<ProviderRpcError>((resolve) => node.provider.on('disconnect', resolve));
  await node.stop();
  t.equal((await disconnected).code, 4900);
  await t.rejects(node.provider.request({ method: 'eth_blockNumber' }), { code: 4900 }, 'after stop: 4900 disconnected');
  await t.rejects(node.provider.request(undefined as never), { code: 4900 });
});

t.test('a caller polling without a pause still sees its transaction mined', async (t) => {
  const node = await startNode({ mining: { mode: 'instant' } });
  t.teardown(() => node.stop());
  const [from, to] = node.accounts;
  await node.provider.request({ method: 'eth_sendTransaction', params: [{ from: from.address, to: to.address, value: '0x3' }] });
  // eth_blockNumber is answered from memory: answers that never left the microtask queue would
  // keep the block's database writes from completing, and the loop would spin to its end at 0x0.
  let head = '0x0';
  for (let polls = 0; head === '0x0' && polls < 100_000; polls++) {
    head = await node.provider.request({ method: 'eth_blockNumber' }) as string;
  }
  t.equal(head, '0x1');
});

t.test('options: any config key in object form, flag names, bigints; bad ones as the command line says', async (t) => {
  const node = await startNode({
    chain: { chainId: 1234n, networkId: 77 }, rpcport: 0, 'mining.mode': 'off', accounts: { devCount: 2 }, metrics: true,
  });
  t.teardown(() => node.stop());
  t.equal(node.chainId, 1234);
  t.equal(await node.provider.request({ method: 'eth_chainId' }), '0x4d2');
  t.equal(await node.provider.request({ method: 'net_version' }), '77');
  t.equal(node.accounts.length, 2);
  t.equal(await node.provider.request({ method: 'eth_mining' }), false);

  // The same mistake through the command line and through startNode.
  const dir = testDir(t);
  const cli = spawnSync(process.execPath, [CLI, '--datadir', dir, '--mining.mode', 'sometimes'], { encoding: 'utf8' });
  const cliMessage = /^mcnode: (.*)\n/.exec(cli.stderr)![1];
  t.match(cliMessage, /^invalid config value for mining\.mode: "sometimes" \(expected one of .*; set by --mining\.mode\)$/);
  await t.rejects(startNode({ mining: { mode: 'sometimes' } }), { name: 'ConfigError', message: cliMessage.replace('set by --mining.mode', 'set in the startNode options') });
  await t.rejects(startNode({ minig: { mode: 'off' } }), { message: 'unknown config key minig in the startNode options (did you mean mining?)' });
  await t.rejects(startNode({ chain: 'mainnet' }), /invalid startNode option chain: "mainnet" \(expected devnet, testnet/);
  await t.rejects(startNode({ rpc: { port: 70000 } }), /^invalid config value for rpc\.port: 70000 \(expected an integer from 0 to 65535; set in the startNode options\)$/);
});

t.test('a genesis object as chain: its chain id and allocations', async (t) => {
  const rich = '0x' + '77'.repeat(20);
  const node = await startNode({ chain: { config: { chainId: 555 }, gasLimit: '0x1000000', alloc: { [rich]: { balance: '0x1234' } } }, mining: { mode: 'off' } });
  t.teardown(() => node.stop());
  t.equal(node.chainId, 555);
  t.equal(await node.provider.request({ method: 'eth_getBalance', params: [rich, 'latest'] }), '0x1234');
  t.equal((await node.provider.request({ method: 'eth_getBlockByNumber', params: ['0x0', false] }) as { gasLimit: string }).gasLimit, '0x1000000');
});

t.test('start errors: the command line\'s message, and nothing left open', async (t) => {
  const datadir = shortDir(t);
  const first = await startNode({ datadir, mining: { mode: 'off' } });
  const cli = spawnSync(process.execPath, [CLI, '--datadir', datadir, '--rpcport', '0', '--scsrpcport', '0', '--ipcdisable'], { encoding: 'utf8' });
  t.match(cli.stderr, /^mcnode: datadir in use: /);
  await t.rejects(startNode({ datadir, mining: { mode: 'off' } }), { message: cli.stderr.slice('mcnode: '.length).trimEnd() }, 'datadir in use');
  await first.stop();
  t.ok(existsSync(path.join(datadir, 'chaindata')), 'a given datadir is kept');

  // A port taken late in the start (the SCS endpoint binds after HTTP, IPC and the pool are open).
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => blocker.close(resolve)));
  const taken = (blocker.address() as net.AddressInfo).port;
  const before = openHandles();
  await t.rejects(startNode({ datadir, scs: { rpcPort: taken } }), { message: `listen EADDRINUSE: address already in use 127.0.0.1:${taken}` });
  t.same(await leftOpen(before), [], 'no listener, socket, file or worker left open');
  const again = await startNode({ datadir, mining: { mode: 'off' } });
  t.equal(await again.provider.request({ method: 'eth_blockNumber' }), '0x0', 'the datadir was closed and unlocked: it starts again');
  await again.stop();

  // A failed start removes the temporary datadir it made (in os.tmpdir(), which follows TMPDIR).
  const tmp = shortDir(t);
  const tmpdir = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    await t.rejects(startNode({ scs: { rpcPort: taken } }), /EADDRINUSE/);
  } finally {
    if (tmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdir;
  }
  t.same(readdirSync(tmp), [], 'no temporary datadir of the failed start left');
});

t.test('stop(): idempotent, closes every listener, removes the temporary datadir', async (t) => {
  const before = openHandles();
  const node = await startNode({ mining: { mode: 'instant' }, ws: { enabled: true }, metrics: { enabled: true } });
  t.match(node.wsUrl, /^ws:\/\/127\.0\.0\.1:\d+$/);
  t.not(node.wsUrl, node.rpcUrl!.replace('http:', 'ws:'), 'the separate WebSocket endpoint');
  const [from, to] = node.accounts;
  await node.provider.request({ method: 'eth_sendTransaction', params: [{ from: from.address, to: to.address, value: '0x1' }] });
  const stops = [node.stop(), node.stop()];
  t.equal(stops[0], stops[1], 'a second call returns the same promise');
  await Promise.all(stops);
  await node.stop();
  t.notOk(existsSync(node.datadir), 'the temporary datadir is gone');
  await t.rejects(fetch(node.rpcUrl!, { method: 'POST' }), 'HTTP closed');
  t.same(await leftOpen(before), [], 'no handle left');
});

t.test('nothing global: no V8 flags, process handlers, exits or environment edits', async (t) => {
  const setFlags: string[] = [];
  const original = v8.setFlagsFromString;
  v8.setFlagsFromString = (flags: string) => {
    setFlags.push(flags);
    original(flags);
  };
  const exit = process.exit;
  process.exit = ((code?: number) => {
    throw new Error(`process.exit(${code}) called`);
  }) as typeof process.exit;
  t.teardown(() => {
    v8.setFlagsFromString = original;
    process.exit = exit;
  });
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'uncaughtException', 'unhandledRejection', 'exit', 'beforeExit', 'worker', 'warning'] as const;
  const listeners = () => Object.fromEntries(events.map((e) => [e, process.listenerCount(e)]));
  const beforeListeners = listeners();
  const env = { ...process.env };
  const globals = Object.getOwnPropertySymbols(globalThis).length + Object.keys(globalThis).length;

  const a = await startNode({ mining: { mode: 'instant' } });
  const b = await startNode({ mining: { mode: 'instant' }, process: 'in-process' });
  const [from, to] = a.accounts;
  await a.provider.request({ method: 'eth_sendTransaction', params: [{ from: from.address, to: to.address, value: '0x1' }] });
  await b.provider.request({ method: 'eth_sendTransaction', params: [{ from: from.address, to: to.address, value: '0x1' }] });
  await new Promise((r) => setTimeout(r, 300));
  await a.stop();
  await b.stop();
  t.same(setFlags, [], 'no V8 flag set');
  t.same(listeners(), beforeListeners, 'no process listener added');
  t.same(process.env, env, 'the environment is unchanged');
  t.equal(Object.getOwnPropertySymbols(globalThis).length + Object.keys(globalThis).length, globals, 'no global added');
});

t.test('two nodes in one process peer, and share nothing', async (t) => {
  const a = await startNode({ mining: { mode: 'instant' }, metrics: { enabled: true } });
  t.teardown(() => a.stop());
  const b = await startNode({ mining: { mode: 'off' }, metrics: { enabled: true }, p2p: { bootnodes: [a.enode!] } });
  t.teardown(() => b.stop());
  t.not(a.rpcUrl, b.rpcUrl);
  t.not(a.ipcPath, b.ipcPath);
  const until = async (what: string, check: () => Promise<boolean>) => {
    for (let i = 0; i < 800; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`timed out: ${what}`);
  };
  await until('peering', async () => (await b.provider.request({ method: 'net_peerCount' })) === '0x1');
  const [from, to] = a.accounts;
  const hash = await a.provider.request({ method: 'eth_sendTransaction', params: [{ from: from.address, to: to.address, value: '0x7' }] });
  await until('the block reaches b', async () => (await b.provider.request({ method: 'eth_getTransactionReceipt', params: [hash] })) !== null);
  t.equal(await b.provider.request({ method: 'eth_getBalance', params: [to.address, 'latest'] }), await a.provider.request({ method: 'eth_getBalance', params: [to.address, 'latest'] }));

  // Each node counts its own calls: 5 eth_chainId calls on a, none on b.
  for (let i = 0; i < 5; i++) await a.provider.request({ method: 'eth_chainId' });
  const chainIdCalls = async (node: RunningNode) => {
    const text = await (await fetch(node.metricsUrl!)).text();
    return Number(/mcnode_rpc_requests_total\{method="mc_chainId",result="ok"\} (\d+)/.exec(text)?.[1] ?? 0);
  };
  t.not(a.metricsUrl, b.metricsUrl);
  t.equal(await chainIdCalls(a), 5, 'a counted its calls');
  t.equal(await chainIdCalls(b), 0, 'b has its own registry');
});

t.test('in a child process: the same result object, provider, errors and stop', async (t) => {
  const lines: string[] = [];
  const node = await startNode({ process: 'child', mining: { mode: 'instant' }, verbosity: 3, log: (line) => lines.push(line) });
  t.teardown(() => node.stop());
  t.match(node, { chainId: 100, rpcUrl: /^http:/, wsUrl: /^ws:/, scsUrl: /^http:/, enode: /^enode:/ });
  t.equal(node.accounts.length, 10);
  t.equal(await node.provider.request({ method: 'eth_blockNumber' }), (await rpcOver(node.rpcUrl!)('eth_blockNumber')).result);
  await t.rejects(node.provider.request({ method: 'eth_nonsense' }), { code: -32601, message: 'the method eth_nonsense does not exist/is not available' });
  const messages: any[] = [];
  node.provider.on('message', (m: unknown) => messages.push(m));
  const sub = await node.provider.request({ method: 'eth_subscribe', params: ['newHeads'] });
  const [from, to] = node.accounts;
  await node.provider.request({ method: 'eth_sendTransaction', params: [{ from: from.address, to: to.address, value: '0x1' }] });
  for (let i = 0; i < 400 && messages.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  t.match(messages[0], { type: 'eth_subscription', data: { subscription: sub, result: { number: '0x1' } } });
  t.ok(lines.some((l) => /INFO {2}sealed block number=1/.test(l)), 'the child\'s log lines reach the log option');
  await node.stop();
  t.notOk(existsSync(node.datadir), 'the child removed its temporary datadir');
  await t.rejects(node.provider.request({ method: 'eth_blockNumber' }), { code: 4900 });
  await t.rejects(startNode({ process: 'child', mining: { mode: 'sometimes' } }), /^invalid config value for mining\.mode: "sometimes"/, 'a start error in the child');
});

t.test('a relative datadir is relative to the working directory, as on the command line', async (t) => {
  const cwd = process.cwd();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcnode-cwd-'));
  t.teardown(() => {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  });
  process.chdir(dir);
  const node = await startNode({ datadir: 'chain', mining: { mode: 'off' } });
  t.equal(node.datadir, path.join(dir, 'chain'));
  await node.stop();
  t.ok(existsSync(path.join(dir, 'chain', 'chaindata')));
});
