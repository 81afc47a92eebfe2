// Starts the compiled node (dist/src/cmd/cli.js) as a child process on a temp datadir, reads its HTTP
// URL from the banner, and offers a few JSON-RPC helpers for setting up the benchmarks.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { processCpuTimes, type CpuTimes } from '../tools/lib/nodeProcess.js';
import { LAUNCH_ENV } from '../src/runtime/heapTuning.js';

export { processCpuTimes, type CpuTimes };

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'dist/src/cmd/cli.js');
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;

export interface RpcCall {
  method: string;
  params: unknown[];
}

export interface BenchNode {
  url: string;
  pid: number;
  /** the result, or throws with the JSON-RPC error message */
  rpc(method: string, params?: unknown[]): Promise<any>;
  /** one batch request; results in order, throws on any error */
  batch(calls: RpcCall[]): Promise<any[]>;
  /** user and system CPU seconds of the node process so far (Linux /proc), or undefined */
  cpuTimes(): CpuTimes | undefined;
  /** rejects when the node exits before stop() */
  readonly died: Promise<never>;
  output(): string;
  /** SIGTERM, wait for the exit, remove the datadir and socket; returns the exit code */
  stop(): Promise<number | null>;
}

let nextId = 1;

async function post(url: string, body: unknown): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  return res.json();
}

function resultOf(method: string, reply: any): any {
  if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result;
}

/**
 * Spawns `node [nodeFlags] dist/src/cmd/cli.js …` and resolves once the node answers mc_blockNumber.
 * `nodeFlags` go to the node binary (e.g. --cpu-prof); `args` are extra CLI flags.
 */
export async function startBenchNode(nodeFlags: string[], args: string[]): Promise<BenchNode> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const datadir = mkdtempSync(path.join(os.tmpdir(), 'mcnode-bench-'));
  // Unix socket paths are limited to ~100 bytes, so the socket gets its own short /tmp path.
  const ipcPath = path.join('/tmp', `mcb-${process.pid}.ipc`);
  const cleanup = () => {
    rmSync(datadir, { recursive: true, force: true });
    rmSync(ipcPath, { force: true });
  };
  // The SCS endpoint gets a free port too, so a bench never collides with another node on 8548.
  const cliArgs = [
    '--datadir', datadir, '--rpcport', '0', '--scsrpcport', '0', '--ipcpath', ipcPath,
    '--mining.mode', 'instant', '--verbosity', '1',
  ];
  // Started with npm start's environment (the memory setting that must precede start-up);
  // BENCH_NODE_FLAGS and the environment come after, so they win.
  const proc: ChildProcess = spawn(process.execPath, [...nodeFlags, CLI, ...cliArgs, ...args], {
    env: { ...LAUNCH_ENV, ...process.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  let stopping = false;
  const died = new Promise<never>((_, reject) => {
    proc.once('exit', (code, signal) => {
      if (!stopping) reject(new Error(`node exited (${signal ?? code}):\n${out}`));
    });
  });
  died.catch(() => undefined); // observed by whoever races it

  let url: string;
  try {
    url = await Promise.race([died, bannerUrl(() => out)]);
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      try {
        resultOf('mc_blockNumber', await post(url, { jsonrpc: '2.0', id: 0, method: 'mc_blockNumber', params: [] }));
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await Promise.race([died, new Promise((r) => setTimeout(r, 50))]);
      }
    }
  } catch (err) {
    proc.kill('SIGKILL');
    cleanup();
    throw err;
  }

  const node: BenchNode = {
    url,
    pid: proc.pid!,
    died,
    output: () => out,
    async rpc(method, params = []) {
      return resultOf(method, await post(url, { jsonrpc: '2.0', id: nextId++, method, params }));
    },
    async batch(calls) {
      const replies: any[] = await post(url, calls.map((c) => ({ jsonrpc: '2.0', id: nextId++, ...c })));
      return calls.map((c, i) => resultOf(c.method, replies[i]));
    },
    cpuTimes: () => processCpuTimes(proc.pid!),
    stop() {
      stopping = true;
      return new Promise((resolve) => {
        let killer: NodeJS.Timeout | undefined;
        const done = (code: number | null) => {
          clearTimeout(killer);
          cleanup();
          resolve(code);
        };
        if (proc.exitCode !== null || proc.signalCode !== null) return done(proc.exitCode);
        killer = setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
        proc.once('exit', (code) => done(code));
        proc.kill('SIGTERM');
      });
    },
  };
  return node;
}

function bannerUrl(output: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + START_TIMEOUT_MS;
    const poll = () => {
      const match = /HTTP\s+(http:\/\/\S+)/.exec(output());
      if (match) return resolve(match[1]);
      if (/HTTP\s+disabled/.test(output())) return reject(new Error('the node started without HTTP'));
      if (Date.now() > deadline) return reject(new Error(`no HTTP banner line within ${START_TIMEOUT_MS} ms:\n${output()}`));
      setTimeout(poll, 20);
    };
    poll();
  });
}
