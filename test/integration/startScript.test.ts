// `npm start`'s path: package.json's start script (run by sh, as npm runs it) sets the memory
// setting that must precede start-up (src/heapTuning.ts) and runs tools/start.mjs, which runs the
// bundled CLI (dist/bundle/, when esbuild built one) in its own process; the node it starts must
// serve requests, run a transaction through the EVM and seal it, i.e. the lazily loaded modules,
// the native addons and the worker files resolve from the bundle too. The bundle's code cache is
// written after a start, used by the next one, and replaced when damaged.

import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LAUNCH_ENV } from '../../src/runtime/heapTuning.js';
import { codeCacheFile } from '../../src/runtime/codeCache.js';
import { NODE_COMPILE_CACHE, ROOT, environmentOf, launchEnvOf, postJson, waitFor } from '../helpers/node.js';
import { testDir } from '../helpers/testDir.js';

const START = path.join(ROOT, 'tools/start.mjs');
const BIN = path.join(ROOT, 'bin/mcnode.js');
const START_SCRIPT: string = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start;

const noBundle = !existsSync(path.join(ROOT, 'dist/bundle/cli.js')) && 'no dist/bundle (esbuild not installed)';

/** This environment without the variables npm start sets (the tests expect their own values) */
const plainEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !(k in LAUNCH_ENV)));

/** The process is Node itself: the script execs it, so that signals (npm's, Ctrl-C, docker's) reach the node. */
function nodePid(pid: number): number {
  const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
  if (!path.basename(argv0).startsWith('node')) throw new Error(`the start script left ${argv0} between npm and node`);
  return pid;
}

/** `entry` is a JavaScript file run by this Node, or 'npm start' (the script, through sh) */
async function startVia(entry: string, datadir: string, env: NodeJS.ProcessEnv = plainEnv) {
  const args = ['--datadir', datadir, '--rpcport', '0', '--scsrpcport', '0', '--ipcdisable', '--mining.mode', 'instant'];
  const [file, argv] = entry === 'npm start'
    ? ['/bin/sh', ['-c', `${START_SCRIPT} "$@"`, 'sh', ...args]]
    : [process.execPath, [entry, ...args]];
  const proc = spawn(file, argv, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 60 s:\n${out}`)), 60_000);
    proc.stdout!.on('data', () => {
      const http = /HTTP\s+(http:\/\/\S+)/.exec(out);
      if (http) {
        clearTimeout(timer);
        resolve(http[1]);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${out}`));
    });
  });
  let id = 1;
  const rpc = async (method: string, params: unknown[] = []) => {
    const reply = await postJson(url, { jsonrpc: '2.0', id: id++, method, params });
    if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
    return reply.result;
  };
  const stop = () => new Promise<number | null>((resolve) => {
    if (proc.exitCode !== null) return resolve(proc.exitCode);
    proc.once('exit', (code) => resolve(code));
    proc.kill('SIGTERM');
  });
  return { rpc, stop, pid: () => nodePid(proc.pid!), output: () => out };
}

async function servesAndMines(t: Test, entry: string) {
  const node = await startVia(entry, testDir(t));
  t.teardown(() => node.stop());
  if (entry === 'npm start') {
    const pid = node.pid();
    t.same(launchEnvOf(pid), LAUNCH_ENV, 'Node runs with the malloc settings (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_)');
    const caVar = environmentOf(pid).NODE_EXTRA_CA_CERTS;
    t.ok(!caVar, 'and without an extra CA bundle to load (the node makes no TLS connections)');
  }
  t.equal(await node.rpc('net_listening'), true);
  t.equal(await node.rpc('mc_blockNumber'), '0x0');
  const [from] = await node.rpc('mc_accounts');
  const to = '0x' + '42'.repeat(20);
  const hash = await node.rpc('mc_sendTransaction', [{ from, to, value: '0x1234' }]);
  const receipt = await waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), 'the receipt', 30_000);
  t.equal(receipt.status, '0x1');
  t.equal(await node.rpc('mc_getBalance', [to, 'latest']), '0x1234');
  t.equal(await node.rpc('mc_call', [{ to, data: '0x' }, 'latest']), '0x');
  t.equal(await node.stop(), 0, 'stops cleanly on SIGTERM');
}

t.test('npm start (package.json\'s script, run by sh) serves requests and mines a transaction', (t) => servesAndMines(t, 'npm start'));

