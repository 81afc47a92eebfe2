// The differential run for the HTTP fast path: every case of heads.ts goes to two HttpRpcServers
// in this process, the same endpoint with the fast path on and off (node:http alone), and what
// each sends back is compared: the bytes of every response (the Date header aside) and whether the
// server closed the connection. The cases run many at a time; one that differs is played again,
// alone and slowly (longer gaps between writes, a longer wait for the answer), twice at most,
// before it counts: a loaded machine can merge two writes into one read on one side only, or
// answer after the wait, and that is not a disagreement.
//
// One exception, checked rather than assumed: node:http's answers to the requests that precede a
// malformed one in the same read depend on how its parser is fed. Reading the socket itself, it
// runs queued work whenever a request's body arrives, so some of those requests are answered
// before its 400; fed the same bytes from JavaScript (as after the fast path's hand-over, the only
// way bytes already read can reach it), it answers 400 first and closes. A case whose fast-path
// answer differs from node:http's but equals node:http's own answer when fed from JavaScript
// (a third connection, injected as node:http's documented 'connection' event allows) is counted
// apart as `fedFromJs`, not as a disagreement.
//
// The generated calls answer at once (echo). A call still running when malformed bytes arrive in a
// later read is the other known difference, not generated: node:http answers 400 at once and drops
// the call's reply, the fast path sends the reply and then hands the bytes over (node:http's own
// outcome there depends on whether the call ended before the bytes came). docs/design/http-fast-path.md.

import { connect } from 'node:net';
import type { Server } from 'node:http';
import { Duplex } from 'node:stream';
import { Dispatcher } from '../../src/rpc/dispatch.js';
import { HttpRpcServer } from '../../src/rpc/http.js';
import type { RpcMethod } from '../../src/rpc/types.js';
import { HEAD_FUZZ_HOST, HEAD_FUZZ_ORIGIN, headCase, type HeadCase } from './heads.js';

export interface HeadDiffOptions {
  seed: number;
  count: number;
  /** only these case indexes (replaying a disagreement) */
  only?: number[];
  concurrency?: number;
  onProgress?: (done: number) => void;
}

export interface HeadOutcome {
  /** everything the server sent, as latin1, with Date headers removed */
  transcript: string;
  /** the server ended or reset the connection */
  closed: boolean;
}

export interface HeadDisagreement {
  index: number;
  sent: HeadCase;
  fast: HeadOutcome;
  plain: HeadOutcome;
}

export interface HeadDiffResult {
  cases: number;
  disagreements: HeadDisagreement[];
  /** cases that differed at full speed and agreed when played slowly */
  replayed: number;
  /** cases where the fast path answered as node:http answers when fed from JavaScript (see above) */
  fedFromJs: number;
  /** cases both servers left unanswered and open, even when played slowly */
  silent: number;
  /** requests the fast path answered itself (the rest went to node:http) */
  servedFast: number;
  /** first status of each case's answer, on the node:http side: what the cases exercised */
  statuses: Record<string, number>;
}

export interface Pace {
  /** between writes */
  gapMs: number;
  /** the answer is complete once nothing has arrived for this long (or the server closed) */
  quietMs: number;
}

const FAST: Pace = { gapMs: 2, quietMs: 60 };
const SLOW: Pace = { gapMs: 40, quietMs: 500 };
const SLOWER: Pace = { gapMs: 150, quietMs: 1500 };

function methods(): Map<string, RpcMethod> {
  const m = new Map<string, RpcMethod>();
  m.set('echo', { handler: (params) => params });
  // Not in generated cases (see above): for tests of a call still running.
  m.set('sleep', { handler: async (params) => new Promise((resolve) => setTimeout(() => resolve(params), Array.isArray(params) ? Number(params[0]) : 0)) });
  m.set('fails', {
    handler: () => {
      throw new Error('fails on purpose');
    },
  });
  return m;
}

