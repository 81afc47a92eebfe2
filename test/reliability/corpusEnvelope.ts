// Corpus rows about the message rather than the method: bad JSON, the JSON-RPC envelope,
// batches, HTTP, nesting, huge values, and IPC framing. See corpus.ts for the row format.

import type { CorpusCase, CorpusEnv, Target } from './corpus.js';
import { body, call, note, per, same, typed, zeroArg } from './corpusBuild.js';

const MiB = 1024 * 1024;
const PARSE = { code: -32700, id: null };
const INVALID = { code: -32600, message: /^invalid request$/ };
const INVALID_NULL = { ...INVALID, id: null };
const TOO_DEEP = { code: -32600, id: null, message: /nesting deeper than 128/ };

/** Not over IPC: a stream cannot carry it as one value (unbalanced, or several values). */
const httpOnly = (text: string | Buffer | (() => string | Buffer)) => (t: Target) =>
  t === 'ipc' ? undefined : typeof text === 'function' ? text() : text;
const ipcOnly = (text: string | (() => string)) => (t: Target) => (t !== 'ipc' ? undefined : typeof text === 'function' ? text() : text);

/** The zero-argument call of each endpoint with the raw JSON members `inner` around it. */
function raw(inner: (method: string, params: string) => string) {
  return per({
    vnode: inner('"mc_blockNumber"', '[]'),
    scs: inner('"scs_getMicroChainList"', '[]'),
    scsdebug: inner('"ScsRPCMethod.GetScsId"', '{}'),
  });
}
const nested = (depth: number, leaf = '') => '['.repeat(depth) + leaf + ']'.repeat(depth);

