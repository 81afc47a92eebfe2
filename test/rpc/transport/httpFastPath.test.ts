// The HTTP fast path (src/rpc/httpFastPath.ts): the same bytes as node:http for the same request,
// hand-off to node:http mid-connection (with pipelined and half-received bytes), ordering,
// Connection: close, timeouts, limits, and WebSocket upgrades after a hand-off.

import t, { type Test } from 'tap';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { Dispatcher } from '../../../src/rpc/dispatch.js';
import { HttpRpcServer, type HttpServerOptions } from '../../../src/rpc/http.js';
import { WsRpcServer } from '../../../src/rpc/ws.js';
import { testMethods } from './fixture.js';

const CALL = '{"jsonrpc":"2.0","id":1,"method":"echo","params":["hi"]}';
const REPLY = '{"jsonrpc":"2.0","id":1,"result":["hi"]}';
const WAIT_MS = 5_000;

async function serve(t: Test, o: Partial<HttpServerOptions> = {}) {
  const d = new Dispatcher({ methods: testMethods() });
  const server = new HttpRpcServer({ host: '127.0.0.1', port: 0, corsOrigins: ['http://app.example'], vhosts: ['localhost'], route: (p) => (p === '/' ? d : undefined), ...o });
  const { port } = await server.start();
  t.teardown(() => server.stop());
  /** connections the fast path still holds (not handed to node:http) */
  const onFastPath = () => (server as unknown as { fast: { size: number } }).fast.size;
  return { server, port, onFastPath };
}

