// The explorer's files on the HTTP endpoint: served under /explorer with a same-origin
// Content-Security-Policy, the endpoint's Host rule kept, the signature tables in config.json,
// the read-only SCS window at /explorer/scs, WebSocket upgrades from the endpoint's own pages
// only, and --explorer=false.

import t from 'tap';
import path from 'node:path';
import { request } from 'node:http';
import { startNode, type TestNode } from '../../helpers/node.js';
import { selector } from '../../helpers/abi.js';
import { testDir } from '../../helpers/testDir.js';

let node: TestNode;
let off: TestNode;

t.before(async () => {
  const dir = testDir(t);
  [node, off] = await Promise.all([
    startNode(path.join(dir, 'on'), ['--mining.mode', 'off', '--explorer.signatures', 'deposit(address,uint256)', '--appChains', '[{}]']),
    startNode(path.join(dir, 'off'), ['--mining.mode', 'off', '--explorer=false', '--appChains', '[{}]']),
  ]);
});
t.teardown(() => Promise.all([node?.stop(), off?.stop()]));

/** A GET of `url` as given (the path is sent without normalisation). */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const u = new URL(url);
  const rawPath = url.slice(u.origin.length);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: rawPath, headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A JSON POST with `headers` as given (fetch would drop a Host header). */
function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const u = new URL(url);
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request({ method: 'POST', host: u.hostname, port: u.port, path: u.pathname, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data), ...headers } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** The status line of a WebSocket handshake on `/` with `origin`. */
function upgrade(url: string, origin: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({
      host: u.hostname, port: u.port, path: '/',
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', Origin: origin },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode!);
    });
    req.on('response', (res) => resolve(res.statusCode!));
    req.on('error', reject);
    req.end();
  });
}

t.test('the page, its assets and their headers', async (t) => {
  const redirect = await get(`${node.url}/explorer`);
  t.equal(redirect.status, 301);
  t.equal(redirect.headers.location, '/explorer/');
  const page = await get(`${node.url}/explorer/`);
  t.equal(page.status, 200);
  t.match(page.headers['content-type'], /^text\/html/);
  t.match(page.body, '<script type="module" src="app.js">');
  t.match(page.headers['content-security-policy'], "default-src 'self'");
  t.match(page.headers['content-security-policy'], "connect-src 'self'");
  t.notMatch(page.body, /https?:\/\//, 'no absolute URL: nothing is fetched from elsewhere');
  for (const asset of ['app.js', 'rpc.js', 'abi.js', 'style.css']) {
    const res = await get(`${node.url}/explorer/${asset}`);
    t.equal(res.status, 200, asset);
    t.notMatch(res.body, /https?:\/\/(?!\$)/, `${asset}: no absolute URL`);
  }
  t.equal((await get(`${node.url}/explorer/../package.json`)).status, 404, 'only the loaded assets are served, never a path on disk');
  t.equal((await get(`${node.url}/explorer/nope.js`)).status, 404);
});

t.test('config.json: the built-in and the user\'s signatures, the console table', async (t) => {
  const config = JSON.parse((await get(`${node.url}/explorer/config.json`)).body);
  t.equal(config.functions[selector('transfer(address,uint256)')], 'transfer(address,uint256)');
  t.equal(config.functions[selector('aggregate3((address,bool,bytes)[])')], 'aggregate3((address,bool,bytes)[])');
  t.equal(config.functions[selector('deposit(address,uint256)')], 'deposit(address,uint256)', 'from --explorer.signatures');
  t.same(config.console[selector('log(string,uint256)')], ['string', 'uint256']);
  t.ok(Object.keys(config.console).length > 600, 'every console.sol signature');
});

t.test('the endpoint\'s Host and Origin rules apply', async (t) => {
  t.equal((await get(`${node.url}/explorer/`, { Host: 'evil.example' })).status, 403, 'a foreign Host is refused');
  t.equal((await get(`${node.url}/explorer/`, { Host: 'localhost' })).status, 200);
  const host = new URL(node.url).host;
  t.equal(await upgrade(node.url, `http://${host}`), 101, 'the explorer\'s own page may open the WebSocket');
  t.equal(await upgrade(node.url, 'http://evil.example'), 403, 'another site may not');
  const scsPost = (headers: Record<string, string>) => post(`${node.url}/explorer/scs`, { jsonrpc: '2.0', id: 1, method: 'scs_getMicroChainList', params: [] }, headers);
  t.equal((await scsPost({ Host: 'evil.example' })).status, 403, 'the SCS window keeps the Host rule');
  const foreign = await scsPost({ Origin: 'http://evil.example' });
  t.equal(foreign.status, 200);
  t.equal(foreign.headers['access-control-allow-origin'], undefined, 'and grants no other site CORS (no --rpccorsdomain)');
});

t.test('the read-only SCS window', async (t) => {
  const call = async (method: string, params: unknown[] = []) =>
    (await fetch(`${node.url}/explorer/scs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json() as Promise<any>;
  const chains = await call('scs_getMicroChainList');
  t.equal(chains.result.length, 1);
  t.equal((await call('scs_getBlockNumber', [chains.result[0]])).result, '0x0');
  t.equal((await call('scs_createAppChain', [{}])).error?.code, -32601, 'nothing that writes');
  t.equal((await call('scs_datadir')).error?.code, -32601);
  t.equal((await call('mc_blockNumber')).error?.code, -32601, 'only scs_*');
});

t.test('--explorer=false', async (t) => {
  // Every path of the endpoint is its JSON-RPC, which answers a GET with an empty 200: /explorer is no different.
  const other = await get(`${off.url}/elsewhere`);
  for (const p of ['/explorer', '/explorer/', '/explorer/app.js', '/explorer/config.json']) {
    const res = await get(`${off.url}${p}`);
    t.same({ status: res.status, body: res.body, csp: res.headers['content-security-policy'] }, { status: other.status, body: other.body, csp: undefined }, `${p}: no page`);
  }
  const scs = await (await fetch(`${off.url}/explorer/scs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'scs_getMicroChainList', params: [] }) })).json() as any;
  t.equal(scs.error?.code, -32601, 'no SCS window either');
});