/** The same endpoint twice: fast path on, and node:http alone; tests may shorten the timeouts. */
export async function startPair(timeouts: { requestTimeoutMs?: number; idleTimeoutMs?: number } = {}): Promise<ServerPair> {
  const dispatcher = new Dispatcher({ methods: methods() });
  const make = (fastPath: boolean) =>
    new HttpRpcServer({
      host: '127.0.0.1', port: 0, corsOrigins: [HEAD_FUZZ_ORIGIN], vhosts: [HEAD_FUZZ_HOST],
      route: (p) => (p === '/' ? dispatcher : undefined), fastPath, ...timeouts,
    });
  const fast = make(true);
  const plain = make(false);
  const [a, b] = await Promise.all([fast.start(), plain.start()]);
  return { fast, plain, ports: [a.port, b.port], stop: async () => void (await Promise.all([fast.stop(), plain.stop()])) };
}

export interface ServerPair {
  /** fast path on */
  fast: HttpRpcServer;
  /** node:http alone */
  plain: HttpRpcServer;
  ports: [fast: number, plain: number];
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** What a client connection has seen so far. */
interface Seen {
  closed: boolean;
  /** data and close events */
  events: number;
}

/**
 * Waits until nothing has arrived for `quietMs` of time in which this process ran. A step that
 * took far longer than asked (the machine busy elsewhere) counts only as long as asked, and each
 * step lets pending I/O through first: a loaded machine stretches the wait rather than cutting
 * an answer short, which would make both servers look silent and agree about nothing.
 */
async function waitQuiet(seen: Seen, quietMs: number): Promise<void> {
  const step = Math.min(20, quietMs);
  let quiet = 0;
  let events = seen.events;
  while (!seen.closed && quiet < quietMs) {
    const before = Date.now();
    await sleep(step);
    await turn();
    await turn();
    if (seen.events !== events) {
      events = seen.events;
      quiet = 0;
    } else quiet += Math.min(Date.now() - before, step * 1.5);
  }
}

/** Plays one case on a fresh connection and records what came back. */
export async function play(port: number, c: HeadCase, pace: Pace = FAST): Promise<HeadOutcome> {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true, noDelay: true });
  const chunks: Buffer[] = [];
  const seen: Seen = { closed: false, events: 0 };
  socket.on('data', (d: Buffer) => {
    chunks.push(d);
    seen.events++;
  });
  const onClosed = () => {
    seen.closed = true;
    seen.events++;
  };
  socket.on('end', onClosed);
  socket.on('close', onClosed);
  socket.on('error', () => undefined); // a reset after the server closed: `closed` tells
  try {
    await new Promise<void>((resolve) => {
      socket.once('connect', resolve);
      socket.once('close', resolve);
    });
    for (const w of c.writes) {
      if (seen.closed) break;
      socket.write(w);
      await sleep(pace.gapMs);
    }
    if (c.fin && !seen.closed) socket.end();
    await waitQuiet(seen, pace.quietMs);
  } finally {
    socket.destroy();
  }
  return { transcript: undated(chunks), closed: seen.closed };
}

const undated = (chunks: Buffer[]) => Buffer.concat(chunks).toString('latin1').replace(/\r\nDate: [^\r\n]*/g, '');

/** Plays a case on a connection injected into the fast-path-off server's node:http: fed from JavaScript. */
async function playFedFromJs(server: HttpRpcServer, c: HeadCase, pace: Pace): Promise<HeadOutcome> {
  const http = (server as unknown as { server: Server }).server;
  const [client, served] = duplexPair();
  http.emit('connection', served);
  const chunks: Buffer[] = [];
  const seen: Seen = { closed: false, events: 0 };
  client.on('data', (d: Buffer) => {
    chunks.push(d);
    seen.events++;
  });
  const onClosed = () => {
    seen.closed = true;
    seen.events++;
  };
  client.on('end', onClosed);
  client.on('close', onClosed);
  client.on('error', () => undefined);
  for (const w of c.writes) {
    if (seen.closed) break;
    client.write(w);
    await sleep(pace.gapMs);
  }
  if (c.fin && !seen.closed) client.end();
  await waitQuiet(seen, pace.quietMs);
  client.destroy();
  return { transcript: undated(chunks), closed: seen.closed };
}