const postHead = (body: string, extra = '') =>
  `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const getHead = 'GET / HTTP/1.1\r\nHost: localhost\r\n\r\n';

interface Response {
  head: string;
  status: number;
  body: string;
}

/** A raw connection that splits what it reads into HTTP responses. */
class RawClient {
  readonly socket: Socket;
  private buf = Buffer.alloc(0);
  private readonly responses: Response[] = [];
  private wake: (() => void) | undefined;
  closed = false;
  readonly closedPromise: Promise<void>;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('error', () => undefined);
    this.socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.split();
      this.wake?.();
    });
    this.closedPromise = new Promise((resolve) =>
      this.socket.on('close', () => {
        this.closed = true;
        this.wake?.();
        resolve();
      }),
    );
  }

  private split(): void {
    for (;;) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.buf.toString('latin1', 0, end);
      const m = /\r\ncontent-length: *(\d+)/i.exec(head);
      const length = m ? Number(m[1]) : 0;
      if (this.buf.length < end + 4 + length) return;
      const body = this.buf.toString('utf8', end + 4, end + 4 + length);
      this.buf = this.buf.subarray(end + 4 + length);
      this.responses.push({ head, status: Number(head.split(' ')[1]), body });
    }
  }

  /** Waits for `n` responses (fewer if the connection closes first); bounded. */
  async read(n: number): Promise<Response[]> {
    const deadline = Date.now() + WAIT_MS;
    while (this.responses.length < n && !this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 50);
      });
    }
    return this.responses.splice(0, n);
  }

  write(s: string | Buffer): Promise<void> {
    return new Promise((resolve) => this.socket.write(s, () => resolve()));
  }
}

/** The head with the Date line removed (it is the only part allowed to differ). */
const undated = (r: Response) => r.head.replace(/\r\nDate: [^\r]*/, '');

async function exchange(port: number, bytes: string, n: number): Promise<Response[]> {
  const c = new RawClient(port);
  await c.write(bytes);
  const got = await c.read(n);
  c.socket.destroy();
  return got;
}

t.test('the fast path answers with the bytes node:http sends, for calls and for what it hands over', async (t) => {
  const fast = await serve(t);
  const plain = await serve(t, { fastPath: false });
  const cases: [string, string][] = [
    ['a call', postHead(CALL)],
    ['a notification', postHead('{"jsonrpc":"2.0","method":"echo"}')],
    ['bad JSON', postHead('{"jsonrpc":')],
    ['an empty body', postHead('')],
    ['a handler that throws', postHead('{"jsonrpc":"2.0","id":7,"method":"throws"}')],
    ['a multi-byte reply', postHead('{"jsonrpc":"2.0","id":"é","method":"echo","params":["ü€"]}')],
    ['an allowed origin', postHead(CALL, 'Origin: http://app.example\r\n')],
    ['another origin', postHead(CALL, 'Origin: http://other.example\r\n')],
    ['Connection: close', postHead(CALL, 'Connection: close\r\n')],
    ['Connection: keep-alive', postHead(CALL, 'Connection: Keep-Alive\r\n')],
    ['a charset', postHead(CALL).replace('application/json', 'application/json; charset=utf-8')],
    ['a query string', postHead(CALL).replace('POST / ', 'POST /?a=1 ')],
    ['host with port', postHead(CALL).replace('Host: localhost', 'Host: localhost:8545')],
    ['an IP host', postHead(CALL).replace('Host: localhost', 'Host: 127.0.0.1:8545')],
    // handed over: node:http's own answers
    ['GET health check', getHead],
    ['HEAD', 'HEAD / HTTP/1.1\r\nHost: localhost\r\n\r\n'],
    ['PUT', postHead(CALL).replace('POST', 'PUT')],
    ['OPTIONS preflight', 'OPTIONS / HTTP/1.1\r\nHost: localhost\r\nOrigin: http://app.example\r\nAccess-Control-Request-Method: POST\r\n\r\n'],
    ['text/plain', postHead(CALL).replace('application/json', 'text/plain')],
    ['no content type', postHead(CALL).replace('Content-Type: application/json\r\n', '')],
    ['a foreign host', postHead(CALL).replace('Host: localhost', 'Host: evil.example')],
    ['no host', postHead(CALL).replace('Host: localhost\r\n', '')],
    ['unknown path', postHead(CALL).replace('POST / ', 'POST /nope ')],
    ['HTTP/1.0', postHead(CALL).replace('HTTP/1.1', 'HTTP/1.0')],
    ['duplicate Content-Length', postHead(CALL, `Content-Length: ${CALL.length}\r\n`)],
    ['conflicting Content-Length', postHead(CALL, 'Content-Length: 3\r\n')],
    ['duplicate Host', postHead(CALL, 'Host: localhost\r\n')],
    ['a bad Content-Length', postHead(CALL).replace(/Content-Length: \d+/, 'Content-Length: 5x')],
    ['space before a colon', postHead(CALL).replace('Host:', 'Host :')],
    ['bare LF line ends', postHead(CALL).replace(/\r\n/g, '\n')],
    ['chunked', `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${CALL.length.toString(16)}\r\n${CALL}\r\n0\r\n\r\n`],
    ['Expect: 100-continue', postHead(CALL, 'Expect: 100-continue\r\n')],
    ['oversized Content-Length', postHead('').replace('Content-Length: 0', `Content-Length: ${5 * 1024 * 1024 + 1}`)],
  ];
  for (const [name, bytes] of cases) {
    const [a] = await exchange(fast.port, bytes, 1);
    const [b] = await exchange(plain.port, bytes, 1);
    t.ok(a !== undefined && b !== undefined, `${name}: both answered`);
    if (a === undefined || b === undefined) continue;
    t.equal(undated(a), undated(b), `${name}: same head`);
    t.equal(a.body, b.body, `${name}: same body`);
  }
  const [ok] = await exchange(fast.port, postHead(CALL), 1);
  t.equal(ok.status, 200);
  t.equal(ok.body, REPLY);
  t.match(ok.head, /\r\nDate: \w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT/);
  const [big] = await exchange(fast.port, cases.find(([n]) => n === 'oversized Content-Length')![1], 1);
  t.equal(big.status, 413);
  const [dup] = await exchange(fast.port, cases.find(([n]) => n === 'conflicting Content-Length')![1], 1);
  t.equal(dup.status, 400);
});

t.test('fast-path calls, then a GET (hand-off), then more calls on the same connection', async (t) => {
  const { port, onFastPath } = await serve(t);
  const c = new RawClient(port);
  t.teardown(() => c.socket.destroy());
  for (let i = 0; i < 3; i++) {
    await c.write(postHead(`{"jsonrpc":"2.0","id":${i},"method":"echo","params":[${i}]}`));
    const [r] = await c.read(1);
    t.equal(r.body, `{"jsonrpc":"2.0","id":${i},"result":[${i}]}`);
  }
  t.equal(onFastPath(), 1, 'still on the fast path');
  await c.write(getHead);
  const [health] = await c.read(1);
  t.equal(health.status, 200);
  t.equal(health.body, '');
  t.equal(onFastPath(), 0, 'handed to node:http');
  for (let i = 3; i < 6; i++) {
    await c.write(postHead(`{"jsonrpc":"2.0","id":${i},"method":"echo","params":[${i}]}`));
    const [r] = await c.read(1);
    t.equal(r.body, `{"jsonrpc":"2.0","id":${i},"result":[${i}]}`, 'node:http answers the rest');
  }
  t.equal(c.closed, false, 'the connection stayed open');
});

t.test('a head repeated byte for byte reuses its parse; a head differing in one byte is judged afresh', async (t) => {
  const { port, onFastPath } = await serve(t);
  const c = new RawClient(port);
  t.teardown(() => c.socket.destroy());
  // Same head (same length), different bodies: each reply is its own body's.
  for (const word of ['aa', 'bb', 'cc']) {
    await c.write(postHead(`{"jsonrpc":"2.0","id":1,"method":"echo","params":["${word}"]}`));
    const [r] = await c.read(1);
    t.equal(r.body, `{"jsonrpc":"2.0","id":1,"result":["${word}"]}`);
  }
  // One byte of the Origin changed: the first is allowed (CORS header), the second is not.
  await c.write(postHead(CALL, 'Origin: http://app.example\r\n'));
  const [allowed] = await c.read(1);
  t.match(allowed.head, /Access-Control-Allow-Origin: http:\/\/app\.example/);
  await c.write(postHead(CALL, 'Origin: http://app.exampld\r\n'));
  const [other] = await c.read(1);
  t.notMatch(other.head, /Access-Control-Allow-Origin/, 'another origin gets no CORS header');
  t.equal(onFastPath(), 1, 'still on the fast path');
  // One byte of the Host changed: refused by node:http (the connection is handed over).
  await c.write(postHead(CALL).replace('Host: localhost', 'Host: localhosx'));
  const [foreign] = await c.read(1);
  t.equal(foreign.status, 403, 'a foreign host is refused after the same head was served');
  t.equal(onFastPath(), 0, 'handed to node:http');
});

t.test('pipelined requests are answered in order, across a hand-off', async (t) => {
  const { server, port } = await serve(t);
  const counts = server.fastPathCounts;
  const call = (id: number, ms: number) => postHead(`{"jsonrpc":"2.0","id":${id},"method":"slow","params":[${ms},${id}]}`);
  const expected = [
    '{"jsonrpc":"2.0","id":1,"result":1}',
    '{"jsonrpc":"2.0","id":2,"result":2}',
    '{"jsonrpc":"2.0","id":3,"result":3}',
    '',
    '{"jsonrpc":"2.0","id":4,"result":4}',
    '{"jsonrpc":"2.0","id":5,"result":5}',
  ];
  // Earlier calls take longer: replies must still come in request order. In one write, the GET
  // sends all six to node:http before any is answered (it reads them together); in two writes, the
  // fast path answers the call it had begun and then hands every request not yet answered over.
  const first = call(1, 60) + call(2, 30) + call(3, 0);
  const rest = getHead + call(4, 20) + call(5, 0);
  const together = await exchange(port, first + rest, 6);
  t.same(together.map((r) => r.body), expected, 'one write');
  t.same([counts.requests, counts.handOvers], [0, 1]);
  const c = new RawClient(port);
  t.teardown(() => c.socket.destroy());
  await c.write(first);
  await new Promise((resolve) => setTimeout(resolve, 10)); // the calls are running
  await c.write(rest);
  const split = await c.read(6);
  t.same(split.map((r) => r.status), [200, 200, 200, 200, 200, 200]);
  t.same(split.map((r) => r.body), expected, 'two writes');
  t.same([counts.requests, counts.handOvers], [1, 2]);
});

t.test('a long pipeline (far past the read-ahead bound) and a large body in pieces are all answered, in order', async (t) => {
  const { port, onFastPath } = await serve(t);
  const c = new RawClient(port);
  t.teardown(() => c.socket.destroy());
  const N = 3000;
  let bytes = '';
  for (let i = 0; i < N; i++) bytes += postHead(`{"jsonrpc":"2.0","id":${i},"method":"echo","params":[${i}]}`);
  await c.write(bytes);
  const replies = await c.read(N);
  t.equal(replies.length, N);
  t.equal(replies.filter((r, i) => r.body !== `{"jsonrpc":"2.0","id":${i},"result":[${i}]}`).length, 0, 'every reply, in order');
  const big = `{"jsonrpc":"2.0","id":1,"method":"returnsNull","params":["${'x'.repeat(4 * 1024 * 1024)}"]}`;
  const whole = Buffer.from(postHead(big) + postHead(CALL));
  for (let at = 0; at < whole.length; at += 100_000) await c.write(whole.subarray(at, at + 100_000));
  const [r1, r2] = await c.read(2);
  t.equal(r1?.body, '{"jsonrpc":"2.0","id":1,"result":null}');
  t.equal(r2?.body, REPLY);
  t.equal(onFastPath(), 1, 'all on the fast path');
});

t.test('a request sent one byte at a time; a hand-off in the middle of a head', async (t) => {
  const { port, onFastPath } = await serve(t);
  const c = new RawClient(port);
  t.teardown(() => c.socket.destroy());
  for (const byte of Buffer.from(postHead(CALL))) await c.write(Buffer.from([byte]));
  const [r] = await c.read(1);
  t.equal(r.body, REPLY);
  t.equal(onFastPath(), 1, 'served by the fast path');
  // A head that turns out to be chunked half-way: node:http must see every byte of it.
  const chunked = `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${CALL.length.toString(16)}\r\n${CALL}\r\n0\r\n\r\n`;
  for (const byte of Buffer.from(chunked)) await c.write(Buffer.from([byte]));
  const [r2] = await c.read(1);
  t.equal(r2.status, 200);
  t.equal(r2.body, REPLY);
  t.equal(onFastPath(), 0);
});

t.test('Connection: close ends the connection after the reply; later bytes are not answered', async (t) => {
  const { port, onFastPath } = await serve(t);
  const c = new RawClient(port);
  await c.write(postHead(CALL, 'Connection: close\r\n'));
  const [reply] = await c.read(1);
  t.match(reply.head, /\r\nConnection: close(\r\n|$)/);
  t.equal(reply.body, REPLY);
  await c.write(postHead(CALL)); // after the reply: not read
  await c.closedPromise;
  t.same(await c.read(1), [], 'nothing more');
  t.equal(onFastPath(), 0);
  // Pipelined behind it, node:http refuses the request that follows ("Data after Connection: close")
  // and drops the connection: the pair goes to node:http, which answers so.
  const [a] = await exchange(port, postHead(CALL, 'Connection: close\r\n') + postHead(CALL), 2);
  t.equal(a?.status, 400);
});

t.test('the idle limit closes a quiet connection; a request still arriving at its deadline gets 408', async (t) => {
  const { port, onFastPath } = await serve(t, { idleTimeoutMs: 300, requestTimeoutMs: 400 });
  const idle = new RawClient(port);
  await idle.write(postHead(CALL));
  t.equal((await idle.read(1))[0].body, REPLY);
  await idle.closedPromise;
  t.pass('idle connection closed');
  const slow = new RawClient(port);
  await slow.write('POST / HTTP/1.1\r\nHost: local');
  const [r] = await slow.read(1);
  t.equal(r?.status, 408);
  await slow.closedPromise;
  t.equal(onFastPath(), 0);
});

t.test('WebSocket upgrades still work: on a fresh connection, and after fast-path calls on the same one', async (t) => {
  const upgrades = new WsRpcServer();
  t.teardown(() => upgrades.stop());
  const { port } = await serve(t, { websocket: upgrades });
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`, { headers: { Host: 'localhost' } });
  ws.on('error', () => undefined);
  const reply = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no WebSocket reply')), WAIT_MS);
    ws.on('open', () => ws.send(CALL));
    ws.on('message', (m) => {
      clearTimeout(timer);
      resolve(String(m));
    });
  });
  t.equal(reply, REPLY);
  ws.close();
  const c = new RawClient(port);
  t.teardown(() => c.socket.destroy());
  await c.write(postHead(CALL));
  t.equal((await c.read(1))[0].body, REPLY);
  const got = new Promise<string>((resolve) => {
    let text = '';
    const onData = (d: Buffer) => {
      text += d.toString('latin1');
      if (text.includes('\r\n\r\n')) resolve(text);
    };
    c.socket.on('data', onData);
    setTimeout(() => resolve(text), WAIT_MS);
  });
  await c.write('GET / HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
  const handshake = await got;
  t.match(handshake, /^HTTP\/1\.1 101 /);
  t.match(handshake, /Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=/);
});

