// Dispatcher rules that need configuration or big inputs (the plain envelope cases are in the
// transcript): whitelist, case folding, debug stacks, batch limits, response size limit.

import t from 'tap';
import { Dispatcher, canonicalName } from '../../../src/rpc/dispatch.js';
import { ErrorKind, NodeError } from '../../../src/errors.js';
import { sideEffects, testMethods } from './fixture.js';

const ctx = { transport: 'http' as const };
const call = (method: string, params: unknown = [], id: unknown = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });
const parsed = async (d: Dispatcher, body: string) => JSON.parse((await d.handle(body, ctx)) ?? 'undefined');

t.test('aliases map to canonical names', async (t) => {
  t.equal(canonicalName('eth_getBalance'), 'mc_getBalance');
  t.equal(canonicalName('chain3_sha3'), 'libx_sha3');
  t.equal(canonicalName('web3_clientVersion'), 'libx_clientVersion');
  t.equal(canonicalName('mc_getBalance'), 'mc_getBalance');
  t.equal(canonicalName('ethx_y'), 'ethx_y');
});

t.test('isAllowed filters by the canonical name and answers -32601 with the name as sent', async (t) => {
  const asked: string[] = [];
  const d = new Dispatcher({
    methods: testMethods(),
    isAllowed: (name) => {
      asked.push(name);
      return ['mc', 'libx'].includes(name.slice(0, name.indexOf('_')));
    },
  });
  t.same(await parsed(d, call('eth_blockNumber')), { jsonrpc: '2.0', id: 1, result: '0x10' });
  t.same(await parsed(d, call('web3_clientVersion', [], 2)), { jsonrpc: '2.0', id: 2, result: 'mcnode/test' });
  t.same(await parsed(d, call('admin_peers', [], 3)), {
    jsonrpc: '2.0',
    id: 3,
    error: { code: -32601, message: 'the method admin_peers does not exist/is not available' },
  });
  t.same(asked, ['mc_blockNumber', 'libx_clientVersion', 'admin_peers']);
  // Without a whitelist the same table serves admin_* (the IPC configuration).
  const open = new Dispatcher({ methods: testMethods() });
  t.same(await parsed(open, call('admin_peers', [], 3)), { jsonrpc: '2.0', id: 3, result: [] });
});

t.test('caseInsensitive matches SCS rpcdebug names in any case', async (t) => {
  const d = new Dispatcher({ methods: testMethods(), caseInsensitive: true });
  const body = call('ScsRPCMethod.getnonce', { SubChainAddr: '0x01' });
  t.same(await parsed(d, body), { jsonrpc: '2.0', id: 1, result: { nonce: 7, sent: { SubChainAddr: '0x01' } } });
  t.same((await parsed(d, call('scsrpcmethod.GETNONCE'))).result.nonce, 7);
  t.equal((await parsed(d, call('scsrpcmethod.nosuch'))).error.code, -32601);
  const strict = new Dispatcher({ methods: testMethods() });
  t.same((await parsed(strict, body)).error, {
    code: -32601,
    message: 'the method ScsRPCMethod.getnonce does not exist/is not available',
  });
});

t.test('stack traces appear in -32603 data only with debug', async (t) => {
  const quiet = new Dispatcher({ methods: testMethods() });
  const loud = new Dispatcher({ methods: testMethods(), debug: true });
  for (const m of ['throws', 'rejects']) {
    t.same((await parsed(quiet, call(m))).error, { code: -32603, message: 'internal error' }, m);
    const err = (await parsed(loud, call(m))).error;
    t.equal(err.code, -32603);
    t.equal(err.message, 'internal error');
    t.match(err.data, /^Error: (boom|nope)\n\s+at /, `${m}: data is the stack`);
  }
  t.same((await parsed(loud, call('throwsString'))).error.data, 'a string, not an Error');
  t.match((await parsed(loud, call('err_internal'))).error, { code: -32603, message: 'database closed', data: /NodeError/ });
  // Domain errors other than Internal never carry a stack.
  t.same((await parsed(loud, call('err_refused'))).error, { code: -32000, message: 'filter not found' });
});

