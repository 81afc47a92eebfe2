// A small HTTP/1.1 load generator on raw keep-alive sockets: each connection keeps exactly one
// request in flight (request → response → next request) and every latency goes into one
// preallocated array. Raw sockets rather than node:http's client: on a 2-core machine the
// generator shares the CPU with the node, so its own cost per request must stay small.

import net from 'node:net';

export type Body = string | Buffer;
/** The body of request `k` (0-based, per connection) on connection `conn`. */
export type BodySource = Body | ((conn: number, k: number) => Body);

export interface LoadOptions {
  url: string;
  connections: number;
  body: BodySource;
  /** Duration mode: run for this long after the warm-up. */
  durationMs?: number;
  /** Duration mode: requests sent during the warm-up are not counted. */
  warmupMs?: number;
  /** Count mode (instead of a duration): each connection sends this many requests, then stops. */
  requestsPerConnection?: number;
}

export interface LoadResult {
  /** responses counted (the measured window only) */
  requests: number;
  /** non-200 statuses and JSON-RPC error replies among them */
  errors: number;
  firstError?: string;
  /** performance.now() when the measured window began */
  startedAt: number;
  elapsedMs: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** process CPU time of this generator over the window, as a share of one core */
  clientCpu: number;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');
const ERROR_MEMBER = Buffer.from('"error"');
// At most this many latencies per second of duration are kept without growing the array.
const EXPECTED_PEAK_RATE = 100_000;

class Latencies {
  private values: Float64Array;
  length = 0;

  constructor(capacity: number) {
    this.values = new Float64Array(Math.max(1024, capacity));
  }

  push(ms: number): void {
    if (this.length === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.length++] = ms;
  }

  /** Sorted copy of the recorded values. */
  sorted(): Float64Array {
    return this.values.slice(0, this.length).sort();
  }
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** One keep-alive socket with at most one request outstanding. */
class Connection {
  private socket: net.Socket;
  private buffered: Buffer | undefined;
  private onReply: ((status: number, body: Buffer) => void) | undefined;
  private onFail: ((err: Error) => void) | undefined;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('connection closed by the server')));
  }

  static open(host: string, port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new Connection(socket));
      });
      socket.once('error', reject);
    });
  }

  send(request: Body, onReply: (status: number, body: Buffer) => void, onFail: (err: Error) => void): void {
    this.onReply = onReply;
    this.onFail = onFail;
    this.socket.write(request);
  }

  close(): void {
    this.onFail = undefined;
    this.socket.destroy();
  }

  private fail(err: Error): void {
    const onFail = this.onFail;
    this.onFail = undefined;
    this.onReply = undefined;
    onFail?.(err);
  }

  private onData(chunk: Buffer): void {
    const buf = this.buffered === undefined ? chunk : Buffer.concat([this.buffered, chunk]);
    const headerEnd = buf.indexOf(CRLFCRLF);
    if (headerEnd < 0) {
      this.buffered = buf;
      return;
    }
    const head = buf.toString('latin1', 0, headerEnd);
    const status = Number(head.slice(9, 12));
    const match = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (match === null) return this.fail(new Error(`reply without Content-Length:\n${head}`));
    const total = headerEnd + 4 + Number(match[1]);
    if (buf.length < total) {
      this.buffered = buf;
      return;
    }
    // One request in flight, so nothing may follow the body.
    this.buffered = undefined;
    const onReply = this.onReply;
    this.onReply = undefined;
    onReply?.(status, buf.subarray(headerEnd + 4, total));
  }
}

/** Serialises request bodies into complete HTTP requests (constant bodies once). */
function requestFactory(url: URL, body: BodySource): (conn: number, k: number) => Body {
  const head = (length: number) =>
    `POST ${url.pathname || '/'} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${length}\r\n\r\n`;
  const build = (b: Body) =>
    typeof b === 'string' ? head(Buffer.byteLength(b)) + b : Buffer.concat([Buffer.from(head(b.length)), b]);
  if (typeof body !== 'function') {
    const whole = Buffer.from(build(body));
    return () => whole;
  }
  return (conn, k) => build(body(conn, k));
}

/** Runs the load; rejects if a connection fails (the node went away). */
export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const url = new URL(o.url);
  const countMode = o.requestsPerConnection !== undefined;
  if (countMode === (o.durationMs !== undefined)) throw new Error('give exactly one of durationMs and requestsPerConnection');
  const makeRequest = requestFactory(url, o.body);
  const connections = await Promise.all(
    Array.from({ length: o.connections }, () => Connection.open(url.hostname, Number(url.port || 80))),
  );
  const latencies = new Latencies(
    countMode ? o.connections * o.requestsPerConnection! : Math.ceil(((o.durationMs ?? 0) / 1000) * EXPECTED_PEAK_RATE),
  );
  let errors = 0;
  let firstError: string | undefined;

  const start = performance.now();
  const windowStart = countMode ? start : start + (o.warmupMs ?? 0);
  const windowEnd = countMode ? Infinity : windowStart + o.durationMs!;
  let cpuAtWindowStart = process.cpuUsage();
  const warmupTimer = setTimeout(() => (cpuAtWindowStart = process.cpuUsage()), windowStart - start);
  let lastReply = start;

  try {
    await new Promise<void>((resolve, reject) => {
      let running = connections.length;
      const finished = () => {
        if (--running === 0) resolve();
      };
      connections.forEach((connection, conn) => {
        let k = 0;
        const next = (): void => {
          if (countMode ? k >= o.requestsPerConnection! : performance.now() >= windowEnd) return finished();
          const request = makeRequest(conn, k++);
          const sent = performance.now();
          connection.send(request, (status, body) => {
            const now = performance.now();
            if (sent >= windowStart) {
              latencies.push(now - sent);
              lastReply = now;
              if (status !== 200 || body.indexOf(ERROR_MEMBER) >= 0) {
                errors++;
                firstError ??= `HTTP ${status}: ${body.toString('utf8', 0, Math.min(body.length, 300))}`;
              }
            }
            next();
          }, reject);
        };
        next();
      });
    });
  } finally {
    clearTimeout(warmupTimer);
    for (const c of connections) c.close();
  }

  const end = countMode ? lastReply : windowEnd;
  const elapsedMs = end - windowStart;
  const cpu = process.cpuUsage(cpuAtWindowStart);
  const sorted = latencies.sorted();
  return {
    requests: latencies.length,
    errors,
    firstError,
    startedAt: windowStart,
    elapsedMs,
    perSecond: (latencies.length * 1000) / elapsedMs,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length ? sorted[sorted.length - 1] : NaN,
    clientCpu: (cpu.user + cpu.system) / 1000 / Math.max(1, performance.now() - windowStart),
  };
}
