// The README's first command on a fresh clone: `npm install && npm start`. The clone is a copy of
// the repository's files (tracked and new, as a commit of this tree would hold them) without
// dist/, and `npm install` is a hard-linked copy of node_modules (no registry here; the same lock
// file). The first `npm start` compiles, bundles and serves; it writes the bundle's code cache
// once started. The second compiles nothing, uses that cache and serves. The node runs without
// NODE_EXTRA_CA_CERTS (it makes no TLS connections; Node would parse the file at every start).
// The `mcnode` command (package.json "bin") runs the same bundle.

import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { codeCacheFile } from '../../src/runtime/codeCache.js';
import { NODE_COMPILE_CACHE, ROOT, environmentOf, postJson } from '../helpers/node.js';
import { cloneOfTree } from '../helpers/package.js';

const STARTS_WITHIN_MS = 300_000; // the first start compiles (~10-60 s on a loaded machine)
const CA_FILE = '/etc/ssl/certs/ca-certificates.crt';

/** The environment of the last process under `pid` (npm → sh → node), from /proc. */
function deepestEnviron(pid: number): Record<string, string> {
  for (;;) {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    if (!children) break;
    pid = Number(children.split(' ')[0]);
  }
  return environmentOf(pid);
}

/** `npm start -- <flags>` in `cwd` until the banner; returns the HTTP URL and a stop function. */
async function npmStart(cwd: string, datadir: string) {
  const proc = spawn('npm', ['start', '--silent', '--', '--datadir', datadir, '--rpcport', '0', '--scsrpcport', '0', '--ipcdisable'], {
    cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false',
      ...(existsSync(CA_FILE) ? { NODE_EXTRA_CA_CERTS: CA_FILE } : {}),
    },
  });
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within ${STARTS_WITHIN_MS} ms:\n${out}`)), STARTS_WITHIN_MS);
    proc.stdout!.on('data', () => {
      const http = /HTTP\s+(http:\/\/\S+)/.exec(out);
      if (http && /\nSCS\s+\S/.test(out)) {
        clearTimeout(timer);
        resolve(http[1]);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${out}`));
    });
  });
  const stop = () => new Promise<void>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once('exit', () => resolve());
    process.kill(-proc.pid!, 'SIGTERM'); // npm, its shell and the node
  });
  return { url, stop, output: () => out, pid: proc.pid! };
}

t.test('npm install && npm start on a fresh clone, then a second start', async (t) => {
  const clone = cloneOfTree();
  t.teardown(() => rmSync(clone, { recursive: true, force: true }));
  t.notOk(existsSync(path.join(clone, 'dist')), 'nothing built yet');
  const datadir = path.join(clone, 'data', 'test');

  const first = await npmStart(clone, datadir);
  t.teardown(first.stop);
  t.equal((await postJson(first.url, { jsonrpc: '2.0', id: 1, method: 'net_listening', params: [] })).result, true);
  t.equal((await postJson(first.url, { jsonrpc: '2.0', id: 2, method: 'mc_blockNumber', params: [] })).result, '0x0');
  if (existsSync(CA_FILE)) t.equal(deepestEnviron(first.pid).NODE_EXTRA_CA_CERTS, '', 'the node runs without extra CA certificates');
  await first.stop();
  const stamp = statSync(path.join(clone, 'dist/.build-stamp')).mtimeMs;
  // The hand-kept code cache, where Node has no compile cache of its own (startScript.test.ts checks Node's).
  const cacheFile = NODE_COMPILE_CACHE ? undefined : codeCacheFile(path.join(clone, 'dist/bundle/mcnode.cjs'));
  t.teardown(() => cacheFile && rmSync(cacheFile, { force: true }));
  if (cacheFile) t.ok(existsSync(cacheFile), 'the first start wrote the bundle\'s code cache');
  const cache = cacheFile ? readFileSync(cacheFile) : undefined;

  const second = await npmStart(clone, datadir);
  t.teardown(second.stop);
  t.equal((await postJson(second.url, { jsonrpc: '2.0', id: 3, method: 'mc_blockNumber', params: [] })).result, '0x0', 'the same chain');
  await second.stop();
  t.equal(statSync(path.join(clone, 'dist/.build-stamp')).mtimeMs, stamp, 'the second start compiled nothing');
  if (cacheFile) t.ok(readFileSync(cacheFile).equals(cache!), 'and used the code cache as it was');

  const bin = spawnSync(process.execPath, [path.join(clone, 'bin/mcnode.js'), 'version'], { encoding: 'utf8' });
  t.equal(bin.status, 0, 'the mcnode command runs');
  t.match(bin.stdout, /^mcnode \d+\.\d+\.\d+\n/);
});