t.test('notifications run even though nothing is sent back', async (t) => {
  const d = new Dispatcher({ methods: testMethods() });
  const before = sideEffects.count;
  t.equal(await d.handle('{"jsonrpc":"2.0","method":"count"}', ctx), undefined);
  t.equal(await d.handle('[{"jsonrpc":"2.0","method":"count"},{"jsonrpc":"2.0","method":"count"}]', ctx), undefined);
  t.equal(sideEffects.count, before + 3);
});

t.test('batch size: 1000 calls are served, 1001 get one -32600', async (t) => {
  const d = new Dispatcher({ methods: testMethods() });
  const batch = (n: number) => '[' + Array.from({ length: n }, (_, i) => call('echo', [i], i)).join(',') + ']';
  const ok = await parsed(d, batch(1000));
  t.equal(ok.length, 1000);
  t.same(ok[999], { jsonrpc: '2.0', id: 999, result: [999] });
  t.same(await parsed(d, batch(1001)), {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32600, message: 'batch too large' },
  });
});

t.test('batch response size: calls after 25,000,000 bytes get -32003', async (t) => {
  const d = new Dispatcher({ methods: testMethods() });
  const ten = 10_000_000;
  const body = JSON.stringify([
    { jsonrpc: '2.0', id: 1, method: 'big', params: [ten] },
    { jsonrpc: '2.0', method: 'count' }, // notifications take no room and get nothing
    { jsonrpc: '2.0', id: 2, method: 'big', params: [ten] },
    { jsonrpc: '2.0', id: 3, method: 'big', params: [ten] }, // crosses 25 MB: still sent
    { jsonrpc: '2.0', id: 'four', method: 'echo', params: [] },
    { jsonrpc: '2.0', id: 5, method: 'nosuch' },
  ]);
  const reply = await parsed(d, body);
  t.equal(reply.length, 5);
  t.equal(reply[0].result.length, ten);
  t.equal(reply[1].result.length, ten);
  t.equal(reply[2].result.length, ten);
  t.same(reply[3], { jsonrpc: '2.0', id: 'four', error: { code: -32003, message: 'response too large' } });
  t.same(reply[4], { jsonrpc: '2.0', id: 5, error: { code: -32003, message: 'response too large' } });
  // Below the limit nothing is cut.
  const small = await parsed(d, JSON.stringify([1, 2].map((id) => ({ jsonrpc: '2.0', id, method: 'big', params: [ten] }))));
  t.equal(small[1].result.length, ten);
});

t.test('deeply nested input is refused without recursion', async (t) => {
  const d = new Dispatcher({ methods: testMethods() });
  const deep = '['.repeat(1_000_000) + ']'.repeat(1_000_000);
  t.same(await parsed(d, deep), {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32600, message: 'invalid request: nesting deeper than 128' },
  });
  // Deep but unbalanced garbage is refused the same way, before any parse attempt.
  t.equal((await parsed(d, '{'.repeat(5000))).error.code, -32600);
});

t.test('Buffer bodies are decoded as UTF-8', async (t) => {
  const d = new Dispatcher({ methods: testMethods() });
  const reply = await d.handle(Buffer.from(call('echo', ['ünï ✓'])), ctx);
  t.equal(reply, '{"jsonrpc":"2.0","id":1,"result":["ünï ✓"]}');
});

t.test('a handler throwing a NodeError of an unknown kind is an internal error', async (t) => {
  const methods = new Map([
    ['odd', { handler: () => { throw new NodeError('weird' as ErrorKind, 'odd'); } }],
  ]);
  const d = new Dispatcher({ methods });
  t.same((await parsed(d, call('odd'))).error, { code: -32603, message: 'internal error' });
});

t.test('a thenable result is awaited; a thenable with a throwing then is an internal error', async (t) => {
  const methods = new Map([
    ['thenable', { handler: () => ({ then: (ok: (v: unknown) => void) => ok('adopted') }) }],
    [
      'badThenable',
      {
        handler: () => ({
          get then() {
            throw new Error('then getter');
          },
        }),
      },
    ],
  ]);
  for (const invoker of ['jayson', 'direct'] as const) {
    const d = new Dispatcher({ methods, invoker });
    t.equal((await parsed(d, call('thenable'))).result, 'adopted', invoker);
    t.same((await parsed(d, call('badThenable'))).error, { code: -32603, message: 'internal error' }, invoker);
  }
});
