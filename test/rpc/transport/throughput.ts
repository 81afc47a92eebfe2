// Throughput measurement for the JSON-RPC transport (not a test: no assertions, prints numbers).
//   node --import=@tapjs/typescript/import test/rpc/transport/throughput.ts [seconds] [connections]
// 1. In-process: Dispatcher.handle on a trivial method, jayson invoker vs direct Map call.
// 2. HTTP: server in this process, a forked load generator with N keep-alive connections, each
//    sending the next request as soon as the previous reply is complete (no pipelining).

import { fork } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Dispatcher } from '../../../src/rpc/dispatch.js';
import { HttpRpcServer } from '../../../src/rpc/http.js';
import type { RpcMethod } from '../../../src/rpc/types.js';

const BODY = '{"jsonrpc":"2.0","id":1,"method":"mc_blockNumber","params":[]}';
const methods = new Map<string, RpcMethod>([['mc_blockNumber', { handler: () => '0x1' }]]);

async function inProcess(invoker: 'jayson' | 'direct', calls: number): Promise<number> {
  const d = new Dispatcher({ methods, invoker });
  const ctx = { transport: 'http' as const };
  for (let i = 0; i < 20_000; i++) await d.handle(BODY, ctx); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await d.handle(BODY, ctx);
  const ns = Number(process.hrtime.bigint() - start);
  return (calls / ns) * 1e9;
}

async function overHttp(invoker: 'jayson' | 'direct', seconds: number, connections: number): Promise<number> {
  const dispatcher = new Dispatcher({ methods, invoker });
  const server = new HttpRpcServer({ host: '127.0.0.1', port: 0, corsOrigins: [], vhosts: ['localhost'], route: () => dispatcher });
  const { port } = await server.start();
  const child = fork(fileURLToPath(import.meta.url), ['client', String(port), String(seconds), String(connections)]);
  const result = await new Promise<{ requests: number; errors: number; ms: number }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { requests: number; errors: number; ms: number }));
    child.once('error', reject);
  });
  await server.stop();
  if (result.errors > 0) console.log(`  (${result.errors} unexpected replies)`);
  return (result.requests / result.ms) * 1000;
}

// Load generator: raw keep-alive sockets, minimal response parsing (Content-Length framing).
async function client(port: number, seconds: number, connections: number): Promise<void> {
  const request = Buffer.from(
    `POST / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`,
  );
  const expected = '{"jsonrpc":"2.0","id":1,"result":"0x1"}';
  let requests = 0;
  let errors = 0;
  let running = true;
  const start = Date.now();
  const done = Promise.all(
    Array.from({ length: connections }, () =>
      new Promise<void>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.setNoDelay(true);
        let buffered = '';
        socket.on('connect', () => socket.write(request));
        socket.on('data', (chunk) => {
          buffered += chunk.toString('latin1');
          for (;;) {
            const head = buffered.indexOf('\r\n\r\n');
            if (head < 0) return;
            const m = /content-length: (\d+)/i.exec(buffered.slice(0, head));
            const length = m === null ? 0 : Number(m[1]);
            if (buffered.length < head + 4 + length) return;
            if (buffered.slice(head + 4, head + 4 + length) !== expected) errors++;
            buffered = buffered.slice(head + 4 + length);
            requests++;
            if (running) socket.write(request);
            else {
              socket.end();
              resolve();
              return;
            }
          }
        });
        socket.on('error', () => resolve());
      }),
    ),
  );
  setTimeout(() => (running = false), seconds * 1000);
  await done;
  process.send?.({ requests, errors, ms: Date.now() - start });
  process.disconnect?.();
}

async function main(): Promise<void> {
  const [mode, a, b, c] = process.argv.slice(2);
  if (mode === 'client') return client(Number(a), Number(b), Number(c));
  const seconds = Number(mode ?? 5);
  const connections = Number(a ?? 16);
  const calls = 300_000;
  console.log(`in-process Dispatcher.handle, ${calls} sequential calls of mc_blockNumber:`);
  for (const inv of ['direct', 'jayson', 'direct', 'jayson'] as const) {
    console.log(`  ${inv.padEnd(6)} ${Math.round(await inProcess(inv, calls))} calls/s`);
  }
  console.log(`HTTP, ${connections} keep-alive connections, ${seconds} s each:`);
  for (const inv of ['direct', 'jayson', 'direct', 'jayson'] as const) {
    console.log(`  ${inv.padEnd(6)} ${Math.round(await overHttp(inv, seconds, connections))} req/s`);
  }
}

// `tap test/rpc/transport/` would pick this file up too: do nothing under tap.
if (process.env.TAP !== '1') await main();
