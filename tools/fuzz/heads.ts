// Fuzz cases for the HTTP fast path (src/rpc/httpFastPath.ts): one to four requests on a
// connection, each a well-formed request of some kind mutated on its request line, header names,
// values and whitespace (tabs, obs-fold, control bytes), framing (duplicate or conflicting
// Content-Length, Transfer-Encoding, short and long bodies) and Connection tokens; then cut into
// writes at random points, with the client's FIN at a random point or none. A case is a pure
// function of (seed, index), so one disagreement replays without the rest.

import { Random } from '../lib/random.js';

export interface HeadCase {
  /** what the client sends, in order: each element is one write */
  writes: Buffer[];
  /** the client half-closes (FIN) after the last write */
  fin: boolean;
  /** one line per request, for people */
  summary: string[];
}

/** The hosts, origins and paths of the servers a case is sent to (headDiff.ts builds them so). */
export const HEAD_FUZZ_HOST = 'localhost';
export const HEAD_FUZZ_ORIGIN = 'http://app.example';

/** A header line: name, value, and what separates them after the colon (one space unless mutated). */
type Header = [name: string, value: string, gap?: string];

interface Request {
  kind: string;
  /** bytes before the request line (empty lines, stray bytes) */
  lead: string;
  method: string;
  target: string;
  version: string;
  headers: Header[];
  body: Buffer;
}

const CALLS = [
  '{"jsonrpc":"2.0","id":1,"method":"echo","params":["hi"]}',
  '{"jsonrpc":"2.0","id":"a","method":"echo","params":[1,2,3]}',
  '{"jsonrpc":"2.0","method":"echo","params":[]}',
  '[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]},{"jsonrpc":"2.0","id":2,"method":"fails"}]',
  '{"jsonrpc":"2.0","id":3,"method":"nope"}',
  '{"jsonrpc":',
  '',
  '[]',
  '{"jsonrpc":"2.0","id":9,"method":"echo","params":["ü€"]}',
];

function call(r: Random): Buffer {
  return Buffer.from(r.pick(CALLS));
}

