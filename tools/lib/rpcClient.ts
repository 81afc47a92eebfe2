// Raw clients for the reliability tools: one HTTP exchange with full control of method, headers
// and body (chunked or not), an IPC connection that writes raw bytes and reads reply lines, and
// small JSON-RPC helpers. Every wait has a deadline, so a hung node shows as a timeout.

import { request } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  ms: number;
}

export interface HttpCall {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** send the body with Transfer-Encoding: chunked in pieces of this many bytes */
  chunkBytes?: number;
  /** send only the headers, declaring the body's length, and wait for the answer (413 tests) */
  declareOnly?: boolean;
  timeoutMs?: number;
}

/** One HTTP exchange on a fresh connection; default a JSON POST. Rejects on timeout. */
export function httpCall(baseUrl: string, call: HttpCall = {}): Promise<HttpReply> {
  const url = new URL(baseUrl);
  const body = call.body;
  const headers: Record<string, string | number> = { 'Content-Type': 'application/json', ...call.headers };
  const chunked = call.chunkBytes !== undefined;
  if (body !== undefined && !chunked) headers['Content-Length'] = Buffer.byteLength(body);
  const declareOnly = call.declareOnly === true;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      { host: url.hostname, port: url.port, method: call.method ?? 'POST', path: call.path ?? url.pathname + url.search, headers, agent: false },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(call.timeoutMs ?? 30_000, () => req.destroy(new Error(`HTTP timeout after ${call.timeoutMs ?? 30_000} ms`)));
    // A server may answer (413) and close before the whole body is sent: the answer counts.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (body === undefined) return void req.end();
    if (declareOnly) return void req.flushHeaders();
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
    const piece = call.chunkBytes ?? 64 * 1024;
    let at = 0;
    const pump = (): void => {
      while (at < bytes.length && !answered && !req.destroyed) {
        const part = bytes.subarray(at, at + piece);
        at += part.length;
        if (!req.write(part)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

export const postJson = (url: string, body: string | Buffer, o: Omit<HttpCall, 'body'> = {}) => httpCall(url, { ...o, body });

/** A line-oriented IPC client: write raw bytes, read reply lines in order. */
export class IpcConnection {
  private buffered = '';
  private readonly lines: string[] = [];
  private readonly waiters: Array<(line: string | undefined) => void> = [];
  private ended = false;

  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      this.buffered += text;
      let nl: number;
      while ((nl = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        const waiter = this.waiters.shift();
        if (waiter) waiter(line);
        else this.lines.push(line);
      }
    });
    const finish = () => {
      this.ended = true;
      for (const w of this.waiters.splice(0)) w(undefined);
    };
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', () => undefined);
  }

  static open(path: string): Promise<IpcConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once('connect', () => resolve(new IpcConnection(socket)));
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.ended;
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** The next reply line; undefined when the server closed; rejects after `timeoutMs`. */
  next(timeoutMs = 30_000): Promise<string | undefined> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new Error(`IPC timeout after ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = (l: string | undefined) => {
        clearTimeout(timer);
        resolve(l);
      };
      this.waiters.push(waiter);
    });
  }

  async call(text: string, timeoutMs?: number): Promise<string | undefined> {
    this.write(text + '\n');
    return this.next(timeoutMs);
  }

  close(): void {
    this.socket.destroy();
  }
}

let nextId = 1;

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export class RpcFailure extends Error {
  constructor(
    readonly method: string,
    readonly error: RpcError,
  ) {
    super(`${method}: ${error.message} (${error.code})`);
  }
}

/** A JSON-RPC call over HTTP; returns the result or throws RpcFailure / a transport error. */
export async function rpc(url: string, method: string, params: unknown = [], timeoutMs = 30_000): Promise<any> {
  const reply = await postJson(url, JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }), { timeoutMs });
  if (reply.status !== 200) throw new Error(`${method}: HTTP ${reply.status} ${reply.body.slice(0, 200)}`);
  const parsed = JSON.parse(reply.body);
  if (parsed.error) throw new RpcFailure(method, parsed.error);
  return parsed.result;
}

/** Polls `fn` until it returns a truthy value or the deadline passes. */
export async function waitUntil<T>(fn: () => Promise<T>, what: string, timeoutMs = 20_000, everyMs = 25): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Checks that `text` is a JSON-RPC 2.0 reply: one response object, or a non-empty array of them.
 * Returns a reason when it is not.
 */
export function replyProblem(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 120)}`;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return 'empty array';
    for (const item of value) {
      const p = responseProblem(item);
      if (p) return `batch element: ${p}`;
    }
    return undefined;
  }
  return responseProblem(value);
}

function responseProblem(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not an object';
  const r = v as Record<string, unknown>;
  if (r.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  if (!('id' in r)) return 'no id';
  if (r.id !== null && typeof r.id !== 'string' && typeof r.id !== 'number') return 'bad id type';
  const hasResult = 'result' in r;
  const hasError = 'error' in r;
  if (hasResult === hasError) return 'needs exactly one of result and error';
  if (hasError) {
    const e = r.error as Record<string, unknown> | null;
    if (typeof e !== 'object' || e === null) return 'error is not an object';
    if (!Number.isInteger(e.code)) return 'error.code is not an integer';
    if (typeof e.message !== 'string') return 'error.message is not a string';
    if (typeof e.data === 'string' && /\n\s+at /.test(e.data)) return 'error.data carries a stack trace';
  }
  return undefined;
}

/** One batch request; each element is the result or the error object ({ error }). */
export async function rpcBatch(url: string, calls: Array<{ method: string; params: unknown }>, timeoutMs = 30_000): Promise<Array<{ result?: any; error?: RpcError }>> {
  if (calls.length === 0) return [];
  const first = nextId;
  nextId += calls.length;
  const reply = await postJson(url, JSON.stringify(calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, ...c }))), { timeoutMs });
  if (reply.status !== 200) throw new Error(`batch: HTTP ${reply.status} ${reply.body.slice(0, 200)}`);
  const parsed = JSON.parse(reply.body);
  if (!Array.isArray(parsed)) throw new Error(`batch: ${parsed.error?.message ?? 'not an array'}`);
  const byId = new Map<number, { result?: any; error?: RpcError }>(parsed.map((r: any) => [r.id, r]));
  return calls.map((_, i) => byId.get(first + i) ?? { error: { code: 0, message: 'no reply in the batch' } });
}

/** rpcBatch in chunks of `size` (the node takes at most 1000 per batch). */
export async function rpcBatchAll(url: string, calls: Array<{ method: string; params: unknown }>, size = 500): Promise<Array<{ result?: any; error?: RpcError }>> {
  const out: Array<{ result?: any; error?: RpcError }> = [];
  for (let i = 0; i < calls.length; i += size) out.push(...(await rpcBatch(url, calls.slice(i, i + size))));
  return out;
}