export function envelopeCases(env: CorpusEnv): CorpusCase[] {
  const t = typed(env);
  const batchOf = (n: number, make: (i: number) => string) => '[' + Array.from({ length: n }, (_, i) => make(i)).join(',') + ']';
  const zero = (id: number) => (target: Target) => zeroArg(id)(target)!;
  // 2 MiB of return data per call: about 4.2 MB of reply each, so the seventh crosses 25,000,000 bytes.
  const bigCall = (id: number) => call('mc_call', [{ to: env.bigReturn, data: '0x' + (2 * MiB).toString(16).padStart(64, '0') }, 'latest'], id);
  const http = (method: string, extra: Partial<CorpusCase> = {}): Partial<CorpusCase> => ({ http: { method, ...extra.http } });

  const rows: CorpusCase[] = [
    // --- bad JSON: -32700, id null, HTTP 200 ------------------------------------------------
    { name: 'truncated object', category: 'bad-json', request: httpOnly('{"jsonrpc":"2.0","id":1,"method":"mc_blockNumber"'), expect: PARSE },
    { name: 'trailing comma', category: 'bad-json', request: raw((m, p) => `{"jsonrpc":"2.0","id":1,"method":${m},"params":${p},}`), expect: PARSE },
    { name: 'single quotes', category: 'bad-json', request: same("{'jsonrpc':'2.0','id':1,'method':'mc_blockNumber'}"), expect: PARSE },
    { name: 'NaN literal', category: 'bad-json', request: raw((m) => `{"jsonrpc":"2.0","id":NaN,"method":${m}}`), expect: PARSE },
    { name: 'comment', category: 'bad-json', request: raw((m) => `{"jsonrpc":"2.0",/* x */"id":1,"method":${m}}`), expect: PARSE },
    { name: 'unquoted keys', category: 'bad-json', request: same('{jsonrpc:"2.0",id:1,method:"mc_blockNumber"}'), expect: PARSE },
    { name: 'byte order mark', category: 'bad-json', request: httpOnly('\ufeff' + call('mc_blockNumber', [])), expect: PARSE },
    { name: 'empty body', category: 'bad-json', request: httpOnly(''), expect: PARSE },
    { name: 'whitespace only', category: 'bad-json', request: httpOnly(' \n\t\r '), expect: PARSE },
    { name: 'binary garbage', category: 'bad-json', request: httpOnly(Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80])), expect: PARSE },
    { name: 'two values in one HTTP body', category: 'bad-json', request: httpOnly(call('mc_blockNumber', []) + call('mc_blockNumber', [])), expect: PARSE },
    { name: 'invalid escape', category: 'bad-json', request: same('{"jsonrpc":"2.0","id":1,"method":"mc_\\x"}'), expect: PARSE },
    { name: 'raw control character in a string', category: 'bad-json', request: same('{"jsonrpc":"2.0","id":1,"method":"mc_block\tNumber"}'), expect: PARSE },
    { name: 'unterminated string', category: 'bad-json', request: httpOnly('{"jsonrpc":"2.0","id":1,"method":"mc_blockNumber}'), expect: PARSE },
    { name: 'number with leading zero', category: 'bad-json', request: raw((m) => `{"jsonrpc":"2.0","id":01,"method":${m}}`), expect: PARSE },
    { name: 'hex number literal', category: 'bad-json', request: raw((m) => `{"jsonrpc":"2.0","id":0x1,"method":${m}}`), expect: PARSE },
    { name: 'stray closing brace', category: 'bad-json', request: same('}'), expect: PARSE },

    // --- envelope ---------------------------------------------------------------------------
    { name: 'jsonrpc "1.0"', category: 'envelope', request: raw((m, p) => `{"jsonrpc":"1.0","id":1,"method":${m},"params":${p}}`), expect: { ...INVALID, id: 1 } },
    { name: 'jsonrpc missing', category: 'envelope', request: raw((m, p) => `{"id":1,"method":${m},"params":${p}}`), expect: { ...INVALID, id: 1 } },
    { name: 'jsonrpc as a number', category: 'envelope', request: raw((m, p) => `{"jsonrpc":2.0,"id":1,"method":${m},"params":${p}}`), expect: { ...INVALID, id: 1 } },
    { name: 'jsonrpc "2.00"', category: 'envelope', request: raw((m, p) => `{"jsonrpc":"2.00","id":1,"method":${m},"params":${p}}`), expect: { ...INVALID, id: 1 } },
    { name: 'id an object', category: 'envelope', request: raw((m, p) => `{"jsonrpc":"2.0","id":{"a":1},"method":${m},"params":${p}}`), expect: INVALID_NULL },
    { name: 'id an array', category: 'envelope', request: raw((m, p) => `{"jsonrpc":"2.0","id":[1],"method":${m},"params":${p}}`), expect: INVALID_NULL },
    { name: 'id a boolean', category: 'envelope', request: raw((m, p) => `{"jsonrpc":"2.0","id":true,"method":${m},"params":${p}}`), expect: INVALID_NULL },
    { name: 'id a fraction', category: 'envelope', request: zeroArg(1.5), expect: { code: 'ok', id: 1.5 } },
    { name: 'id negative', category: 'envelope', request: zeroArg(-7), expect: { code: 'ok', id: -7 } },
    { name: 'id a string', category: 'envelope', request: zeroArg('abc'), expect: { code: 'ok', id: 'abc' } },
    { name: 'id null is a call', category: 'envelope', request: zeroArg(null), expect: { code: 'ok', id: null } },
    { name: 'method a number', category: 'envelope', request: same(body({ id: 1, method: 5, params: [] })), expect: { ...INVALID, id: 1 } },
    { name: 'method null', category: 'envelope', request: same(body({ id: 1, method: null, params: [] })), expect: { ...INVALID, id: 1 } },
    { name: 'method an array', category: 'envelope', request: same(body({ id: 1, method: ['mc_blockNumber'], params: [] })), expect: { ...INVALID, id: 1 } },
    { name: 'method an object', category: 'envelope', request: same(body({ id: 1, method: { name: 'mc_blockNumber' }, params: [] })), expect: { ...INVALID, id: 1 } },
    { name: 'method missing', category: 'envelope', request: same(body({ id: 1, params: [] })), expect: { ...INVALID, id: 1 } },
    { name: 'params a string', category: 'envelope', request: raw((m) => `{"jsonrpc":"2.0","id":1,"method":${m},"params":"x"}`), expect: { ...INVALID, id: 1 } },
    { name: 'params a number', category: 'envelope', request: raw((m) => `{"jsonrpc":"2.0","id":1,"method":${m},"params":3}`), expect: { ...INVALID, id: 1 } },
    { name: 'params a boolean', category: 'envelope', request: raw((m) => `{"jsonrpc":"2.0","id":1,"method":${m},"params":true}`), expect: { ...INVALID, id: 1 } },
    { name: 'params null', category: 'envelope', request: raw((m) => `{"jsonrpc":"2.0","id":1,"method":${m},"params":null}`), expect: { ...INVALID, id: 1 } },
    {
      name: 'named params for a positional method',
      category: 'envelope',
      request: raw((m) => `{"jsonrpc":"2.0","id":1,"method":${m},"params":{"a":1}}`),
      expect: { code: -32602, message: /expected an array/ },
      except: { scsdebug: { code: 'ok' } },
    },
    { name: 'positional params for rpcdebug, and too many for the rest', category: 'envelope', request: raw((m) => `{"jsonrpc":"2.0","id":1,"method":${m},"params":[1]}`), expect: { code: -32602 } },
    { name: 'unknown extra members are ignored', category: 'envelope', request: raw((m, p) => `{"jsonrpc":"2.0","id":1,"method":${m},"params":${p},"result":2,"error":{},"x":[]}`), expect: { code: 'ok', id: 1 } },
    { name: 'duplicated keys: the last wins', category: 'envelope', request: raw((m, p) => `{"jsonrpc":"2.0","id":1,"id":2,"method":"nosuch","method":${m},"params":${p}}`), expect: { code: 'ok', id: 2 } },
    { name: 'notification: no reply', category: 'envelope', request: per({ vnode: note('mc_blockNumber'), scs: note('scs_getMicroChainList'), scsdebug: note('ScsRPCMethod.GetScsId', {}) }), expect: { code: 'none' } },
    { name: 'notification of an unknown method: no reply', category: 'envelope', request: same(note('nosuch')), expect: { code: 'none' } },
    { name: 'notification with bad params: no reply', category: 'envelope', request: per({ vnode: note('mc_getBalance', ['0x1']), scs: note('scs_getNonce', [1]), scsdebug: note('ScsRPCMethod.GetNonce', {}) }), expect: { code: 'none' } },
    { name: 'invalid request without id is answered', category: 'envelope', request: same('{"jsonrpc":"1.0","method":"mc_blockNumber"}'), expect: INVALID_NULL },
    { name: 'top-level string', category: 'envelope', request: same('"mc_blockNumber"'), expect: INVALID_NULL },
    { name: 'top-level number', category: 'envelope', request: same('42'), expect: INVALID_NULL },
    { name: 'top-level null', category: 'envelope', request: same('null'), expect: INVALID_NULL },
    { name: 'empty object', category: 'envelope', request: same('{}'), expect: INVALID_NULL },

    // --- batches ----------------------------------------------------------------------------
    { name: 'empty batch', category: 'batch', request: same('[]'), expect: { code: -32600, id: null, message: /^empty batch$/ } },
    { name: 'batch holding an empty array', category: 'batch', request: same('[[]]'), expect: { batch: [-32600] } },
    { name: 'batch of non-objects', category: 'batch', request: same('[1,"a",null,true]'), expect: { batch: [-32600, -32600, -32600, -32600] } },
    { name: 'nested batch', category: 'batch', request: (tg) => `[[${zeroArg(1)(tg)}]]`, expect: { batch: [-32600] } },
    {
      name: 'mixed valid, invalid, unknown, notification, bad params',
      category: 'batch',
      request: per({
        vnode: `[${call('mc_blockNumber', [], 1)},{"jsonrpc":"1.0","id":2,"method":"mc_blockNumber"},${call('nosuch', [], 3)},${note('mc_blockNumber')},${call('mc_getBalance', ['0x1', 'latest'], 4)}]`,
        scs: `[${call('scs_getMicroChainList', [], 1)},{"jsonrpc":"1.0","id":2,"method":"scs_getMicroChainList"},${call('nosuch', [], 3)},${note('scs_getMicroChainList')},${call('scs_getNonce', [env.chain, '0x1'], 4)}]`,
        scsdebug: `[${call('ScsRPCMethod.GetScsId', {}, 1)},{"jsonrpc":"1.0","id":2,"method":"ScsRPCMethod.GetScsId"},${call('nosuch', {}, 3)},${note('ScsRPCMethod.GetScsId', {})},${call('ScsRPCMethod.GetNonce', { SubChainAddr: env.chain, Sender: '0x1' }, 4)}]`,
      }),
      expect: { batch: ['ok', -32600, -32601, -32602] },
    },
    { name: 'batch of notifications only: no reply', category: 'batch', request: per({ vnode: `[${note('mc_blockNumber')},${note('nosuch')}]`, scs: `[${note('scs_getMicroChainList')},${note('nosuch')}]`, scsdebug: `[${note('ScsRPCMethod.GetScsId', {})},${note('nosuch')}]` }), expect: { code: 'none' } },
    { name: 'notifications and an invalid element', category: 'batch', request: same(`[${note('nosuch')},{"jsonrpc":"2.0","method":5}]`), expect: { batch: [-32600] } },
    { name: 'batch of one', category: 'batch', request: (tg) => `[${zeroArg(9)(tg)}]`, expect: { batch: ['ok'] } },
    { name: 'duplicate ids in a batch', category: 'batch', request: (tg) => `[${zeroArg(5)(tg)},${zeroArg(5)(tg)}]`, expect: { batch: ['ok', 'ok'] } },
    { name: '1000 calls', category: 'batch', request: (tg) => batchOf(1000, (i) => zero(i)(tg)), expect: { batch: Array<'ok'>(1000).fill('ok') } },
    { name: '1001 calls: batch too large', category: 'batch', request: (tg) => batchOf(1001, (i) => zero(i)(tg)), expect: { code: -32600, id: null, message: /^batch too large$/ } },
    { name: '1000 invalid elements', category: 'batch', request: same(batchOf(1000, (i) => String(i))), expect: { batch: Array<number>(1000).fill(-32600) } },
    {
      // SCS has no method whose reply is megabytes from a small request; VNODE and IPC carry it.
      name: 'replies over 25,000,000 bytes: the rest get -32003',
      category: 'batch',
      request: per({ vnode: () => `[${[1, 2, 3, 4, 5, 6].map(bigCall).join(',')},${note('mc_blockNumber')},${bigCall(7)},${call('mc_blockNumber', [], 8)}]` }),
      expect: { batch: ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', -32003, -32003] },
    },

    // --- HTTP (never over IPC) ----------------------------------------------------------------
    { name: 'GET without body: health check', category: 'http', ...http('GET'), request: same(''), expect: { status: 200, text: /^$/ } },
    { name: 'HEAD', category: 'http', ...http('HEAD'), request: same(''), expect: { status: 200, text: /^$/ } },
    { name: 'GET with a body', category: 'http', ...http('GET'), request: zeroArg(), expect: { status: 405, text: /method not allowed/ } },
    { name: 'PUT', category: 'http', ...http('PUT'), request: zeroArg(), expect: { status: 405, headers: { allow: 'POST, GET, HEAD, OPTIONS' } } },
    { name: 'DELETE', category: 'http', ...http('DELETE'), request: zeroArg(), expect: { status: 405 } },
    { name: 'PATCH', category: 'http', ...http('PATCH'), request: zeroArg(), expect: { status: 405 } },
    {
      name: 'CORS preflight from a foreign origin: no CORS headers',
      category: 'http',
      http: { method: 'OPTIONS', headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' } },
      request: same(''),
      expect: { status: 204, headers: { 'access-control-allow-origin': undefined, 'access-control-allow-methods': undefined } },
    },
    { name: 'POST from a foreign origin: served, no CORS header', category: 'http', http: { headers: { Origin: 'http://evil.example' } }, request: zeroArg(), expect: { code: 'ok', headers: { 'access-control-allow-origin': undefined } } },
    { name: 'content type text/plain', category: 'http', http: { headers: { 'Content-Type': 'text/plain' } }, request: zeroArg(), expect: { status: 415, text: /invalid content type/ } },
    { name: 'content type text/plain; x=application/json', category: 'http', http: { headers: { 'Content-Type': 'text/plain; x=application/json' } }, request: zeroArg(), expect: { status: 415 } },
    { name: 'content type form-urlencoded (a browser simple request)', category: 'http', http: { headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }, request: zeroArg(), expect: { status: 415 } },
    { name: 'content type multipart/form-data', category: 'http', http: { headers: { 'Content-Type': 'multipart/form-data; boundary=x' } }, request: zeroArg(), expect: { status: 415 } },
    { name: 'empty content type', category: 'http', http: { headers: { 'Content-Type': '' } }, request: zeroArg(), expect: { status: 415 } },
    { name: 'content type with charset', category: 'http', http: { headers: { 'Content-Type': 'application/json; charset=utf-8' } }, request: zeroArg(), expect: { code: 'ok' } },
    { name: 'content type in capitals', category: 'http', http: { headers: { 'Content-Type': 'Application/JSON' } }, request: zeroArg(), expect: { code: 'ok' } },
    { name: 'content type application/json-rpc', category: 'http', http: { headers: { 'Content-Type': 'application/json-rpc' } }, request: zeroArg(), expect: { code: 'ok' } },
    { name: 'content type application/jsonrequest', category: 'http', http: { headers: { 'Content-Type': 'application/jsonrequest' } }, request: zeroArg(), expect: { code: 'ok' } },
    { name: 'body of exactly 5 MiB', category: 'http', http: {}, request: (tg) => pad(zeroArg()(tg)!, 5 * MiB), expect: { code: 'ok' } },
    { name: 'declared body over 5 MiB: refused before it is read', category: 'http', http: { declareOnly: true }, request: (tg) => pad(zeroArg()(tg)!, 5 * MiB + 1), expect: { status: 413, text: /content length too large/ } },
    { name: 'chunked body over 5 MiB', category: 'http', http: { chunkBytes: 256 * 1024 }, request: (tg) => pad(zeroArg()(tg)!, 6 * MiB), expect: { status: 413 } },
    { name: 'chunked body under the limit', category: 'http', http: { chunkBytes: 7 }, request: zeroArg(), expect: { code: 'ok' } },
    { name: 'Host of another site (DNS rebinding)', category: 'http', http: { headers: { Host: 'evil.example' } }, request: zeroArg(), expect: { status: 403, text: /invalid host specified/ } },
    { name: 'Host that only starts with localhost', category: 'http', http: { headers: { Host: 'localhost.evil.example:8545' } }, request: zeroArg(), expect: { status: 403 } },
    { name: 'Host localhost with a port', category: 'http', http: { headers: { Host: 'localhost:8545' } }, request: zeroArg(), expect: { code: 'ok' } },
    { name: 'Host LOCALHOST in capitals', category: 'http', http: { headers: { Host: 'LOCALHOST' } }, request: zeroArg(), expect: { code: 'ok' } },
    { name: 'Host an IPv4 literal', category: 'http', http: { headers: { Host: '10.1.2.3:1' } }, request: zeroArg(), expect: { code: 'ok' } },
    { name: 'Host an IPv6 literal', category: 'http', http: { headers: { Host: '[::1]:8545' } }, request: zeroArg(), expect: { code: 'ok' } },
    {
      name: 'unknown path: VNODE serves every path, SCS only / and /rpc',
      category: 'http',
      http: { path: '/nope' },
      request: zeroArg(),
      expect: { status: 404, text: /not found/ },
      except: { vnode: { code: 'ok' } },
    },
    { name: 'query string is ignored', category: 'http', http: { path: '?x=1' }, request: zeroArg(), expect: { code: 'ok' } },

    // --- nesting ----------------------------------------------------------------------------
    { name: '128 levels are parsed', category: 'nesting', request: raw((m) => `{"jsonrpc":"2.0","id":1,"method":${m},"params":${nested(127)}}`), expect: { code: -32602, id: 1 } },
    { name: '129 levels are refused', category: 'nesting', request: raw((m) => `{"jsonrpc":"2.0","id":1,"method":${m},"params":${nested(128)}}`), expect: TOO_DEEP },
    { name: '100,000 levels of arrays', category: 'nesting', request: raw((m) => `{"jsonrpc":"2.0","id":1,"method":${m},"params":${nested(100_000)}}`), expect: TOO_DEEP },
    { name: '1,000,000 unclosed brackets', category: 'nesting', request: httpOnly(() => '['.repeat(1_000_000)), expect: TOO_DEEP },
    { name: '10,000 levels of objects', category: 'nesting', request: same(() => '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)), expect: TOO_DEEP },
    { name: 'brackets inside strings do not count', category: 'nesting', request: t.data('0x' + '[{'.repeat(10_000)), expect: { code: -32602 } },
    { name: 'deep element inside a batch', category: 'batch', request: (tg) => `[${zeroArg(1)(tg)},${nested(200, '1')}]`, expect: TOO_DEEP },
    { name: 'deep id', category: 'nesting', request: raw((m, p) => `{"jsonrpc":"2.0","id":${nested(300)},"method":${m},"params":${p}}`), expect: TOO_DEEP },

    // --- huge values --------------------------------------------------------------------------
    {
      name: '2 MiB of DATA',
      category: 'huge',
      request: t.data('0x' + 'ab'.repeat(2 * MiB)),
      expect: { code: 'ok' },
      // an app-chain call is limited to 4,000,000 gas: 2 MiB of call data needs more
      except: { scs: { code: -32000, message: /intrinsic gas too low/ }, scsdebug: { code: -32602, message: /want 64 for 32-byte value/ } },
    },
    {
      // 8 MiB of EVM memory costs about 134,000,000 gas: a call asking for 2^64 gets 50,000,000
      name: 'a call asking for 2^64 gas and 8 MiB of memory runs out of the capped gas',
      category: 'huge',
      request: per({ vnode: call('mc_call', [{ to: env.bigReturn, gas: '0xffffffffffffffff', data: '0x' + (8 * MiB).toString(16).padStart(64, '0') }, 'latest']) }),
      expect: { code: -32000, message: /out of gas/ },
    },
    { name: '4 MiB method name', category: 'huge', request: same(() => call('x'.repeat(4 * MiB), [])), expect: { code: -32601 } },
    { name: '4 MiB string id', category: 'huge', request: (tg) => zeroArg('i'.repeat(4 * MiB))(tg), expect: { code: 'ok', id: 'i'.repeat(4 * MiB) } },
    { name: '4 MiB QUANTITY', category: 'huge', request: t.number('0x' + 'f'.repeat(4 * MiB)), expect: { code: -32602, message: /> (64|256) bits/ } },
    { name: '4 MiB address', category: 'huge', request: t.address('0x' + '12'.repeat(2 * MiB)), expect: { code: -32602, message: /want 40 for 20-byte value/ } },
    { name: 'half a million NUL escapes', category: 'huge', request: t.data('\u0000'.repeat(500_000)), expect: { code: -32602 } },
    { name: '100,000 positional params', category: 'huge', request: raw((m) => `{"jsonrpc":"2.0","id":1,"method":${m},"params":[${'0,'.repeat(99_999)}0]}`), expect: { code: -32602 } },
    {
      name: '100,000 named params',
      category: 'huge',
      request: raw((m) => `{"jsonrpc":"2.0","id":1,"method":${m},"params":{${Array.from({ length: 100_000 }, (_, i) => `"k${i}":${i}`).join(',')}}}`),
      expect: { code: -32602 },
      except: { scsdebug: { code: 'ok' } },
    },
    { name: 'a JSON number of 100,000 digits', category: 'huge', request: spliced(t.number(MARK), '1' + '0'.repeat(100_000)), expect: { code: -32602 } },
    { name: 'invalid UTF-8 in a string', category: 'huge', request: spliced(t.data(MARK), Buffer.from([0x22, 0x30, 0x78, 0xc3, 0x28, 0x22])), expect: { code: -32602 } },
    { name: 'lone surrogate in the method name', category: 'huge', request: same('{"jsonrpc":"2.0","id":1,"method":"mc_\\ud800","params":[]}'), expect: { code: -32601 } },

    // --- IPC framing --------------------------------------------------------------------------
  ];
  return [...rows, ...ipcCases(env)];
}

const MARK = '@@mark@@';
/** The rows' JSON with the quoted MARK replaced by raw text or bytes that JSON.stringify cannot make. */
function spliced(build: (t: Target) => string | undefined, raw: string | Buffer) {
  return (t: Target): Buffer | undefined => {
    const text = build(t);
    if (text === undefined) return undefined;
    const [before, after] = text.split(`"${MARK}"`);
    return Buffer.concat([Buffer.from(before), Buffer.isBuffer(raw) ? raw : Buffer.from(raw), Buffer.from(after)]);
  };
}

/** A valid call padded with spaces to exactly `size` bytes (whitespace around JSON is allowed). */
function pad(text: string, size: number): string {
  return text + ' '.repeat(size - Buffer.byteLength(text));
}

function ipcCases(_env: CorpusEnv): CorpusCase[] {
  return [
    {
      name: 'a value over 5 MiB: -32600 and the connection closes',
      category: 'ipc',
      request: ipcOnly(() => `{"jsonrpc":"2.0","id":1,"method":"libx_sha3","params":["0x${'00'.repeat(3 * MiB)}"]}`),
      expect: { code: -32600, id: null, message: /request too large/, closes: true },
    },
    { name: 'two values back to back: two replies', category: 'ipc', request: ipcOnly(call('mc_blockNumber', [], 1) + call('nosuch', [], 2)), expect: { lines: ['ok', -32601] } },
    { name: 'CRLF between values', category: 'ipc', request: ipcOnly(call('mc_blockNumber', [], 1) + '\r\n' + call('mc_blockNumber', [], 2)), expect: { lines: ['ok', 'ok'] } },
    { name: 'garbage, then a call on the same connection', category: 'ipc', request: ipcOnly('nonsense\n' + call('mc_blockNumber', [], 2)), expect: { lines: [-32700, 'ok'] } },
    { name: 'a byte order mark is a bad value of its own', category: 'ipc', request: ipcOnly('\ufeff' + call('mc_blockNumber', [], 2)), expect: { lines: [-32700, 'ok'] } },
    { name: 'a value split over many writes', category: 'ipc', request: ipcOnly(call('mc_blockNumber', [], 3)), http: undefined, expect: { code: 'ok', id: 3 }, ipcChunkBytes: 3 },
  ];
}
