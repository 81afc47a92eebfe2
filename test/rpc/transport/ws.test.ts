// The WebSocket transport: calls, batches and envelope errors through the shared dispatcher,
// handshake rules (Host, Origin, path, connection cap), oversized frames, subscriptions with the
// caller's namespace, limits, and a slow consumer that is cut off.

import t from 'tap';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { FakeEvents, connect, makeBlock, startWsEndpoint } from './wsFixture.js';
import { testMethods } from './fixture.js';
import { IpcRpcServer } from '../../../src/rpc/ipc.js';
import { Dispatcher } from '../../../src/rpc/dispatch.js';
import { buildMethodTable } from '../../../src/rpc/modules/index.js';
import { SubscriptionHub } from '../../../src/filters/subscriptions.js';
import { subscriptionMethods } from '../../../src/rpc/modules/mc/subscriptions.js';
import { MAX_REQUEST_BYTES } from '../../../src/rpc/jsonLimits.js';
import { bytesToHex } from '../../../src/encoding/hex.js';
import { bigintToFixed } from '../../../src/encoding/bytes.js';

const handshakeStatus = (url: string, options: WebSocket.ClientOptions) =>
  new Promise<number>((resolve) => {
    const ws = new WebSocket(url, options);
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('error', () => undefined);
  });

t.test('calls, batches, notifications and envelope errors', async (t) => {
  const ep = await startWsEndpoint();
  t.teardown(() => ep.stop());
  const c = await connect(ep.url);
  const reply = await c.call('echo', [1, 'a']);
  t.same(reply, { jsonrpc: '2.0', id: reply.id, result: [1, 'a'] });
  t.type(reply.id, 'number');
  const batch = await c.send(JSON.stringify([{ jsonrpc: '2.0', id: 'x', method: 'echo', params: [2] }, { jsonrpc: '2.0', method: 'echo' }, { jsonrpc: '2.0', id: 3, method: 'nope' }]));
  t.same(batch, [
    { jsonrpc: '2.0', id: 'x', result: [2] },
    { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'the method nope does not exist/is not available' } },
  ]);
  t.same(await c.send('{bad'), { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
  t.same(await c.send('[]'), { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } });
  c.socket.close();
});

t.test('handshake rules: host, origin, path, connection cap', async (t) => {
  const ep = await startWsEndpoint({ corsOrigins: ['http://good.example'], ws: { maxConnections: 2 } });
  t.teardown(() => ep.stop());
  t.equal(await handshakeStatus(ep.url, { headers: { host: 'evil.example' } }), 403, 'foreign Host');
  t.equal(await handshakeStatus(ep.url, { headers: { host: 'localhost' } }), 101, 'allowed Host');
  t.equal(await handshakeStatus(ep.url, { origin: 'http://evil.example' }), 403, 'foreign Origin');
  t.equal(await handshakeStatus(ep.url, { origin: 'http://good.example' }), 101, 'allowed Origin');
  t.equal(await handshakeStatus(ep.url + 'other', {}), 404, 'other path');
  const a = await connect(ep.url);
  const b = await connect(ep.url);
  t.equal(await handshakeStatus(ep.url, {}), 503, 'over the connection cap');
  a.socket.close();
  await a.closed;
  await new Promise((r) => setTimeout(r, 20));
  t.equal(await handshakeStatus(ep.url, {}), 101, 'room again after a close');
  b.socket.close();
});

t.test('a message over 5 MiB closes the connection with 1009', async (t) => {
  const ep = await startWsEndpoint();
  t.teardown(() => ep.stop());
  const c = await connect(ep.url);
  c.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: ['x'.repeat(MAX_REQUEST_BYTES)] }));
  t.equal((await c.closed).code, 1009);
  const d = await connect(ep.url);
  const big = 'y'.repeat(MAX_REQUEST_BYTES - 100);
  t.equal((await d.call('echo', [big])).result[0].length, big.length, 'just under the limit is served');
  d.socket.close();
});

