// `npm start`'s path: bin/mcnode starts Node with the memory settings that must precede start-up
// (src/heapTuning.ts) on tools/start.mjs, which runs the bundled CLI (dist/bundle/, when esbuild
// built one) in the same process; the node it starts must serve requests, run a transaction
// through the EVM and seal it, i.e. the lazily loaded chunks and the worker files resolve from
// the bundle too.

import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LAUNCH_ENV, LAUNCH_NODE_FLAGS } from '../../src/heapTuning.js';
import { ROOT, launchSettingsOf, postJson, waitFor } from '../helpers/node.js';

const START = path.join(ROOT, 'tools/start.mjs');
const BIN = path.join(ROOT, 'bin/mcnode');

/** This environment without the variables bin/mcnode sets (the test expects its own values) */
const plainEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !(k in LAUNCH_ENV)));

/** `entry` is a JavaScript file run by this Node, or an executable (the bin) */
async function startVia(entry: string, datadir: string, env: NodeJS.ProcessEnv = plainEnv) {
  const args = ['--datadir', datadir, '--rpcport', '0', '--scsrpcport', '0', '--ipcdisable', '--mining.mode', 'instant'];
  const script = /\.m?js$/.test(entry);
  const proc = spawn(script ? process.execPath : entry, script ? [entry, ...args] : args, {
    cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'],
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
  return { rpc, stop, pid: proc.pid! };
}

async function servesAndMines(t: Test, entry: string) {
  const node = await startVia(entry, t.testdir());
  if (entry === BIN) t.same(launchSettingsOf(node.pid), { env: LAUNCH_ENV, flags: LAUNCH_NODE_FLAGS }, 'Node runs with the memory settings');
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

t.test('bin/mcnode (npm start, the bin) serves requests and mines a transaction', (t) => servesAndMines(t, BIN));

t.test('tools/start.mjs serves requests and mines a transaction', (t) => servesAndMines(t, START));

t.test('bin/mcnode keeps a MALLOC_ARENA_MAX the user set', async (t) => {
  const node = await startVia(BIN, t.testdir(), { ...plainEnv, MALLOC_ARENA_MAX: '4' });
  t.teardown(() => node.stop());
  t.same(launchSettingsOf(node.pid), { env: { MALLOC_ARENA_MAX: '4' }, flags: LAUNCH_NODE_FLAGS });
  t.equal(await node.rpc('net_listening'), true);
  t.equal(await node.stop(), 0);
});

t.test('package.json runs bin/mcnode for npm start and as its bin', async (t) => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  t.equal(pkg.scripts.start, 'bin/mcnode');
  t.same(pkg.bin, { mcnode: 'bin/mcnode' });
});

t.test('the bundle itself, when the build made one', { skip: !existsSync(path.join(ROOT, 'dist/bundle/cli.js')) && 'no dist/bundle (esbuild not installed)' },
  (t) => servesAndMines(t, path.join(ROOT, 'dist/bundle/cli.js')));
