// IPC transport rules (README "Transports"): framing, socket mode, stale/live socket files, size cap,
// ordering, shutdown. Envelope cases live in the transcript.

import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Dispatcher } from '../../../src/rpc/dispatch.js';
import { IpcRpcServer } from '../../../src/rpc/ipc.js';
import { IpcClient, openGate, testMethods } from './fixture.js';
import { testDir } from '../../helpers/testDir.js';

const call = (id: number | string, method: string, params: unknown[] = []) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });
const result = (id: number | string, value: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result: value });

// One fixture dir for the whole file: a subtest's own testdir is named after the subtest, and
// unix socket paths are limited to ~104 bytes.
const dir = testDir(t);
let sockets = 0;
const socketPath = (name = 'mc') => join(dir, `${name}${++sockets}.ipc`);

async function serve(t: Test, dispatcher = new Dispatcher({ methods: testMethods() })) {
  const path = socketPath();
  const server = new IpcRpcServer({ path, dispatcher });
  await server.start();
  t.teardown(() => server.stop());
  const client = await IpcClient.open(path);
  t.teardown(() => client.close());
  return { path, server, client };
}

t.test('newline-delimited calls; socket file is 0600; every namespace is served', async (t) => {
  const { path, client } = await serve(t);
  t.equal(statSync(path).mode & 0o777, 0o600);
  t.ok(statSync(path).isSocket());
  t.equal(await client.call(call(1, 'echo', ['a'])), result(1, ['a']));
  t.equal(await client.call(call(2, 'admin_peers')), result(2, []));
  t.equal(await client.call(call(3, 'personal_listAccounts')), result(3, []));
  t.equal(await client.call(call(4, 'eth_blockNumber')), result(4, '0x10'));
});

t.test('back-to-back values, values split across writes, CRLF and blank lines', async (t) => {
  const { client } = await serve(t);
  client.write(call(1, 'echo', [1]) + call(2, 'echo', [2]) + '[' + call(3, 'echo', [3]) + ']');
  t.equal(await client.next(), result(1, [1]));
  t.equal(await client.next(), result(2, [2]));
  t.equal(await client.next(), `[${result(3, [3])}]`);

  const text = Buffer.from(call(4, 'echo', ['a"}] ✓ ü \\ "']) + '\r\n\n\n' + call(5, 'echo', []) + '\n');
  for (let i = 0; i < text.length; i++) {
    client.write(text.subarray(i, i + 1));
    await new Promise((r) => setImmediate(r));
  }
  t.equal(await client.next(), result(4, ['a"}] ✓ ü \\ "']));
  t.equal(await client.next(), result(5, []));
});

t.test('bad values get errors and the connection stays usable', async (t) => {
  const { client } = await serve(t);
  t.equal(await client.call('{oops}'), '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}');
  t.equal(await client.call('42'), '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}');
  t.equal(await client.call(call(1, 'throws')), '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error"}}');
  t.equal(await client.call(call(2, 'echo')), result(2, []));
});

t.test('replies keep request order while calls run concurrently', async (t) => {
  const { client } = await serve(t);
  client.write(
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'slow', params: [80, 'a'] }) + '\n' +
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'echo', params: ['b'] }) + '\n' +
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'barrier' }) + '\n' +
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'barrier' }) + '\n',
  );
  t.equal(await client.next(), result(1, 'a'));
  t.equal(await client.next(), result(2, ['b']));
  t.equal(await client.next(), result(3, 'first'));
  t.equal(await client.next(), result(4, 'second'));
});

t.test('many pipelined calls on one connection', async (t) => {
  const { client } = await serve(t);
  const n = 5000;
  client.write(Array.from({ length: n }, (_, i) => call(i, 'echo', [i])).join('\n') + '\n');
  let good = 0;
  for (let i = 0; i < n; i++) if ((await client.next()) === result(i, [i])) good++;
  t.equal(good, n);
});