t.test('subscriptions: namespace of the call, logs with removed, pending, unsubscribe', async (t) => {
  const ep = await startWsEndpoint();
  t.teardown(() => ep.stop());
  const c = await connect(ep.url);
  const ethId = (await c.call('eth_subscribe', ['newHeads'])).result;
  const mcId = (await c.call('mc_subscribe', ['newHeads'])).result;
  t.match(ethId, /^0x[0-9a-f]{32}$/);
  const one = makeBlock(1n);
  ep.events.emit('newHead', one);
  const notes = [await c.nextNote(), await c.nextNote()].sort((x, y) => x.method.localeCompare(y.method));
  t.same(notes.map((n) => [n.method, n.params.subscription]), [['eth_subscription', ethId], ['mc_subscription', mcId]]);
  t.match(notes[0].params.result, { number: '0x1', hash: bytesToHex(one.block.hash), gasLimit: '0x895440' });
  t.notOk('transactions' in notes[0].params.result);
  t.same((await c.call('eth_unsubscribe', [ethId])).result, true);
  t.same((await c.call('eth_unsubscribe', [ethId])).result, false, 'second time: false');
  t.same((await c.call('mc_unsubscribe', [mcId])).result, true);

  const address = bigintToFixed(0x1234n, 20);
  const topic = bigintToFixed(5n, 32);
  const logsId = (await c.call('eth_subscribe', ['logs', { address: bytesToHex(address), topics: [bytesToHex(topic)] }])).result;
  const mined = makeBlock(2n, [[{ address, topics: [topic], data: Uint8Array.of(1) }, { address: bigintToFixed(9n, 20), topics: [], data: new Uint8Array() }]]);
  ep.events.emit('newHead', mined);
  const log = await c.nextNote();
  t.match(log.params, { subscription: logsId, result: { removed: false, address: bytesToHex(address), data: '0x01', blockNumber: '0x2', logIndex: '0x0' } });
  ep.events.emit('rewound', { removed: [mined] });
  t.match((await c.nextNote()).params.result, { removed: true, blockHash: bytesToHex(mined.block.hash), data: '0x01' });

  const hashes = (await c.call('eth_subscribe', ['newPendingTransactions'])).result;
  const full = (await c.call('eth_subscribe', ['newPendingTransactions', true])).result;
  t.not(hashes, full);
  t.same(c.notes, [], 'nothing else was sent');
  t.same((await c.call('eth_subscribe', ['nonsense'])).error, { code: -32601, message: 'no "nonsense" subscription in eth namespace' });
  t.match((await c.call('eth_subscribe', ['logs', { address: '0x12' }])).error, { code: -32602 });
  t.match((await c.call('eth_subscribe', ['logs', { topics: [null, null, null, null, null] }])).error, { code: -32005, message: /topics \(max 4/ });
  c.socket.close();
  await c.closed;
  await new Promise((r) => setTimeout(r, 20));
  t.equal(ep.hub.size, 0, 'closing the connection ends its subscriptions');
});

t.test('1000 subscriptions per connection', async (t) => {
  const ep = await startWsEndpoint();
  t.teardown(() => ep.stop());
  const c = await connect(ep.url);
  const batch = Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_subscribe', params: ['newHeads'] }));
  const replies = await c.send(JSON.stringify(batch));
  t.equal(replies.filter((r: any) => typeof r.result === 'string').length, 1000);
  t.match((await c.call('eth_subscribe', ['newHeads'])).error, { code: -32005, message: /subscriptions \(max 1000 per connection\)/ });
  const other = await connect(ep.url);
  t.type((await other.call('eth_subscribe', ['newHeads'])).result, 'string', 'the limit is per connection');
  c.socket.close();
  other.socket.close();
});

t.test('a slow consumer is closed once 16 MiB are unsent, and its memory freed', async (t) => {
  const ep = await startWsEndpoint();
  t.teardown(() => ep.stop());
  const c = await connect(ep.url);
  await c.call('eth_subscribe', ['newHeads']);
  c.socket.pause(); // stops reading: the server's buffers fill
  const server = [...(ep.ws as any).sockets][0] as WebSocket;
  let peak = 0;
  // 1 MiB of extra data per header, about 2 MiB of JSON per notification
  for (let n = 1n; n <= 40n && server.readyState === WebSocket.OPEN; n++) {
    ep.events.emit('newHead', makeBlock(n, [], new Uint8Array(1024 * 1024).fill(n === 1n ? 1 : 2)));
    await new Promise((r) => setImmediate(r));
    peak = Math.max(peak, server.bufferedAmount);
  }
  t.ok(peak <= 16 * 1024 * 1024 + 2.2 * 1024 * 1024, `unsent bytes stayed bounded (peak ${peak})`);
  c.socket.resume();
  const { code } = await c.closed;
  t.ok(code === 1008 || code === 1006, `closed (${code})`);
  for (let i = 0; i < 200 && ep.ws.connections > 0; i++) await new Promise((r) => setTimeout(r, 10));
  t.equal(ep.ws.connections, 0, 'the server dropped it');
  t.equal(ep.hub.size, 0, 'its subscription is gone');
});

t.test('IPC: a notification never overtakes the reply that names its subscription', async (t) => {
  const events = new FakeEvents();
  const hub = new SubscriptionHub({ chain: events, pool: events });
  const ipcPath = path.join(os.tmpdir(), `mcnode-ws-${process.pid}.ipc`);
  const server = new IpcRpcServer({ path: ipcPath, dispatcher: new Dispatcher({ methods: buildMethodTable(Object.fromEntries(testMethods()), subscriptionMethods(hub)) }) });
  await server.start();
  t.teardown(() => server.stop());
  const socket = net.connect(ipcPath);
  t.teardown(() => socket.destroy());
  const lines: any[] = [];
  let buffer = '';
  socket.on('data', (chunk) => {
    buffer += chunk;
    for (let nl; (nl = buffer.indexOf('\n')) >= 0; buffer = buffer.slice(nl + 1)) lines.push(JSON.parse(buffer.slice(0, nl)));
  });
  // a slow call first: the subscribe reply is owed behind it while a block arrives
  socket.write('{"jsonrpc":"2.0","id":1,"method":"slow","params":[300]}\n{"jsonrpc":"2.0","id":2,"method":"eth_subscribe","params":["newHeads"]}\n');
  await new Promise((r) => setTimeout(r, 100));
  events.emit('newHead', makeBlock(1n));
  for (let i = 0; i < 200 && lines.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
  t.same(lines.map((l) => l.id ?? l.method), [1, 2, 'eth_subscription']);
  t.equal(lines[2].params.subscription, lines[1].result);
});

t.test('WebSocket: events of a subscription made in a slow batch wait for the batch reply', async (t) => {
  const ep = await startWsEndpoint();
  t.teardown(() => ep.stop());
  const c = await connect(ep.url);
  const order: string[] = [];
  c.socket.on('message', (data) => {
    const m = JSON.parse(String(data));
    order.push(Array.isArray(m) ? 'batch' : m.method);
  });
  c.socket.send(JSON.stringify([
    { jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] },
    { jsonrpc: '2.0', id: 2, method: 'slow', params: [300] },
  ]));
  await new Promise((r) => setTimeout(r, 100));
  ep.events.emit('newHead', makeBlock(1n));
  for (let i = 0; i < 200 && order.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  t.same(order, ['batch', 'eth_subscription']);
  c.socket.close();
});
