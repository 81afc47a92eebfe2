// Runs the real Anvil (npm @foundry-rs/anvil, its prebuilt Linux binary) for tests that compare
// mcnode with it on the same calls, or move state between the two.

import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { postJson, type RpcReply } from './node.js';

const require = createRequire(import.meta.url);

/** The anvil binary inside the platform package, or undefined where none is installed. */
export function anvilBinary(): string | undefined {
  const platform = `@foundry-rs/anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`;
  try {
    return path.join(path.dirname(require.resolve(`${platform}/package.json`)), 'bin', 'anvil');
  } catch {
    return undefined;
  }
}

export interface AnvilNode {
  url: string;
  proc: ChildProcess;
  output: () => string;
  call(method: string, params?: unknown[]): Promise<RpcReply>;
  rpc(method: string, params?: unknown[]): Promise<any>;
  stop(): Promise<void>;
}

let nextId = 1;

export async function startAnvil(args: string[] = []): Promise<AnvilNode> {
  const bin = anvilBinary();
  if (!bin) throw new Error('the anvil binary is not installed (npm i -D @foundry-rs/anvil)');
  const proc = spawn(bin, ['--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`anvil did not start:\n${out}`)), 30_000);
    const check = () => {
      const m = /Listening on [\d.]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    proc.stdout!.on('data', check);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited with ${code}:\n${out}`));
    });
  });
  proc.removeAllListeners('exit');
  const url = `http://127.0.0.1:${port}`;
  const node: AnvilNode = {
    url,
    proc,
    output: () => out,
    call: (method, params = []) => postJson(url, { jsonrpc: '2.0', id: nextId++, method, params }),
    async rpc(method, params = []) {
      const reply = await node.call(method, params);
      if (reply.error) throw Object.assign(new Error(`anvil ${method}: ${reply.error.message}`), { rpcError: reply.error });
      return reply.result;
    },
    stop: () => new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGINT');
    }),
  };
  return node;
}
