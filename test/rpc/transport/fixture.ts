// Shared pieces for the transport tests: a small method table and raw HTTP / IPC clients.

import { request } from 'node:http';
import { ErrorKind, NodeError } from '../../../src/errors.js';
import type { RpcMethod, RpcParams } from '../../../src/rpc/types.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const arg = (params: RpcParams, i: number): unknown => (Array.isArray(params) ? params[i] : undefined);

/** Counts notifications so a test can see they ran even though nothing was sent back. */
export const sideEffects = { count: 0 };

// Two callers of `barrier` release each other; run sequentially, the first one would give up.
let waiting: (() => void) | undefined;
function barrier(): Promise<string> {
  if (waiting !== undefined) {
    const other = waiting;
    waiting = undefined;
    other();
    return Promise.resolve('second');
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting = undefined;
      reject(new NodeError(ErrorKind.Refused, 'barrier: nobody else arrived'));
    }, 3000);
    waiting = () => {
      clearTimeout(timer);
      resolve('first');
    };
  });
}

// `gate` calls stay pending until the test opens the gate: a call that is busy for as long as needed.
const gateWaiters: Array<() => void> = [];
export function openGate(): void {
  for (const release of gateWaiters.splice(0)) release();
}

export function testMethods(): Map<string, RpcMethod> {
  const m = new Map<string, RpcMethod>();
  const add = (name: string, handler: RpcMethod['handler']) => m.set(name, { handler });
  add('echo', (p) => p);
  add('slow', async (p) => {
    await sleep(Number(arg(p, 0) ?? 50));
    return arg(p, 1) ?? 'slow';
  });
  add('barrier', barrier);
  add('gate', () => new Promise<string>((resolve) => gateWaiters.push(() => resolve('opened'))));
  add('throws', () => {
    throw new Error('boom');
  });
  add('rejects', async () => {
    throw new Error('nope');
  });
  add('throwsString', () => {
    throw 'a string, not an Error';
  });
  add('throwsUndefined', () => {
    throw undefined;
  });
  add('returnsNull', () => null);
  add('returnsUndefined', () => undefined);
  add('returnsBigint', () => 1n);
  add('big', (p) => 'x'.repeat(Number(arg(p, 0))));
  add('count', () => {
    sideEffects.count++;
    return sideEffects.count;
  });
  add('err_invalidParams', () => {
    throw new NodeError(ErrorKind.InvalidParams, 'invalid argument 0: hex string without 0x prefix');
  });
  add('err_refused', () => {
    throw new NodeError(ErrorKind.Refused, 'filter not found');
  });
  add('err_unauthorized', () => {
    throw new NodeError(ErrorKind.Unauthorized, 'authentication needed: password or unlock');
  });
  add('err_limitExceeded', () => {
    throw new NodeError(ErrorKind.LimitExceeded, 'limit exceeded: filters');
  });
  add('err_reverted', () => {
    throw new NodeError(ErrorKind.Reverted, 'insufficient funds', '0x08c379a0');
  });
  add('err_revertedBare', async () => {
    throw new NodeError(ErrorKind.Reverted, 'execution reverted', '0x');
  });
  add('err_unavailable', () => {
    throw new NodeError(ErrorKind.Unavailable, 'the method mc_x does not exist/is not available');
  });
  add('err_internal', () => {
    throw new NodeError(ErrorKind.Internal, 'database closed');
  });
  add('mc_blockNumber', () => '0x10');
  add('libx_clientVersion', () => 'mcnode/test');
  add('admin_peers', () => []);
  add('personal_listAccounts', () => []);
  add('ScsRPCMethod.GetNonce', (p) => ({ nonce: 7, sent: p }));
  return m;
}

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface HttpCall {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** One HTTP exchange on a fresh connection; the default is a JSON POST to `/`. */
export function http(port: number, call: HttpCall = {}): Promise<HttpReply> {
  const body = call.body;
  const headers: Record<string, string | number> = { 'Content-Type': 'application/json', ...call.headers };
  if (body !== undefined) headers['Content-Length'] = Buffer.byteLength(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: call.method ?? 'POST', path: call.path ?? '/', headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const post = (port: number, body: string, headers?: Record<string, string>) => http(port, { body, headers });

/** The raw line-oriented IPC client the reliability tools use. */
export { IpcConnection as IpcClient } from '../../../tools/lib/rpcClient.js';

/** Parses a transcript: `-->` request lines each followed by `<--` reply or `<-- (no reply)`. */
export interface TranscriptCase {
  line: number;
  request: string;
  reply: string | undefined;
}

export function parseTranscript(text: string): TranscriptCase[] {
  const cases: TranscriptCase[] = [];
  let pending: { line: number; request: string } | undefined;
  text.split('\n').forEach((raw, i) => {
    if (raw.startsWith('--> ')) {
      if (pending !== undefined) throw new Error(`line ${pending.line}: request without a reply line`);
      pending = { line: i + 1, request: raw.slice(4) };
    } else if (raw.startsWith('<-- ')) {
      if (pending === undefined) throw new Error(`line ${i + 1}: reply without a request`);
      const reply = raw.slice(4);
      cases.push({ ...pending, reply: reply === '(no reply)' ? undefined : reply });
      pending = undefined;
    } else if (raw.trim() !== '' && !raw.startsWith('//')) {
      throw new Error(`line ${i + 1}: not a transcript line: ${raw.slice(0, 60)}`);
    }
  });
  if (pending !== undefined) throw new Error(`line ${pending.line}: request without a reply line`);
  return cases;
}
