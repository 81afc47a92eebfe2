// HTTP transport rules (README "Transports"): methods, content types, body limit, Host allow-list, CORS,
// routing, timeouts, shutdown. Envelope cases live in the transcript.

import t, { type Test } from 'tap';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { Dispatcher } from '../../../src/rpc/dispatch.js';
import { HttpRpcServer, isJsonContentType, type HttpServerOptions } from '../../../src/rpc/http.js';
import { http, openGate, post, testMethods } from './fixture.js';

const CALL = '{"jsonrpc":"2.0","id":1,"method":"echo","params":["hi"]}';
const REPLY = '{"jsonrpc":"2.0","id":1,"result":["hi"]}';
const MiB = 1024 * 1024;

async function serve(t: Test, o: Partial<HttpServerOptions> = {}) {
  const d = new Dispatcher({ methods: testMethods() });
  const server = new HttpRpcServer({
    host: '127.0.0.1',
    port: 0,
    corsOrigins: [],
    vhosts: ['localhost'],
    route: () => d,
    ...o,
  });
  const { port } = await server.start();
  t.teardown(() => server.stop());
  return { server, port };
}

t.test('start reports the bound address; stop clears it; a second start on the port fails', async (t) => {
  const { server, port } = await serve(t);
  t.ok(port > 0);
  t.same(server.address, { host: '127.0.0.1', port });
  const clash = new HttpRpcServer({ host: '127.0.0.1', port, corsOrigins: [], vhosts: [], route: () => undefined });
  await t.rejects(clash.start(), { code: 'EADDRINUSE' });
  await server.stop();
  t.equal(server.address, undefined);
  await t.rejects(post(port, CALL), { code: 'ECONNREFUSED' });
});

t.test('POST call; reply is application/json', async (t) => {
  const { port } = await serve(t);
  const r = await post(port, CALL);
  t.equal(r.status, 200);
  t.equal(r.headers['content-type'], 'application/json');
  t.equal(r.body, REPLY);
  t.equal(r.headers['access-control-allow-origin'], undefined);
});

t.test('methods: GET/HEAD health check, others 405', async (t) => {
  const { port } = await serve(t);
  const get = await http(port, { method: 'GET' });
  t.equal(get.status, 200);
  t.equal(get.body, '');
  t.equal((await http(port, { method: 'HEAD' })).status, 200);
  t.equal((await http(port, { method: 'GET', body: CALL })).status, 405, 'GET with a body is not a call');
  for (const method of ['PUT', 'DELETE', 'PATCH']) {
    const r = await http(port, { method, body: CALL });
    t.equal(r.status, 405, method);
    t.equal(r.headers.allow, 'POST, GET, HEAD, OPTIONS');
  }
});

t.test('content types', async (t) => {
  const { port } = await serve(t);
  const accepted = [
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;charset=UTF-8',
    ' application/json ',
    'application/json-rpc',
    'application/jsonrequest',
  ];
  for (const type of accepted) {
    const r = await post(port, CALL, { 'Content-Type': type });
    t.equal(r.status, 200, type);
    t.equal(r.body, REPLY, type);
  }
  const refused = ['text/plain', 'text/plain; x=application/json', 'application/jsonx', 'application/x-www-form-urlencoded', ''];
  for (const type of refused) {
    const r = await post(port, CALL, { 'Content-Type': type });
    t.equal(r.status, 415, `"${type}"`);
    t.match(r.body, /invalid content type/);
  }
  // No Content-Type header at all.
  const bare = await new Promise<number>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(CALL);
  });
  t.equal(bare, 415, 'missing content type');
  // A refused body is not drained to keep the connection: the connection is closed instead.
  const closing = await post(port, CALL, { 'Content-Type': 'text/plain', Connection: 'keep-alive' });
  t.equal(closing.headers.connection, 'close');
  const kept = await post(port, CALL, { Connection: 'keep-alive' });
  t.equal(kept.headers.connection, 'keep-alive', 'served calls keep the connection');
  t.equal(isJsonContentType(undefined), false);
});