t.test('stop() drops fast-path and handed-over connections alike', async (t) => {
  const d = new Dispatcher({ methods: testMethods() });
  const server = new HttpRpcServer({ host: '127.0.0.1', port: 0, corsOrigins: [], vhosts: [], route: () => d });
  const { port } = await server.start();
  const fast = new RawClient(port);
  await fast.write(postHead(CALL));
  await fast.read(1);
  const handed = new RawClient(port);
  await handed.write(getHead);
  await handed.read(1);
  const half = new RawClient(port);
  await half.write('POST / HTTP/1.1\r\n');
  await new Promise((r) => setTimeout(r, 50));
  await server.stop();
  await Promise.all([fast.closedPromise, handed.closedPromise, half.closedPromise]);
  t.pass('all three closed');
});

t.test('a refused upload is read and dropped for a moment after the 413, then the connection is closed', async (t) => {
  const { port } = await serve(t);
  // allowHalfOpen: the client keeps writing after the server's FIN, as an uploading client does.
  const c = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  t.teardown(() => c.destroy());
  let text = '';
  let error: string | undefined;
  c.on('data', (d: Buffer) => (text += d.toString('latin1')));
  c.on('error', (e: NodeJS.ErrnoException) => (error = e.code));
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  c.write(`POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${6 * 1024 * 1024}\r\n\r\n`);
  for (let i = 0; i < 100 && !text.includes('\r\n\r\n'); i++) await sleep(20);
  t.match(text, /^HTTP\/1\.1 413 /);
  // Still sending, well inside the linger: no reset.
  for (let i = 0; i < 3; i++) {
    await new Promise<void>((resolve) => c.write(Buffer.alloc(64 * 1024, 0x20), () => resolve()));
    await sleep(30);
  }
  t.equal(error, undefined, 'the server was still reading');
  // Past the linger the server has closed: a write now fails (EPIPE or ECONNRESET).
  for (let i = 0; i < 100 && error === undefined; i++) {
    c.write(Buffer.alloc(1024));
    await sleep(50);
  }
  t.match(error, /^(EPIPE|ECONNRESET)$/, 'then the connection was closed');
});