t.test('a value over 5 MiB gets -32600 and the connection is closed', async (t) => {
  const { path, client } = await serve(t);
  t.equal(await client.call(call(1, 'echo', ['before'])), result(1, ['before']));
  const chunk = 'x'.repeat(1024 * 1024);
  client.write('{"jsonrpc":"2.0","id":2,"method":"echo","params":["');
  for (let i = 0; i < 6; i++) client.write(chunk);
  const reply = await client.next();
  t.same(JSON.parse(reply ?? 'null'), {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32600, message: 'request too large (limit 5242880 bytes)' },
  });
  t.equal(await client.next(), undefined, 'then the server hangs up');
  // The server itself is fine.
  const other = await IpcClient.open(path);
  t.teardown(() => other.close());
  t.equal(await other.call(call(3, 'echo')), result(3, []));
});

t.test('a value just under 5 MiB is served', async (t) => {
  const { client } = await serve(t);
  const big = 'y'.repeat(5 * 1024 * 1024 - 100);
  const reply = await client.call(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'returnsNull', params: [big] }));
  t.equal(reply, result(1, null));
});

t.test('a stale socket file is replaced; a live one fails start', async (t) => {
  const path = socketPath('stale');
  // A process that exits without closing its server leaves the socket file behind.
  const child = spawnSync(process.execPath, [
    '-e',
    `require('net').createServer().listen(${JSON.stringify(path)}, () => process.exit(0))`,
  ]);
  t.equal(child.status, 0);
  t.ok(statSync(path).isSocket(), 'stale socket file exists');
  const server = new IpcRpcServer({ path, dispatcher: new Dispatcher({ methods: testMethods() }) });
  await server.start();
  t.teardown(() => server.stop());
  const client = await IpcClient.open(path);
  t.teardown(() => client.close());
  t.equal(await client.call(call(1, 'echo')), result(1, []));

  const second = new IpcRpcServer({ path, dispatcher: new Dispatcher({ methods: testMethods() }) });
  await t.rejects(second.start(), { message: `IPC endpoint ${path} is in use` });
  t.equal(await client.call(call(2, 'echo')), result(2, []), 'the live server was left alone');

  // Someone else's live socket (not ours) also counts as in use.
  const foreignPath = socketPath('foreign');
  const foreign = createServer(() => undefined);
  await new Promise<void>((resolve) => foreign.listen(foreignPath, resolve));
  t.teardown(() => new Promise<void>((resolve) => foreign.close(() => resolve())));
  const third = new IpcRpcServer({ path: foreignPath, dispatcher: new Dispatcher({ methods: testMethods() }) });
  await t.rejects(third.start(), { message: `IPC endpoint ${foreignPath} is in use` });

  const filePath = socketPath('file');
  writeFileSync(filePath, 'not a socket');
  const fourth = new IpcRpcServer({ path: filePath, dispatcher: new Dispatcher({ methods: testMethods() }) });
  await t.rejects(fourth.start(), { message: /exists and is not a socket/ });
  t.ok(existsSync(filePath), 'a regular file is never deleted');

  const tooLong = new IpcRpcServer({ path: join(dir, 'x'.repeat(120)), dispatcher: new Dispatcher({ methods: testMethods() }) });
  await t.rejects(tooLong.start(), { message: /too long/ });
});

t.test('stop() closes connections, even with a call in flight, and removes the socket file', async (t) => {
  const path = socketPath('stop');
  const server = new IpcRpcServer({ path, dispatcher: new Dispatcher({ methods: testMethods() }) });
  await server.start();
  const idle = await IpcClient.open(path);
  const busy = await IpcClient.open(path);
  t.teardown(openGate);
  busy.write(call(1, 'gate') + '\n');
  await new Promise((r) => setTimeout(r, 50));
  let timer: NodeJS.Timeout | undefined;
  const first = await Promise.race([
    server.stop().then(() => 'stopped'),
    new Promise((r) => (timer = setTimeout(() => r('stop() is waiting for the busy call'), 10_000))),
  ]);
  clearTimeout(timer);
  t.equal(first, 'stopped');
  t.equal(await idle.next(), undefined, 'idle connection closed');
  t.equal(await busy.next(), undefined, 'busy connection closed without a reply');
  t.notOk(existsSync(path), 'socket file removed');
  await t.rejects(IpcClient.open(path), { code: 'ENOENT' });
  // Restart on the same path works.
  await server.start();
  const again = await IpcClient.open(path);
  t.equal(await again.call(call(2, 'echo')), result(2, []));
  again.close();
  await server.stop();
});
