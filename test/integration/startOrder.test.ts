// What a script reads right after a node first answers is final: the banner (accounts and keys) is
// fully written, the peer-to-peer listener is bound (a real port in admin_nodeInfo and the enode)
// and the chain id is the configured one. The node's stdout goes to a file, so reading it after the
// first answer sees everything the node wrote before answering, whatever order the events reach
// this process in. Clients poll from the moment the process is spawned, on HTTP and IPC at once.

import t from 'tap';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CLI, ipcRequest, postJson } from '../helpers/node.js';
import { testDir } from '../helpers/testDir.js';

const STARTS = 4;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Calls `once` until it succeeds (connection refused while the node starts). */
async function firstAnswer<T>(once: () => Promise<T>, deadline: number): Promise<T> {
  for (;;) {
    try {
      return await once();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 2));
    }
  }
}

for (let i = 0; i < STARTS; i++) {
  t.test(`start ${i + 1}: the first answers see a finished start`, async (t) => {
    const datadir = testDir(t, {});
    const port = await freePort();
    const ipcPath = path.join(os.tmpdir(), `mcnode-order-${process.pid}-${i}.ipc`);
    const outFile = path.join(datadir, 'stdout.txt');
    const out = openSync(outFile, 'w');
    const proc = spawn(process.execPath, [
      CLI, '--datadir', path.join(datadir, 'data'), '--rpcport', String(port), '--scsrpcport', '0', '--ipcpath', ipcPath,
      '--port', '0', '--chain.chainId', '777',
    ], { stdio: ['ignore', out, 'pipe'] });
    closeSync(out);
    t.teardown(() => new Promise<void>((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    }));
    const deadline = Date.now() + 60_000;
    const url = `http://127.0.0.1:${port}`;
    const [listening, info] = await Promise.all([
      firstAnswer(async () => {
        const reply = await postJson(url, { jsonrpc: '2.0', id: 1, method: 'net_listening', params: [] });
        const banner = readFileSync(outFile, 'utf8');
        const chainId = await postJson(url, { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] });
        return { reply, banner, chainId };
      }, deadline),
      firstAnswer(() => ipcRequest(ipcPath, { jsonrpc: '2.0', id: 3, method: 'admin_nodeInfo', params: [] }), deadline),
    ]);
    t.equal(listening.reply.result, true, 'net_listening answers true');
    t.match(listening.banner, /\(9\) 0x[0-9a-f]{40} {2}key 0x[0-9a-f]{64}\n/, 'the banner, down to the last dev key, was written before the first answer');
    t.match(listening.banner, new RegExp(`HTTP    http://127\\.0\\.0\\.1:${port} `), 'the banner names the HTTP port');
    t.equal(listening.chainId.result, '0x309', 'eth_chainId is the configured chain id');
    const nodeInfo = info.result;
    t.ok(nodeInfo.ports.listener > 0, `the peer-to-peer listener is bound (port ${nodeInfo.ports.listener})`);
    t.match(nodeInfo.enode, new RegExp(`@127\\.0\\.0\\.1:${nodeInfo.ports.listener}(\\?|$)`), 'the enode carries the bound port');
  });
}
