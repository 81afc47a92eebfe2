// Security defaults of a node started with no security flags at all (README "Transports", "Accounts and keystore"): every
// endpoint on 127.0.0.1, the Host allow-list, no CORS, an owner-only IPC socket, `--rpcapi`
// limiting HTTP, the insecure-unlock rule, no stack traces unless --verbosity is debug, and
// Docker guidance that publishes ports on 127.0.0.1 only.

import t from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { CLI, ROOT, startNodeProcess, type NodeProcess } from '../../tools/lib/nodeProcess.js';
import { IpcConnection, httpCall, rpc } from '../../tools/lib/rpcClient.js';
import { testDir } from '../helpers/testDir.js';

const ipc = async (node: NodeProcess, method: string, params: unknown = []) => {
  const conn = await IpcConnection.open(node.ipc!);
  try {
    return JSON.parse((await conn.call(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })))!);
  } finally {
    conn.close();
  }
};
const post = (url: string, method: string, params: unknown = [], headers: Record<string, string> = {}) =>
  httpCall(url, { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), headers });

/** Makes the keystore unusable under a running node, so that creating an account fails inside the node. */
function breakKeystore(datadir: string): void {
  rmSync(path.join(datadir, 'keystore'), { recursive: true, force: true });
  writeFileSync(path.join(datadir, 'keystore'), 'not a directory');
}