t.test('bad JSON, notifications and batches over HTTP', async (t) => {
  const { port } = await serve(t);
  const bad = await post(port, '{"jsonrpc":');
  t.equal(bad.status, 200);
  t.equal(bad.body, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}');
  const trailing = await post(port, CALL + '}');
  t.equal(trailing.body, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}');
  const empty = await post(port, '');
  t.equal(empty.body, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}');
  const note = await post(port, '{"jsonrpc":"2.0","method":"echo","params":[]}');
  t.equal(note.status, 200);
  t.equal(note.body, '');
  t.equal(note.headers['content-length'], '0');
  const notes = await post(port, '[{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","method":"nosuch"}]');
  t.equal(notes.status, 200);
  t.equal(notes.body, '');
  const batch = Array.from({ length: 1001 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"echo"}`);
  t.equal(
    (await post(port, `[${batch.join(',')}]`)).body,
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}',
  );
  t.equal(JSON.parse((await post(port, `[${batch.slice(1).join(',')}]`)).body).length, 1000);
});

t.test('a throwing or rejecting handler leaves the server running', async (t) => {
  const { port } = await serve(t);
  for (const m of ['throws', 'rejects', 'throwsString', 'returnsBigint']) {
    const r = await post(port, `{"jsonrpc":"2.0","id":1,"method":"${m}"}`);
    t.equal(r.body, '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error"}}', m);
  }
  t.equal((await post(port, CALL)).body, REPLY);
});

t.test('body limit: 413 by declared length, while streaming, and not below the limit', async (t) => {
  const { port } = await serve(t);
  // Just under the default 5 MiB: served.
  const str = 'x'.repeat(5 * MiB - 200);
  const near = await post(port, `{"jsonrpc":"2.0","id":1,"method":"returnsNull","params":["${str}"]}`);
  t.equal(near.status, 200);
  t.equal(near.body, '{"jsonrpc":"2.0","id":1,"result":null}');

  // Declared too large: refused from the headers, before any body byte is read.
  const declared = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(5 * MiB + 1) },
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.flushHeaders(); // send headers, no body
  });
  t.equal(declared.status, 413);
  t.match(declared.body, /content length too large/);

  // Chunked (no Content-Length): refused once more than 5 MiB has arrived.
  const streamed = await new Promise<{ status: number; sent: number }>((resolve, reject) => {
    let sent = 0;
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/', agent: false, headers: { 'Content-Type': 'application/json' } },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, sent });
      },
    );
    req.on('error', reject);
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const pump = () => {
      // Keep sending until the server answers; stop at 64 MiB so a bug cannot run forever.
      while (sent < 64 * MiB) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
  t.equal(streamed.status, 413);
  t.ok(streamed.sent < 16 * MiB, `server stopped the upload early (${streamed.sent} bytes sent)`);

  // Custom limit.
  const small = await serve(t, { bodyLimit: 100 });
  t.equal((await post(small.port, CALL)).status, 200);
  t.equal((await post(small.port, `{"jsonrpc":"2.0","id":1,"method":"echo","params":["${'y'.repeat(100)}"]}`)).status, 413);
  t.equal((await post(port, CALL)).body, REPLY, 'the server is still fine');
});

t.test('Host header allow-list', async (t) => {
  const { port } = await serve(t);
  const withHost = (host: string) => post(port, CALL, { Host: host });
  for (const host of ['localhost', 'localhost:8545', 'LOCALHOST:1', '127.0.0.1', '127.0.0.1:8545', '[::1]:8545', '[::1]', '10.1.2.3:80']) {
    const r = await withHost(host);
    t.equal(r.status, 200, host);
    t.equal(r.body, REPLY, host);
  }
  for (const host of ['evil.example', 'evil.example:8545', 'localhost.evil.example', 'mynode.example', '[notanip]:1']) {
    const r = await withHost(host);
    t.equal(r.status, 403, host);
    t.equal(r.body, 'invalid host specified\n', host);
  }
  const health = await http(port, { method: 'GET', headers: { Host: 'evil.example' } });
  t.equal(health.status, 403, 'the health check is guarded too');

  const custom = await serve(t, { vhosts: ['MyNode.example'] });
  t.equal((await post(custom.port, CALL, { Host: 'mynode.example:8545' })).status, 200);
  t.equal((await post(custom.port, CALL, { Host: 'localhost' })).status, 403);
  t.equal((await post(custom.port, CALL, { Host: '127.0.0.1' })).status, 200, 'IP literals always pass');

  const any = await serve(t, { vhosts: ['*'] });
  t.equal((await post(any.port, CALL, { Host: 'evil.example' })).status, 200);
});

t.test('CORS only for listed origins', async (t) => {
  const none = await serve(t);
  const plain = await post(none.port, CALL, { Origin: 'http://app.example' });
  t.equal(plain.status, 200, 'the call itself is served (browsers enforce CORS)');
  t.equal(plain.headers['access-control-allow-origin'], undefined);
  const pre0 = await http(none.port, {
    method: 'OPTIONS',
    headers: { Origin: 'http://app.example', 'Access-Control-Request-Method': 'POST' },
  });
  t.equal(pre0.status, 204);
  t.equal(pre0.headers['access-control-allow-origin'], undefined);
  t.equal(pre0.headers['access-control-allow-methods'], undefined);

  const listed = await serve(t, { corsOrigins: ['http://App.example'] });
  const ok = await post(listed.port, CALL, { Origin: 'http://app.example' });
  t.equal(ok.headers['access-control-allow-origin'], 'http://app.example');
  t.equal(ok.headers.vary, 'Origin');
  t.equal(ok.body, REPLY);
  const other = await post(listed.port, CALL, { Origin: 'http://other.example' });
  t.equal(other.headers['access-control-allow-origin'], undefined);
  const noOrigin = await post(listed.port, CALL);
  t.equal(noOrigin.headers['access-control-allow-origin'], undefined);
  const pre = await http(listed.port, {
    method: 'OPTIONS',
    headers: {
      Origin: 'http://app.example',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type, authorization',
    },
  });
  t.equal(pre.status, 204);
  t.equal(pre.headers['access-control-allow-origin'], 'http://app.example');
  t.match(pre.headers['access-control-allow-methods'], /POST/);
  t.equal(pre.headers['access-control-allow-headers'], 'content-type, authorization');
  const preBad = await http(listed.port, {
    method: 'OPTIONS',
    headers: { Origin: 'http://app.example', 'Access-Control-Request-Method': 'DELETE' },
  });
  t.equal(preBad.headers['access-control-allow-origin'], undefined, 'a method we do not serve is not allowed');
  const refused = await post(listed.port, CALL, { Origin: 'http://app.example', 'Content-Type': 'text/plain' });
  t.equal(refused.status, 415);
  t.equal(refused.headers['access-control-allow-origin'], 'http://app.example', 'errors are readable too');

  const any = await serve(t, { corsOrigins: ['*'] });
  t.equal((await post(any.port, CALL, { Origin: 'http://whatever.example' })).headers['access-control-allow-origin'], '*');
});

t.test('route chooses the dispatcher by path; unknown paths 404', async (t) => {
  const main = new Dispatcher({ methods: new Map([['which', { handler: () => 'rpc' }]]) });
  const debug = new Dispatcher({ methods: new Map([['which', { handler: () => 'rpcdebug' }]]) });
  const { port } = await serve(t, { route: (p) => (p === '/' ? main : p === '/rpc' ? debug : undefined) });
  const body = '{"jsonrpc":"2.0","id":1,"method":"which"}';
  t.equal((await http(port, { path: '/', body })).body, '{"jsonrpc":"2.0","id":1,"result":"rpc"}');
  t.equal((await http(port, { path: '/?x=1', body })).body, '{"jsonrpc":"2.0","id":1,"result":"rpc"}');
  t.equal((await http(port, { path: '/rpc', body })).body, '{"jsonrpc":"2.0","id":1,"result":"rpcdebug"}');
  const missing = await http(port, { path: '/nope', body });
  t.equal(missing.status, 404);
});

t.test('keep-alive connections serve many calls; concurrent calls overlap', async (t) => {
  const { port } = await serve(t);
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  t.teardown(() => agent.destroy());
  const once = (id: number) =>
    new Promise<string>((resolve, reject) => {
      const body = `{"jsonrpc":"2.0","id":${id},"method":"slow","params":[20,${id}]}`;
      const req = request(
        { host: '127.0.0.1', port, method: 'POST', agent, headers: { 'Content-Type': 'application/json' } },
        (res) => {
          let s = '';
          res.on('data', (c) => (s += c));
          res.on('end', () => resolve(s));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => once(i)));
  replies.forEach((r, i) => t.equal(r, `{"jsonrpc":"2.0","id":${i},"result":${i}}`));
  // Two barrier calls on separate connections release each other only if they run together.
  const [a, b] = await Promise.all([
    post(port, '{"jsonrpc":"2.0","id":1,"method":"barrier"}'),
    post(port, '{"jsonrpc":"2.0","id":2,"method":"barrier"}'),
  ]);
  t.same([JSON.parse(a.body).result, JSON.parse(b.body).result].sort(), ['first', 'second']);
});

t.test('timeouts are set as designed', async (t) => {
  const { server } = await serve(t);
  // The node:http server is private; its timeouts are the contract (30 s request, 120 s idle).
  const inner = (server as unknown as { server: { requestTimeout: number; headersTimeout: number; keepAliveTimeout: number } }).server;
  t.equal(inner.requestTimeout, 30_000);
  t.equal(inner.headersTimeout, 30_000);
  t.equal(inner.keepAliveTimeout, 120_000);
});

t.test('stop() closes idle and busy connections promptly', async (t) => {
  const d = new Dispatcher({ methods: testMethods() });
  const server = new HttpRpcServer({ host: '127.0.0.1', port: 0, corsOrigins: [], vhosts: [], route: () => d });
  const { port } = await server.start();
  // An idle keep-alive connection that has already been served.
  const idle = connect(port, '127.0.0.1');
  const idleClosed = new Promise<void>((resolve) => idle.on('close', () => resolve()));
  idle.on('error', () => undefined);
  await new Promise<void>((resolve) => {
    idle.once('data', () => resolve());
    idle.write(`POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${CALL.length}\r\n\r\n${CALL}`);
  });
  // A connection waiting on a call that will not finish by itself.
  const busy = post(port, '{"jsonrpc":"2.0","id":1,"method":"gate"}').then(
    () => 'answered',
    () => 'dropped',
  );
  t.teardown(openGate);
  await new Promise((r) => setTimeout(r, 50));
  let timer: NodeJS.Timeout | undefined;
  const first = await Promise.race([
    server.stop().then(() => 'stopped'),
    new Promise((r) => (timer = setTimeout(() => r('stop() is waiting for the busy call'), 10_000))),
  ]);
  clearTimeout(timer);
  t.equal(first, 'stopped');
  await idleClosed;
  t.equal(await busy, 'dropped', 'the busy connection was closed');
});

t.test('a refused WebSocket upgrade is closed on the server side, though the client keeps its side open', async (t) => {
  const d = new Dispatcher({ methods: testMethods() });
  for (const fastPath of [true, false]) {
    const server = new HttpRpcServer({ host: '127.0.0.1', port: 0, corsOrigins: [], vhosts: ['localhost'], route: () => d, fastPath });
    const { port } = await server.start();
    const c = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    c.on('error', () => undefined);
    let text = '';
    c.on('data', (b: Buffer) => (text += b.toString('latin1')));
    const ended = new Promise<void>((resolve) => c.once('end', () => resolve()));
    // No WebSocket handler on this server: the upgrade is refused (404).
    c.write('GET / HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
    await ended;
    t.match(text, /^HTTP\/1\.1 404 Not Found\r\n/, `fast path ${fastPath}: refused`);
    // The client keeps its side open. The refused socket is neither read nor tracked by node:http:
    // it stayed open as long as the client's, and stop() waited for it.
    const outcome = await Promise.race([
      server.stop().then(() => 'stopped'),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5_000)),
    ]);
    t.equal(outcome, 'stopped', `fast path ${fastPath}: stop() completed`);
    c.destroy();
  }
});

t.test('a client that half-closes after its requests gets every reply, then the close', async (t) => {
  const body = (id: number, method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
  const head = (b: string) => `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\n\r\n${b}`;
  for (const fastPath of [true, false]) {
    const { port } = await serve(t, { fastPath });
    const c = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    c.on('error', () => undefined);
    let text = '';
    c.on('data', (b: Buffer) => (text += b.toString('latin1')));
    const closed = new Promise<void>((resolve) => c.once('close', () => resolve()));
    // The first call is still running when the FIN arrives: node:http's default would end the
    // socket then, and drop both replies.
    c.end(head(body(1, 'slow', [100, 'first'])) + head(body(2, 'echo', ['second'])));
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    const bodies = [...text.matchAll(/\r\n\r\n(\{[^\r]*?\})(?=HTTP|$)/g)].map((m) => m[1]);
    t.same(bodies, ['{"jsonrpc":"2.0","id":1,"result":"first"}', '{"jsonrpc":"2.0","id":2,"result":["second"]}'], `fast path ${fastPath}`);
    t.equal(c.destroyed, true, 'then closed');
  }
});
