// Spawns a real mcnode process on a temp datadir and talks to it over HTTP and IPC, as users do.
// The process is the `mcnode` command (bin/mcnode.js), which runs the bundle and its code cache
// (dist/bundle/): what `npm start` and an installed package run. `npm test` builds dist/ first.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import nodeModule from 'node:module';
import { LAUNCH_ENV } from '../../src/runtime/heapTuning.js';
import { codeCacheFile } from '../../src/runtime/codeCache.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The `mcnode` command: the bundle users run. */
export const CLI = path.join(ROOT, 'bin/mcnode.js');
/** The compiled entry the Docker image runs (dist/src/cmd/cli.js), for the tests of that path. */
export const COMPILED_CLI = path.join(ROOT, 'dist/src/cmd/cli.js');

export interface RpcReply {
  jsonrpc: string;
  id: unknown;
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

export interface TestNode {
  proc: ChildProcess;
  datadir: string;
  url: string;
  ipcPath: string;
  /** the SCS endpoint (`rpc` variant; rpcdebug at `${scsUrl}/rpc`), when the banner shows one */
  scsUrl?: string;
  stdout: () => string;
  stderr: () => string;
  /** raw JSON-RPC reply over HTTP */
  call(method: string, params?: unknown[]): Promise<RpcReply>;
  /** the result, or throws with the error message */
  rpc(method: string, params?: unknown[]): Promise<any>;
  ipcCall(method: string, params?: unknown[]): Promise<RpcReply>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

let nextId = 1;
let ipcCounter = 0;

/** A running process's environment, read from /proc. */
export function environmentOf(pid: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

/** The LAUNCH_ENV variables (src/heapTuning.ts) in a running process's environment. */
export function launchEnvOf(pid: number): Record<string, string> {
  const env = environmentOf(pid);
  return Object.fromEntries(Object.keys(LAUNCH_ENV).filter((name) => name in env).map((name) => [name, env[name]]));
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RpcReply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return (await res.json()) as RpcReply;
}

export function ipcRequest(ipcPath: string, body: unknown): Promise<RpcReply> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(ipcPath);
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString();
      const nl = buffer.indexOf('\n');
      if (nl >= 0) {
        socket.end();
        resolve(JSON.parse(buffer.slice(0, nl)));
      }
    });
    socket.on('error', reject);
    socket.write(JSON.stringify(body) + '\n');
  });
}

/**
 * Starts a node. `args` are extra CLI flags; HTTP binds an ephemeral port unless given.
 * Resolves once the banner shows the endpoints.
 */
export async function startNode(datadir: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<TestNode> {
  // Without the bundle the command would fall back to the compiled sources: not what users run.
  if (!existsSync(path.join(ROOT, 'dist/bundle/cli.js'))) throw new Error('dist/bundle/ is missing: run `npm run build` first');
  const hasPort = args.some((a) => a.startsWith('--rpcport'));
  // The SCS endpoint is on by default (port 8548): tests run side by side, so it binds an ephemeral port.
  const hasScsPort = args.some((a) => /^--(scsrpcport|scs\.rpcport)/i.test(a));
  // Unix socket paths are limited to ~100 bytes; test datadirs are deep, so sockets go to /tmp.
  const hasIpc = args.some((a) => a.startsWith('--ipc'));
  const ipcArgs = hasIpc ? [] : ['--ipcpath', path.join(os.tmpdir(), `mcnode-${process.pid}-${ipcCounter++}.ipc`)];
  // Every call a test makes is also answered by the library EVM and compared (docs/design/call-interpreter.md).
  const verifyArgs = args.some((a) => /^--rpc\.fastcall/i.test(a)) ? [] : ['--rpc.fastcall.verify', '1'];
  const proc = spawn(process.execPath, [CLI, '--datadir', datadir, ...(hasPort ? [] : ['--rpcport', '0']), ...(hasScsPort ? [] : ['--scsrpcport', '0']), ...ipcArgs, ...verifyArgs, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (err += c));
  const started = await new Promise<{ url: string; ipcPath: string; scsUrl?: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`node did not start:\n${out}\n${err}`)), 30_000);
    const check = () => {
      const http = /HTTP\s+(http:\/\/\S+)/.exec(out);
      const ipc = /IPC\s+(\/\S+)/.exec(out);
      // The SCS line comes last of the endpoint lines: once it is there, the banner is complete.
      if ((/HTTP\s+disabled/.test(out) || http) && /\nSCS\s+\S/.test(out)) {
        clearTimeout(timer);
        resolve({ url: http?.[1] ?? '', ipcPath: ipc?.[1] ?? '', scsUrl: /SCS\s+(http:\/\/\S+)/.exec(out)?.[1] });
      }
    };
    proc.stdout!.on('data', check);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`node exited with ${code}:\n${out}\n${err}`));
    });
  });
  proc.removeAllListeners('exit');
  const node: TestNode = {
    proc,
    datadir,
    url: started.url,
    ipcPath: started.ipcPath,
    scsUrl: started.scsUrl,
    stdout: () => out,
    stderr: () => err,
    call: (method, params = []) => postJson(started.url, { jsonrpc: '2.0', id: nextId++, method, params }),
    async rpc(method, params = []) {
      const reply = await node.call(method, params);
      if (reply.error) throw Object.assign(new Error(`${method}: ${reply.error.message}`), { rpcError: reply.error });
      return reply.result;
    },
    ipcCall: (method, params = []) => ipcRequest(started.ipcPath, { jsonrpc: '2.0', id: nextId++, method, params }),
    stop(signal = 'SIGTERM') {
      return new Promise((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve(proc.exitCode);
        proc.once('exit', (code) => resolve(code));
        proc.kill(signal);
      });
    },
  };
  return node;
}

/** Polls until `fn` returns a truthy value (e.g. a receipt). */
export async function waitFor<T>(fn: () => Promise<T>, what: string, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Node has its own compile cache (22.8 and later), which the bundle then uses instead of its own. */
export const NODE_COMPILE_CACHE = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';

/** The bundle's hand-kept code cache (src/runtime/codeCache.ts), where Node has no compile cache of its own. */
export const CODE_CACHE = codeCacheFile(path.join(ROOT, 'dist/bundle/mcnode.cjs'));

/**
 * Makes sure the bundle's code cache exists (a node start writes it), so that what runs next takes
 * the cached path users take from their second start on. With `--verbosity 4` the command logs
 * which path it took: CACHE_USED.
 */
export async function withCodeCache(datadir: string): Promise<void> {
  if (!NODE_COMPILE_CACHE && CODE_CACHE !== undefined && existsSync(CODE_CACHE)) return;
  const node = await startNode(datadir, ['--mining.mode', 'off', '--ipcdisable']);
  await node.stop();
}

/** The debug line of a run from the bundle with its code cache: the hand-kept one taken, or Node's. */
export const CACHE_USED = NODE_COMPILE_CACHE ? /DEBUG code cache state=node\n/ : /DEBUG code cache state=used\n/;