t.test('a node started without security flags', async (t) => {
  const datadir = testDir(t);
  const node = await startNodeProcess(datadir, { args: ['--mining.mode', 'off', '--metrics'] });
  t.teardown(() => node.stop());

  await t.test('binds every endpoint to 127.0.0.1', async (t) => {
    for (const url of [node.http!, node.scs!, node.metrics!]) t.equal(new URL(url).hostname, '127.0.0.1', url);
    // Reachable on loopback, refused on the machine's other addresses.
    const other = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal);
    if (!other) return void t.comment('no non-loopback IPv4 interface here: the refusal is not checked');
    for (const url of [node.http!, node.scs!]) {
      const port = new URL(url).port;
      await t.rejects(httpCall(`http://${other.address}:${port}`, { body: '{}', timeoutMs: 3000 }), { code: 'ECONNREFUSED' }, `${other.address}:${port}`);
    }
  });

  await t.test('accepts only Host names on the allow-list (localhost) and IP literals', async (t) => {
    for (const url of [node.http!, node.scs!]) {
      t.equal((await post(url, 'mc_blockNumber', [], { Host: 'evil.example' })).status, 403, `${url}: foreign Host`);
      t.equal((await post(url, 'mc_blockNumber', [], { Host: 'localhost:8545' })).status, 200, `${url}: localhost`);
      t.equal((await post(url, 'mc_blockNumber', [], { Host: '127.0.0.1' })).status, 200, `${url}: IP literal`);
    }
  });

  await t.test('sends no CORS headers', async (t) => {
    for (const url of [node.http!, node.scs!]) {
      const call = await post(url, 'mc_blockNumber', [], { Origin: 'http://evil.example' });
      t.equal(call.headers['access-control-allow-origin'], undefined, `${url}: POST`);
      const preflight = await httpCall(url, { method: 'OPTIONS', headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' } });
      t.equal(preflight.headers['access-control-allow-origin'], undefined, `${url}: preflight`);
      t.equal(preflight.headers['access-control-allow-methods'], undefined, `${url}: preflight methods`);
    }
  });

  await t.test('IPC socket is owner-only (0600)', async (t) => {
    t.equal(statSync(node.ipc!).mode & 0o777, 0o600);
  });

  await t.test('HTTP serves only the default --rpcapi namespaces; IPC serves all', async (t) => {
    t.same(await rpc(node.http!, 'rpc_modules'), { libx: '1.0', mc: '1.0', net: '1.0', vnode: '1.0', txpool: '1.0', miner: '1.0', rpc: '1.0', evm: '1.0', anvil: '1.0', hardhat: '1.0' });
    for (const method of ['personal_listAccounts', 'admin_nodeInfo', 'admin_stopRPC', 'personal_unlockAccount']) {
      const reply = JSON.parse((await post(node.http!, method)).body);
      t.equal(reply.error?.code, -32601, `${method} over HTTP`);
    }
    t.ok((await ipc(node, 'admin_nodeInfo')).result, 'admin_nodeInfo over IPC');
    t.ok(Array.isArray((await ipc(node, 'personal_listAccounts')).result), 'personal_listAccounts over IPC');
  });

  await t.test('no account unlock while HTTP runs, even over IPC', async (t) => {
    const reply = await ipc(node, 'personal_unlockAccount', ['0x' + '11'.repeat(20), 'pw', 10]);
    t.same(reply.error, { code: -32000, message: 'account unlock with HTTP access is forbidden' });
  });

  await t.test('an internal failure is reported without a stack trace', async (t) => {
    breakKeystore(datadir);
    const reply = await ipc(node, 'personal_newAccount', ['pw']);
    t.same(reply.error, { code: -32603, message: 'internal error' }, 'code and message only, no data');
    t.ok(node.alive(), 'the node keeps running');
  });
});

t.test('--verbosity 4 (debug) adds the stack; --rpcapi whitelists HTTP namespaces', async (t) => {
  const datadir = testDir(t);
  const node = await startNodeProcess(datadir, { args: ['--mining.mode', 'off', '--verbosity', '4', '--rpcapi', 'mc,personal'] });
  t.teardown(() => node.stop());
  t.same(await rpc(node.http!, 'rpc_modules').catch((e: Error) => e.message), 'rpc_modules: the method rpc_modules does not exist/is not available (-32601)');
  t.equal(JSON.parse((await post(node.http!, 'libx_clientVersion')).body).error?.code, -32601, 'libx is not listed');
  t.match(await rpc(node.http!, 'mc_blockNumber'), /^0x/, 'mc is');
  breakKeystore(datadir);
  for (const reply of [await ipc(node, 'personal_newAccount', ['pw']), JSON.parse((await post(node.http!, 'personal_newAccount', ['pw'])).body)]) {
    t.equal(reply.error?.code, -32603);
    t.match(reply.error?.data, /\n\s+at /, 'a stack trace in data');
  }
});

t.test('--unlock is refused while HTTP runs unless --allow-insecure-unlock', async (t) => {
  const datadir = testDir(t);
  const password = path.join(datadir, 'password.txt');
  writeFileSync(password, 'secret\n');
  const created = spawnSync(process.execPath, [CLI, 'account', 'new', '--datadir', datadir, '--password', password, '--lightkdf'], { encoding: 'utf8' });
  t.equal(created.status, 0, created.stderr);
  const address = '0x' + /Address: \{([0-9a-f]{40})\}/.exec(created.stdout)![1];

  const refused = spawnSync(process.execPath, [CLI, '--datadir', datadir, '--rpcport', '0', '--scsrpcport', '0', '--ipcdisable', '--unlock', address, '--password', password], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  t.equal(refused.status, 1, 'start-up refused');
  t.match(refused.stderr, /account unlock with HTTP access is forbidden/);

  const node = await startNodeProcess(datadir, { args: ['--mining.mode', 'off', '--unlock', address, '--password', password, '--allow-insecure-unlock'] });
  t.teardown(() => node.stop());
  t.equal((await ipc(node, 'personal_unlockAccount', [address, 'secret', 10])).result, true, 'allowed with the flag');
  const signed = await rpc(node.http!, 'mc_sign', [address, '0x1234']);
  t.match(signed, /^0x[0-9a-f]{130}$/, 'the unlocked account signs over HTTP: why the flag exists');
});

t.test('Docker guidance publishes the ports on 127.0.0.1 only', async (t) => {
  const pages = existsSync(path.join(ROOT, 'docs')) ? readdirSync(path.join(ROOT, 'docs')).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`) : [];
  const docs = ['README.md', ...pages].map((f) => path.join(ROOT, f));
  t.ok(pages.includes('docs/docker-and-operations.md'), 'the Docker page exists');
  let publications = 0;
  for (const file of docs) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:^|\s)-p\s+([0-9.:]+)/g)) {
      publications++;
      t.match(m[1], /^127\.0\.0\.1:\d+:\d+$/, `${path.basename(file)}: docker run -p ${m[1]}`);
    }
    for (const m of text.matchAll(/^\s*-\s*"?(\d[\d.:]*)"?\s*$/gm)) {
      if (!/:\d+:\d+$|^\d+:\d+$/.test(m[1])) continue; // compose port mappings only
      publications++;
      t.match(m[1], /^127\.0\.0\.1:/, `${path.basename(file)}: compose ports ${m[1]}`);
    }
  }
  t.ok(publications > 0, `${publications} port publications checked`);
});