/** A well-formed request of one of the kinds the endpoint sees. */
function baseRequest(r: Random): Request {
  const body = call(r);
  const post = (kind: string, headers: Header[], b: Buffer = body): Request => ({
    kind,
    lead: '',
    method: 'POST',
    target: '/',
    version: 'HTTP/1.1',
    headers: [...headers, ['Content-Length', String(b.length)]],
    body: b,
  });
  const bodiless = (kind: string, method: string, headers: Header[]): Request => ({ kind, lead: '', method, target: '/', version: 'HTTP/1.1', headers, body: Buffer.alloc(0) });
  const json: Header[] = [['Host', HEAD_FUZZ_HOST], ['Content-Type', 'application/json']];
  const k = r.int(100);
  if (k < 45) {
    // the simple call the fast path serves, with the extra headers clients send
    const headers = [...json];
    if (r.chance(0.3)) headers.push(['User-Agent', 'fuzz/1.0']);
    if (r.chance(0.3)) headers.push(['Accept', '*/*']);
    if (r.chance(0.2)) headers.push(['Origin', r.chance(0.6) ? HEAD_FUZZ_ORIGIN : 'http://other.example']);
    if (r.chance(0.3)) headers.push(['Connection', r.pick(['keep-alive', 'close', 'Keep-Alive', 'Close'])]);
    if (r.chance(0.3)) shuffle(r, headers);
    return post('call', headers);
  }
  if (k < 55) return bodiless('get', 'GET', [['Host', HEAD_FUZZ_HOST]]);
  if (k < 58) return bodiless('head', 'HEAD', [['Host', HEAD_FUZZ_HOST]]);
  if (k < 61) return bodiless('preflight', 'OPTIONS', [['Host', HEAD_FUZZ_HOST], ['Origin', HEAD_FUZZ_ORIGIN], ['Access-Control-Request-Method', 'POST']]);
  if (k < 65) return post('text/plain', [['Host', HEAD_FUZZ_HOST], ['Content-Type', 'text/plain']]);
  if (k < 68) return post('foreign host', [['Host', 'evil.example'], ['Content-Type', 'application/json']]);
  if (k < 71) return { ...post('unknown path', json), target: '/nope' };
  if (k < 75) {
    const chunked = Buffer.from(`${body.length.toString(16)}\r\n${body.toString('latin1')}\r\n0\r\n\r\n`, 'latin1');
    return { ...bodiless('chunked', 'POST', [...json, ['Transfer-Encoding', 'chunked']]), body: chunked };
  }
  if (k < 78) return { ...post('HTTP/1.0', json), version: 'HTTP/1.0' };
  if (k < 80) return post('expect', [...json, ['Expect', '100-continue']]);
  if (k < 82) {
    const ws: Header[] = [['Connection', 'Upgrade'], ['Upgrade', 'websocket'], ['Sec-WebSocket-Version', '13'], ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ==']];
    return bodiless('upgrade', 'GET', [['Host', HEAD_FUZZ_HOST], ...ws]);
  }
  if (k < 84) return bodiless('put', 'PUT', [...json, ['Content-Length', '0']]);
  // over the 5 MiB limit: refused on the declared length, the body never sent
  if (k < 86) return bodiless('oversized', 'POST', [...json, ['Content-Length', String(5 * 1024 * 1024 + 1)]]);
  return post('call', json);
}

const METHODS = ['POST', 'post', 'Post', 'PUT', 'GET', 'POSTX', 'PO', 'DELETE', 'PATCH', 'CONNECT', 'PRI', 'POST ', ' POST', 'P\tOST'];
const TARGETS = ['/', '/?a=1', '/#frag', '*', 'http://localhost/', '/%00', '/ a', '/a b', '//', '/..', '/?', '/"', '/<', '/>', '/\\', '/^', '/`', '/{', '/|', '/}', '/\x7f', '/é', '', '/\t', '/;x', "/'", '/%zz', '/@', '/~'];
const VERSIONS = ['HTTP/1.1', 'HTTP/1.0', 'HTTP/1.2', 'HTTP/2.0', 'http/1.1', 'HTTP/1.1 ', 'HTTP/1.10', 'HTTP/11', 'HTTP/1', '', 'HTTP/0.9', 'HTTP /1.1', 'HTTP/1.1\t', 'HTTP/9.9'];
const WHITESPACE = ['', ' ', '  ', '\t', ' \t', '\t ', '\r', '\n', '\x0b', '\x0c', '\x00'];
const CONTENT_LENGTHS = (n: number) => [String(n), `+${n}`, `-${n}`, `${n} `, `${n}\t`, ` ${n}`, `\t${n}`, `0${n}`, `${n},${n}`, `${n}, ${n}`, `0x${n.toString(16)}`, '', `${n}a`, '99999999999999999999', String(n + 1), String(Math.max(0, n - 1)), `${n} ${n}`, `${n}\x00`];
const CONNECTIONS = ['close', 'Close', 'CLOSE', 'close\t', 'close ', ' close', '\tclose', 'keep-alive', 'Keep-Alive', 'keep-alive, close', 'close, keep-alive', 'upgrade', 'foo', 'close,', ',close', 'te, close', 'closed', 'clos', 'close\t,', 'close;', 'keep-alive\t', 'close, upgrade', ''];
const HOSTS = ['localhost', 'LocalHost', 'localhost:8545', 'evil.example', '127.0.0.1', '[::1]', '[::1]:80', '', 'localhost.', 'localhost:', 'local host', '::1', 'localhost:abc', 'localhost\t', 'localhost '];
const TYPES = ['application/json', 'Application/JSON', 'application/json; charset=utf-8', 'application/json ;', 'application/json-rpc', 'application/jsonrequest', 'text/plain', 'application/jsonx', 'application/json\t', ' application/json', 'application/json,text/plain', ''];
const TRANSFER = ['chunked', 'Chunked', 'gzip, chunked', 'chunked, gzip', 'identity', 'chunked ', 'chunked\t', 'x', ''];
const NAMES = ['Content-Length', 'content-length', 'CONTENT-LENGTH', 'Host', 'host', 'Content-Type', 'Connection', 'Proxy-Connection', 'Transfer-Encoding', 'Expect', 'Upgrade', 'Origin', 'Keep-Alive', 'TE', 'Trailer', 'X-Fuzz', 'Content-Encoding', 'Authorization', 'Cookie'];

/** Mutations of one request, by name; each may change the framing (the body stays as it was, declared or not). */
const MUTATIONS: Record<string, (r: Random, q: Request) => void> = {
  method: (r, q) => void (q.method = r.pick(METHODS)),
  target: (r, q) => void (q.target = r.pick(TARGETS)),
  version: (r, q) => void (q.version = r.pick(VERSIONS)),
  length: (r, q) => setHeader(q, 'Content-Length', r.pick(CONTENT_LENGTHS(q.body.length))),
  secondLength: (r, q) => void q.headers.push(['Content-Length', r.pick(CONTENT_LENGTHS(q.body.length))]),
  connection: (r, q) => void q.headers.push([r.pick(['Connection', 'Connection', 'Proxy-Connection', 'connection']), r.pick(CONNECTIONS)]),
  host: (r, q) => setHeader(q, 'Host', r.pick(HOSTS)),
  secondHost: (r, q) => void q.headers.push(['Host', r.pick(HOSTS)]),
  noHost: (r, q) => void (q.headers = q.headers.filter(([n]) => n.toLowerCase() !== 'host')),
  type: (r, q) => setHeader(q, 'Content-Type', r.pick(TYPES)),
  secondType: (r, q) => void q.headers.push(['Content-Type', r.pick(TYPES)]),
  transferEncoding: (r, q) => void q.headers.push(['Transfer-Encoding', r.pick(TRANSFER)]),
  otherHeader: (r, q) => void q.headers.push([r.pick(NAMES), r.pick(['1', 'x', '100-continue', 'websocket', 'h2c', 'close', 'timeout=5', 'trailers', ''])]),
  origin: (r, q) => void q.headers.push(['Origin', r.pick([HEAD_FUZZ_ORIGIN, 'http://other.example', '', 'null'])]),
  valueSpace: (r, q) => {
    const h = r.pick(q.headers);
    if (h) [h[2], h[1]] = [r.pick(WHITESPACE), h[1] + r.pick(WHITESPACE)];
  },
  nameSpace: (r, q) => {
    const h = r.pick(q.headers);
    if (h) h[0] = r.chance(0.5) ? h[0] + r.pick(WHITESPACE) : r.pick(WHITESPACE) + h[0];
  },
  nameChar: (r, q) => {
    const h = r.pick(q.headers);
    if (h) h[0] = r.chance(0.5) ? h[0].toUpperCase() : insertAt(r, h[0], r.pick([' ', '@', '(', '"', '/', '\x01', 'é', '_', ':']));
  },
  obsFold: (r, q) => {
    const h = r.pick(q.headers);
    if (!h) return;
    const cut = r.int(h[1].length + 1);
    h[1] = `${h[1].slice(0, cut)}\r\n${r.pick([' ', '\t', '  '])}${h[1].slice(cut)}`;
  },
  valueByte: (r, q) => {
    const h = r.pick(q.headers);
    if (h) h[1] = insertAt(r, h[1], String.fromCharCode(r.pick([0, 1, 8, 0x0b, 0x0c, 0x0d, 0x0a, 0x1f, 0x7f, 0x80, 0xe9, 0xff])));
  },
  emptyName: (r, q) => void q.headers.push(['', 'x']),
  manyHeaders: (r, q) => void (q.headers = q.headers.concat(Array.from({ length: r.pick([10, 63, 64, 65, 100]) }, (_, i): Header => [`X-Many-${i}`, 'v']))),
  bigHeader: (r, q) => void q.headers.push(['X-Big', 'v'.repeat(r.pick([1000, 8000, 16_200, 16_300, 16_384, 17_000]))]),
  longBody: (r, q) => void (q.body = Buffer.concat([q.body, Buffer.from(r.pick(['x', '\r\n', 'GARBAGE', '{}']))])),
  shortBody: (r, q) => void (q.body = q.body.subarray(0, r.int(q.body.length + 1))),
  lead: (r, q) => void (q.lead = r.pick(['\r\n', '\r\n\r\n', '\n', ' ', '\x00'])),
  order: (r, q) => void shuffle(r, q.headers),
};
const MUTATION_NAMES = Object.keys(MUTATIONS);

function setHeader(q: Request, name: string, value: string): void {
  const h = q.headers.find(([n]) => n.toLowerCase() === name.toLowerCase());
  if (h) h[1] = value;
  else q.headers.push([name, value]);
}

function insertAt(r: Random, s: string, piece: string): string {
  const at = r.int(s.length + 1);
  return s.slice(0, at) + piece + s.slice(at);
}

function shuffle<T>(r: Random, items: T[]): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [items[i], items[j]] = [items[j], items[i]];
  }
}

