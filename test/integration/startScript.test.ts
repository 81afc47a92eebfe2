// `npm start`'s path: tools/start.mjs runs the bundled CLI (dist/bundle/, when esbuild built one)
// in its own process; the node it starts must serve requests, run a transaction through the EVM
// and seal it, i.e. the lazily loaded modules, the native addons and the worker files resolve
// from the bundle too. The bundle's code cache is written after a start, used by the next one,
// and replaced when damaged.

import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, postJson, waitFor } from '../helpers/node.js';

const START = path.join(ROOT, 'tools/start.mjs');

async function startVia(entry: string, datadir: string) {
  const proc = spawn(process.execPath, [entry, '--datadir', datadir, '--rpcport', '0', '--scsrpcport', '0', '--ipcdisable', '--mining.mode', 'instant'], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
  });
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
  return { rpc, stop };
}

async function servesAndMines(t: Test, entry: string) {
  const node = await startVia(entry, t.testdir());
  t.teardown(() => node.stop());
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

t.test('tools/start.mjs (npm start) serves requests and mines a transaction', (t) => servesAndMines(t, START));

t.test('the bundle itself, when the build made one', { skip: !existsSync(path.join(ROOT, 'dist/bundle/cli.js')) && 'no dist/bundle (esbuild not installed)' },
  (t) => servesAndMines(t, path.join(ROOT, 'dist/bundle/cli.js')));

/** The cache file is whole: its payload hash (src/codeCache.ts's format) matches. */
function cacheIsWhole(file: string): boolean {
  const bytes = readFileSync(file);
  const header = 'mcnode code cache 1\n'.length + 64;
  return bytes.length > header && createHash('sha256').update(bytes.subarray(header)).digest().equals(bytes.subarray(header - 32, header));
}

t.test('the bundle\'s code cache: written after a start, used by the next, replaced when damaged',
  { skip: !existsSync(path.join(ROOT, 'dist/bundle/cli.js')) && 'no dist/bundle (esbuild not installed)' }, async (t) => {
    // A copy beside dist/bundle (same depth: node_modules, workers and config resolve alike), so
    // that other tests' starts do not touch this cache.
    const dir = path.join(ROOT, 'dist', `bundle-test-${process.pid}`);
    rmSync(dir, { recursive: true, force: true });
    cpSync(path.join(ROOT, 'dist/bundle'), dir, { recursive: true, filter: (f) => !f.endsWith('.cache') });
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const entry = path.join(dir, 'cli.js');
    const cacheFile = path.join(dir, 'mcnode.cjs.cache');

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