t.test('npm start keeps the malloc settings the user set', async (t) => {
  const node = await startVia('npm start', testDir(t), { ...plainEnv, MALLOC_ARENA_MAX: '4', MALLOC_MMAP_THRESHOLD_: '262144' });
  t.teardown(() => node.stop());
  t.same(launchEnvOf(node.pid()), { MALLOC_ARENA_MAX: '4', MALLOC_MMAP_THRESHOLD_: '262144' });
  t.equal(await node.rpc('net_listening'), true);
  t.equal(await node.stop(), 0);
});

t.test('tools/start.mjs serves requests and mines a transaction', (t) => servesAndMines(t, START));

t.test('bin/mcnode.js (the package\'s bin) serves requests and mines a transaction', async (t) => {
  t.same(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).bin, { mcnode: 'bin/mcnode.js' });
  await servesAndMines(t, BIN);
});

t.test('the bundle itself, when the build made one', { skip: noBundle },
  (t) => servesAndMines(t, path.join(ROOT, 'dist/bundle/cli.js')));

/** The cache file is whole: its payload hash (src/codeCache.ts's format) matches. */
function cacheIsWhole(file: string): boolean {
  const bytes = readFileSync(file);
  const header = 'mcnode code cache 1\n'.length + 64;
  return bytes.length > header && createHash('sha256').update(bytes.subarray(header)).digest().equals(bytes.subarray(header - 32, header));
}

/** A copy of dist/bundle beside it (same depth: node_modules, workers and config resolve alike), so that other tests' starts do not touch its cache. */
function bundleCopy(t: Test): string {
  const dir = path.join(ROOT, 'dist', `bundle-test-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  cpSync(path.join(ROOT, 'dist/bundle'), dir, { recursive: true });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('the bundle\'s code cache: written after a start, used by the next, replaced when damaged',
  { skip: noBundle || (NODE_COMPILE_CACHE && 'Node has its own compile cache, which the bundle uses instead') }, async (t) => {
    const dir = bundleCopy(t);
    const entry = path.join(dir, 'cli.js');
    const cacheFile = codeCacheFile(path.join(dir, 'mcnode.cjs'))!;
    t.ok(cacheFile && !cacheFile.startsWith(ROOT), 'the cache lives outside the package');
    rmSync(cacheFile, { force: true });
    t.teardown(() => rmSync(cacheFile, { force: true }));

    await servesAndMines(t, entry);
    t.ok(existsSync(cacheFile) && cacheIsWhole(cacheFile), 'a start without a cache wrote one');
    const written = readFileSync(cacheFile);

    await servesAndMines(t, entry);
    t.ok(readFileSync(cacheFile).equals(written), 'the next start used it as it was');

    const damaged = Buffer.from(written);
    damaged[damaged.length >> 1] ^= 0xff;
    writeFileSync(cacheFile, damaged);
    await servesAndMines(t, entry);
    t.ok(cacheIsWhole(cacheFile), 'a damaged cache: the node started anyway and wrote a whole one');
  });

t.test('Node\'s own compile cache, where Node has one: written after a start, used by the next',
  { skip: noBundle || (!NODE_COMPILE_CACHE && 'Node has no compile cache of its own before 22.8') }, async (t) => {
    const dir = bundleCopy(t);
    const bundle = path.join(dir, 'mcnode.cjs');
    // Node says what its cache did with each module (its native debug output, on stderr).
    const base = testDir(t);
    const env = { ...plainEnv, NODE_COMPILE_CACHE: path.join(base, 'compile-cache'), NODE_DEBUG_NATIVE: 'COMPILE_CACHE' };
    const first = await startVia(path.join(dir, 'cli.js'), path.join(base, 'first'), env);
    t.equal(await first.rpc('net_listening'), true);
    await first.stop();
    t.match(first.output(), `writing cache for CommonJS ${bundle} to temporary file`, 'the first start wrote the bundle\'s cache');
    const second = await startVia(path.join(dir, 'cli.js'), path.join(base, 'second'), env);
    t.equal(await second.rpc('mc_blockNumber'), '0x0');
    await second.stop();
    t.match(second.output(), `V8 code cache for CommonJS ${bundle} was accepted`, 'the next start used it');
    t.notMatch(second.output(), `writing cache for CommonJS ${bundle}`, 'and kept it as it was');
  });
