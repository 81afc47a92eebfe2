// Fork-mode test and bench helpers: a counting HTTP proxy in front of an upstream node, and a
// storage contract whose calls touch many slots.

import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ROOT, postJson } from './node.js';
import { asm } from './evmAsm.js';
import { word } from './abi.js';

/** A node:http forwarder counting HTTP requests and JSON-RPC calls (a batch's members each). */
export interface CountingProxy {
  url: string;
  /** where requests go; change it when the upstream restarts on another port */
  target: string;
  /** HTTP requests forwarded */
  requests: number;
  /** JSON-RPC calls forwarded, batch members counted one by one */
  calls: number;
  /** method → calls */
  methods: Map<string, number>;
  reset(): void;
  close(): Promise<void>;
}

export async function countingProxy(target: string): Promise<CountingProxy> {
  const proxy: CountingProxy = {
    url: '',
    target,
    requests: 0,
    calls: 0,
    methods: new Map(),
    reset() {
      proxy.requests = 0;
      proxy.calls = 0;
      proxy.methods.clear();
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    proxy.requests++;
    try {
      const parsed = JSON.parse(body);
      for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
        proxy.calls++;
        proxy.methods.set(call.method, (proxy.methods.get(call.method) ?? 0) + 1);
      }
    } catch {
      // counted as a request; the upstream answers the parse error
    }
    try {
      const upstream = await fetch(proxy.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      res.writeHead(upstream.status, { 'content-type': 'application/json' });
      res.end(await upstream.text());
    } catch {
      // The upstream is down: the connection drops, as it would without the proxy.
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

/**
 * A storage contract. Calldata: n, mode, start (three words). mode 0 returns the sum of slots
 * [0, n); mode 1 writes slot i = i + 1 for i in [start, n) and logs LOG1(topic n).
 */
const RUNTIME = asm(`
  PUSH 0 CALLDATALOAD PUSH 32 CALLDATALOAD &fill JUMPI
  PUSH 0 PUSH 0
  :loop DUP3 DUP2 LT ISZERO &done JUMPI
  DUP1 SLOAD DUP3 ADD SWAP2 POP PUSH 1 ADD &loop JUMP
  :done POP PUSH 0 MSTORE PUSH 32 PUSH 0 RETURN
  :fill PUSH 64 CALLDATALOAD
  :floop DUP2 DUP2 LT ISZERO &fdone JUMPI
  DUP1 PUSH 1 ADD DUP2 SSTORE PUSH 1 ADD &floop JUMP
  :fdone DUP2 PUSH 0 PUSH 0 LOG1 STOP
`);

/** Init code returning RUNTIME. */
export const SLOTS_INIT = '0x' + asm(`PUSH2 ${RUNTIME.length / 2} DUP1 PUSH2 13 PUSH 0 CODECOPY PUSH 0 RETURN`) + RUNTIME;

export const sumCall = (n: number): string => '0x' + word(n) + word(0) + word(0);
export const fillCall = (start: number, n: number): string => '0x' + word(n) + word(1) + word(start);
/** sum of i + 1 for i in [0, n) */
export const filledSum = (n: number): bigint => BigInt((n * (n + 1)) / 2);

/** The Anvil binary of the @foundry-rs/anvil dev dependency (tests and bench only). */
export const ANVIL = path.join(ROOT, 'node_modules/@foundry-rs', `anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`, 'bin/anvil');

/** Anvil's first dev account (its mnemonic "test test … junk", Ethereum path), unlocked in Anvil. */
export const ANVIL_ACCOUNT = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

export interface AnvilProcess {
  url: string;
  rpc(method: string, params?: unknown[]): Promise<any>;
  stop(): Promise<void>;
}

/** Starts Anvil on a free loopback port with `args` (e.g. --fork-url). */
export async function startAnvil(args: string[] = []): Promise<AnvilProcess> {
  const proc = spawn(ANVIL, ['--host', '127.0.0.1', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`anvil did not start:\n${out}`)), 60_000);
    proc.stdout!.on('data', (c) => {
      out += c;
      const m = /Listening on (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(`http://${m[1]}`);
      }
    });
    proc.stderr!.on('data', (c) => (out += c));
    proc.once('exit', (code) => reject(new Error(`anvil exited with ${code}:\n${out}`)));
  });
  proc.removeAllListeners('exit');
  let id = 1;
  return {
    url,
    async rpc(method, params = []) {
      const reply = await postJson(url, { jsonrpc: '2.0', id: id++, method, params });
      if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
      return reply.result;
    },
    stop: () => new Promise((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    }),
  };
}