t.test('half-closes and resets at awkward moments leave the server answering', async (t) => {
  const { port } = await serve(t);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  // A call, then a GET and the client's end, all while the call still runs: both are answered
  // (node:http takes both, and lets the client half-close), then the connection is closed.
  const halfOpen = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  halfOpen.on('error', () => undefined);
  let text = '';
  halfOpen.on('data', (d: Buffer) => (text += d.toString('latin1')));
  const closed = new Promise<void>((resolve) => halfOpen.on('close', () => resolve()));
  halfOpen.end(postHead('{"jsonrpc":"2.0","id":1,"method":"slow","params":[50,1]}') + getHead);
  await Promise.race([closed, sleep(WAIT_MS)]);
  t.match(text, /^HTTP\/1\.1 200 OK[\s\S]*\{"jsonrpc":"2\.0","id":1,"result":1\}HTTP\/1\.1 200 OK\r\n[\s\S]*Content-Length: 0\r\n/);
  t.equal(halfOpen.destroyed, true, 'closed after the answer');
  // Resets: mid-head, mid-body, and while a call runs.
  for (const bytes of ['POST / HTTP/1.1\r\nHo', postHead(CALL).slice(0, -5), postHead('{"jsonrpc":"2.0","id":1,"method":"slow","params":[30]}')]) {
    const c = connect(port, '127.0.0.1');
    c.on('error', () => undefined);
    await new Promise<void>((resolve) => c.once('connect', () => resolve()));
    c.write(bytes);
    await sleep(10);
    c.resetAndDestroy();
  }
  await sleep(60);
  t.equal((await exchange(port, postHead(CALL), 1))[0]?.body, REPLY, 'still serving');
});

t.test('a request whose head arrived on the fast path keeps its deadline after the hand-off', async (t) => {
  // requestTimeoutMs 400; node:http checks its own deadlines only every 5 s, so a close well
  // before that is the carried deadline's.
  const { port } = await serve(t, { requestTimeoutMs: 400 });
  const c = new RawClient(port);
  t.teardown(() => c.socket.destroy());
  await c.write('POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n');
  await new Promise((r) => setTimeout(r, 200));
  await c.write('Transfer-Encoding: chunked\r\n\r\n5\r\nab'); // handed over, body never finished
  const first = await Promise.race([c.closedPromise.then(() => 'closed'), new Promise((r) => setTimeout(() => r('still open'), 2_500))]);
  t.equal(first, 'closed');
  const [r] = await c.read(1);
  t.equal(r?.status, 408);
  // A request handed over whole is not cut: the health check and later calls are served.
  const ok = new RawClient(port);
  t.teardown(() => ok.socket.destroy());
  await ok.write(getHead);
  t.equal((await ok.read(1))[0]?.status, 200);
  await new Promise((r) => setTimeout(r, 600));
  await ok.write(postHead(CALL));
  t.equal((await ok.read(1))[0]?.body, REPLY, 'the connection outlived the first deadline');
});