/** Two connected in-memory stream ends, each with the few socket methods node:http calls. */
function duplexPair(): [Duplex, Duplex] {
  class End extends Duplex {
    other!: End;
    bytesRead = 0;
    constructor() {
      super({ allowHalfOpen: true });
    }
    override _read(): void {}
    override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
      this.other.bytesRead += chunk.length;
      this.other.push(chunk);
      done();
    }
    override _final(done: (error?: Error | null) => void): void {
      this.other.push(null);
      done();
    }
    override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
      if (!this.other.destroyed) this.other.destroy();
      done(error);
    }
    setTimeout(): this {
      return this;
    }
    setNoDelay(): this {
      return this;
    }
    destroySoon(): void {
      this.end();
    }
  }
  const a = new End();
  const b = new End();
  a.other = b;
  b.other = a;
  return [a, b];
}

const same = (a: HeadOutcome, b: HeadOutcome) => a.transcript === b.transcript && a.closed === b.closed;

export async function runHeadDiff(o: HeadDiffOptions): Promise<HeadDiffResult> {
  const pair = await startPair();
  const result: HeadDiffResult = { cases: 0, disagreements: [], replayed: 0, fedFromJs: 0, silent: 0, servedFast: 0, statuses: {} };
  const [fastPort, plainPort] = pair.ports;
  const concurrency = o.concurrency ?? 12;
  const differing: number[] = [];
  const silent: number[] = [];
  const statusOf = (plain: HeadOutcome) => /^HTTP\/1\.1 (\d{3})/.exec(plain.transcript)?.[1] ?? (plain.closed ? 'closed' : 'open');
  const count = (status: string, by: number) => void (result.statuses[status] = (result.statuses[status] ?? 0) + by);
  try {
    const indexes = o.only ?? Array.from({ length: o.count }, (_, i) => i);
    await inParallel(indexes, concurrency, async (index, first) => {
      const c = headCase(o.seed, index);
      const [fast, plain] = await Promise.all([play(fastPort, c, first ? SLOW : FAST), play(plainPort, c, first ? SLOW : FAST)]);
      if (!same(fast, plain)) differing.push(index);
      else if (fast.transcript === '' && !fast.closed) silent.push(index);
      count(statusOf(plain), 1);
      if (++result.cases % 500 === 0) o.onProgress?.(result.cases);
    });
    // Both servers silent agree about nothing, and on a loaded machine an answer can come after
    // the short wait: such cases are played again, slowly (a few in a hundred stay silent: requests
    // left unfinished on an open connection, which node:http answers only at its timeout).
    await inParallel(silent, concurrency, async (index) => {
      const c = headCase(o.seed, index);
      const [fast, plain] = await Promise.all([play(fastPort, c, SLOW), play(plainPort, c, SLOW)]);
      if (!same(fast, plain)) differing.push(index);
      else if (fast.transcript === '' && !fast.closed) result.silent++;
      count('open', -1);
      count(statusOf(plain), 1);
    });
    // The replays of differing cases run one at a time, so that nothing else slows the servers down.
    for (const index of differing.sort((x, y) => x - y)) {
      const c = headCase(o.seed, index);
      let verdict: 'same' | 'js' | HeadDisagreement = 'same';
      for (const pace of [SLOW, SLOWER]) {
        const [fast, plain] = await Promise.all([play(fastPort, c, pace), play(plainPort, c, pace)]);
        if (same(fast, plain)) verdict = 'same';
        else verdict = same(fast, await playFedFromJs(pair.plain, c, pace)) ? 'js' : { index, sent: c, fast, plain };
        if (verdict === 'same') break;
      }
      if (verdict === 'same') result.replayed++;
      else if (verdict === 'js') result.fedFromJs++;
      else result.disagreements.push(verdict);
    }
    result.servedFast = pair.fast.fastPathCounts.requests;
  } finally {
    await pair.stop();
  }
  return result;
}