function render(q: Request): Buffer {
  let head = `${q.lead}${q.method} ${q.target}${q.version === '' ? '' : ` ${q.version}`}`;
  for (const [name, value, gap] of q.headers) head += `\r\n${name}:${gap ?? ' '}${value}`;
  return Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), q.body]);
}

/** A few bytes of something that is not HTTP at all. */
function junk(r: Random): Buffer {
  const pieces = ['GARBAGE', 'GET', 'POS', '\r\n', '\x16\x03\x01\x02\x00', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', '{"jsonrpc":"2.0"}', 'POST / HTTP/1.1', 'HTTP/1.1 200 OK\r\n\r\n', ' '];
  const n = r.range(1, 3);
  const bytes: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    if (r.chance(0.3)) bytes.push(Buffer.from(Array.from({ length: r.range(1, 12) }, () => r.int(256))));
    else bytes.push(Buffer.from(r.pick(pieces), 'latin1'));
  }
  return Buffer.concat(bytes);
}

/** Case `index` of the run with `seed`. */
export function headCase(seed: number, index: number): HeadCase {
  const r = new Random(seed, 0x68656164 /* 'head' */, index);
  const count = r.chance(0.55) ? 1 : r.chance(0.55) ? 2 : r.range(3, 4);
  const parts: Buffer[] = [];
  const summary: string[] = [];
  for (let i = 0; i < count; i++) {
    if (r.chance(0.04)) {
      const j = junk(r);
      parts.push(j);
      summary.push(`junk ${JSON.stringify(j.toString('latin1'))}`);
      continue;
    }
    const q = baseRequest(r);
    // Unmutated requests often, so that the fast path has whole connections to serve too.
    const n = r.chance(0.45) ? 0 : r.chance(0.6) ? 1 : r.range(2, 3);
    const applied: string[] = [];
    for (let m = 0; m < n; m++) {
      const name = r.pick(MUTATION_NAMES);
      MUTATIONS[name](r, q);
      applied.push(name);
    }
    parts.push(render(q));
    summary.push(`${q.kind}${applied.length ? ` (${applied.join(', ')})` : ''}`);
  }
  let bytes = Buffer.concat(parts);
  // A byte flipped, inserted or deleted anywhere, now and then.
  if (r.chance(0.05) && bytes.length > 0) {
    const at = r.int(bytes.length);
    const b = Buffer.from(bytes);
    const op = r.int(3);
    if (op === 0) b[at] = r.int(256);
    bytes = op === 0 ? b : op === 1 ? Buffer.concat([b.subarray(0, at), Buffer.from([r.int(256)]), b.subarray(at)]) : Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]);
    summary.push(`byte ${op === 0 ? 'changed' : op === 1 ? 'inserted' : 'deleted'} at ${at}`);
  }
  // The client's FIN: none, after everything, or after a random prefix (the rest is never sent).
  const finRoll = r.int(4);
  const fin = finRoll >= 2;
  if (finRoll === 3) bytes = bytes.subarray(0, r.int(bytes.length + 1));
  return { writes: cut(r, bytes), fin, summary };
}

/** Splits the bytes into writes: often whole, sometimes in a few pieces, now and then byte-sized ones. */
function cut(r: Random, bytes: Buffer): Buffer[] {
  const roll = r.int(10);
  const pieces = roll < 4 || bytes.length < 2 ? 1 : roll < 8 ? r.range(2, 3) : r.range(4, 8);
  const points = new Set<number>();
  while (points.size < Math.min(pieces - 1, bytes.length - 1)) points.add(r.range(1, bytes.length - 1));
  const sorted = [...points].sort((a, b) => a - b);
  const writes: Buffer[] = [];
  let from = 0;
  for (const p of [...sorted, bytes.length]) {
    writes.push(bytes.subarray(from, p));
    from = p;
  }
  return writes.filter((w) => w.length > 0);
}