/**
 * Runs `task` over `items`, `concurrency` at a time; the first ones alone (`first` true): a cold
 * process (code still compiling) answers late.
 */
async function inParallel(items: number[], concurrency: number, task: (item: number, first: boolean) => Promise<void>): Promise<void> {
  let next = 0;
  const warmUp = Math.min(items.length, 2);
  while (next < warmUp) await task(items[next++], true);
  const worker = async () => {
    while (next < items.length) await task(items[next++], false);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** One case played slowly on both servers (and fed from JavaScript), for FUZZ_ONLY=heads:<index>. */
export async function replayHeadCase(seed: number, index: number): Promise<{ sent: HeadCase; fast: HeadOutcome; plain: HeadOutcome; fedFromJs: HeadOutcome; agree: boolean }> {
  const pair = await startPair();
  try {
    const c = headCase(seed, index);
    const [fast, plain] = await Promise.all([play(pair.ports[0], c, SLOW), play(pair.ports[1], c, SLOW)]);
    const fedFromJs = await playFedFromJs(pair.plain, c, SLOW);
    return { sent: c, fast, plain, fedFromJs, agree: same(fast, plain) || same(fast, fedFromJs) };
  } finally {
    await pair.stop();
  }
}

export function describeHeadCase(seed: number, index: number, r: Awaited<ReturnType<typeof replayHeadCase>>): string {
  return [
    `head case ${index} of FUZZ_SEED=${seed}: ${r.sent.summary.join(' | ')}`,
    `  writes: ${JSON.stringify(r.sent.writes.map((w) => clip(w.toString('latin1'))))}${r.sent.fin ? ' then FIN' : ''}`,
    `  fast path: ${JSON.stringify(clip(r.fast.transcript))}${r.fast.closed ? ' (closed)' : ' (open)'}`,
    `  node:http: ${JSON.stringify(clip(r.plain.transcript))}${r.plain.closed ? ' (closed)' : ' (open)'}`,
    `  node:http fed from JavaScript: ${JSON.stringify(clip(r.fedFromJs.transcript))}${r.fedFromJs.closed ? ' (closed)' : ' (open)'}`,
    r.agree ? '  agree' : '  DISAGREE',
  ].join('\n');
}

/** A report for people: the counts, then each disagreement with what was sent and both answers. */
export function describeHeadDiff(seed: number, r: HeadDiffResult, limit = 10): string {
  const lines = [
    `head fuzz: FUZZ_SEED=${seed}: ${r.cases} cases, ${r.servedFast} requests served by the fast path, ${r.disagreements.length} disagreements`,
    `  ${r.replayed} differed at full speed and agreed when replayed slowly; ${r.fedFromJs} answered as node:http answers when fed from JavaScript; ${r.silent} unanswered by both (an unfinished request)`,
    `  first answer on node:http: ${JSON.stringify(r.statuses)}`,
  ];
  for (const d of r.disagreements.slice(0, limit)) {
    lines.push(
      `  DIFFER case ${d.index}: ${d.sent.summary.join(' | ')}`,
      `    writes: ${JSON.stringify(d.sent.writes.map((w) => clip(w.toString('latin1'))))}${d.sent.fin ? ' then FIN' : ''}`,
      `    fast path: ${JSON.stringify(clip(d.fast.transcript))}${d.fast.closed ? ' (closed)' : ' (open)'}`,
      `    node:http: ${JSON.stringify(clip(d.plain.transcript))}${d.plain.closed ? ' (closed)' : ' (open)'}`,
      `    reproduce: FUZZ_SEED=${seed} FUZZ_ONLY=heads:${d.index} npm run fuzz`,
    );
  }
  if (r.disagreements.length > limit) lines.push(`  … ${r.disagreements.length - limit} more`);
  return lines.join('\n');
}

/** Long runs of one character (the big-header cases) shortened for the report. */
function clip(text: string): string {
  return text.replace(/(.)\1{40,}/g, (run, ch: string) => `${ch.repeat(8)}…(${run.length})`);
}
