// The fast path in front of node:http (docs/design/http-fast-path.md). Each new connection is read
// here while its requests are the common simple case (httpFastHead.ts: a canonical POST of JSON
// with a Content-Length, to a known route, from an allowed Host); those are answered straight from
// the dispatcher with the bytes node:http would send. At the first bytes that are anything else,
// the connection goes to node:http for good, with every byte not yet answered, before any request
// that arrived with those bytes is answered: node:http then reads exactly what it would have read
// and answers as it always does. What the fast path decides itself (the client's end, timeouts)
// it decides as node:http does; the differential fuzzer (tools/fuzz/headDiff.ts) holds it to that.

import type { Socket } from 'node:net';
import { couldBeSimpleHead, MAX_HEAD_BYTES, parseSimpleHead, type FastPathRules, type SimpleHead } from './httpFastHead.js';
import type { CallContext } from './types.js';

export type { FastPathRules } from './httpFastHead.js';

/** What the fast path did, for /metrics and the differential tests (several endpoints may share one). */
export interface FastPathCounts {
  /** requests answered on the fast path */
  requests: number;
  /** connections given to node:http */
  handOvers: number;
}

const HTTP_CONTEXT: CallContext = { transport: 'http' };
// Stop reading a client that pipelines this much ahead, or leaves this much of our replies unread.
const MAX_BUFFERED_AHEAD = 64 * 1024;
const MAX_UNSENT = 1024 * 1024;
// Bytes of unfinished heads checked for one request: a head trickling in by the byte goes to node:http.
const MAX_HEAD_WORK = 4 * MAX_HEAD_BYTES;
const HEAD_END = Buffer.from('\r\n\r\n');
const INTERNAL_ERROR = 'internal error\n';
// node:http's own answers when it gives up on a request (same bytes, no Date, then the connection closes).
const BAD_REQUEST = 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n';
const REQUEST_TIMEOUT = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

export class HttpFastPath {
  private readonly connections = new Set<FastConnection>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly keepAlive: string;

  /**
   * `handOff` gives a socket to node:http (its own 'connection' listener), with the deadline of a
   * request already begun here (node:http's own clock starts again at the hand-off).
   */
  constructor(
    readonly rules: FastPathRules,
    readonly handOff: (socket: Socket, deadline: number | undefined) => void,
    readonly counts: FastPathCounts = { requests: 0, handOvers: 0 },
  ) {
    // Deadlines are checked by one sweep, as node:http does, rather than a timer per request.
    const every = Math.max(20, Math.min(5_000, Math.floor(Math.min(rules.requestTimeoutMs, rules.idleTimeoutMs) / 4)));
    this.sweeper = setInterval(() => this.sweep(), every).unref();
    this.keepAlive = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(rules.idleTimeoutMs / 1000)}\r\n\r\n`;
  }

  get size(): number {
    return this.connections.size;
  }

  accept(socket: Socket): void {
    this.connections.add(new FastConnection(this, socket));
  }

  /** Drops every connection still on the fast path (node:http drops its own). */
  close(): void {
    clearInterval(this.sweeper);
    for (const c of this.connections) c.socket.destroy();
    this.connections.clear();
  }

  forget(c: FastConnection): void {
    this.connections.delete(c);
  }

  /** The reply head node:http writes (same headers, same order). */
  replyHead(status: string, type: string, length: number, cors: string | undefined, close: boolean): string {
    let head = `HTTP/1.1 ${status}\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n`;
    if (cors !== undefined) head += corsLines(cors);
    head += `Date: ${httpDate()}\r\n`;
    return head + (close ? 'Connection: close\r\n\r\n' : this.keepAlive);
  }

  private sweep(): void {
    const now = Date.now();
    for (const c of this.connections) if (c.deadline <= now) c.expire();
  }
}

/** What the bytes not yet answered are, read as far as they go. */
const Verdict = {
  /** complete simple requests only (or nothing) */
  Complete: 0,
  /** complete simple requests, then the start of one that can still be simple */
  Partial: 1,
  /** something node:http must judge */
  Other: 2,
} as const;
type Verdict = (typeof Verdict)[keyof typeof Verdict];

class FastConnection {
  /** bytes received and not yet answered, if any */
  private pending: Buffer | undefined;
  /** complete simple requests at the front of `pending`, in order, with their sizes */
  private readonly queue: { head: SimpleHead; size: number }[] = [];
  /** bytes of `pending` the queue covers */
  private vetted = 0;
  /** a simple head whose body is still arriving, and where in `pending` that request ends */
  private waiting: { head: SimpleHead; end: number } | undefined;
  /** where the search for the end of the next head resumes in `pending` */
  private scanned = 0;
  /** bytes of unfinished heads checked since the last complete one */
  private headWork = 0;
  /** a body still arriving: its pieces after `pending`, kept apart until the request is whole */
  private pieces: Buffer[] = [];
  private piecesLength = 0;
  private busy = false;
  private ended = false;
  private closing = false;
  /** a request has been answered: from then on a quiet connection is closed without a word */
  private served = false;
  /** the bytes of the last simple head and its parse: clients repeat their heads byte for byte */
  private lastHead: Buffer | undefined;
  private lastParsed: SimpleHead | undefined;
  /** the request deadline while a request is arriving, the idle deadline between requests */
  deadline: number;
  private readonly onData = (chunk: Buffer): void => this.receive(chunk);
  private readonly onEnd = (): void => this.clientEnded();
  private readonly onClose = (): void => this.owner.forget(this);
  private readonly onDrain = (): void => this.pump();

  constructor(
    private readonly owner: HttpFastPath,
    readonly socket: Socket,
  ) {
    this.deadline = Date.now() + owner.rules.requestTimeoutMs;
    socket.on('data', this.onData);
    socket.on('end', this.onEnd);
    socket.on('close', this.onClose);
    socket.on('drain', this.onDrain);
    socket.on('error', noop); // a reset client ends in 'close'
  }

  /**
   * The deadline passed. As node:http: a request still arriving, or none yet on a new connection
   * (its headers timeout runs from the connection's start), gets 408; a quiet keep-alive
   * connection is closed without a word.
   */
  expire(): void {
    if (this.busy) return;
    if ((this.pending !== undefined || !this.served) && !this.closing) return this.refuse(REQUEST_TIMEOUT);
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    if (this.closing) return; // after Connection: close nothing more is read
    if (this.pending === undefined) {
      this.pending = chunk;
      if (!this.busy) this.deadline = Date.now() + this.owner.rules.requestTimeoutMs;
    } else if (this.waiting !== undefined) {
      // Joined once, when the body is whole: joining per piece would copy a 5 MiB body ~80 times.
      this.pieces.push(chunk);
      this.piecesLength += chunk.length;
      if (this.pending.length + this.piecesLength < this.waiting.end) return;
      this.join();
    } else {
      this.pending = Buffer.concat([this.pending, chunk]);
    }
    if (this.busy && this.pending.length > MAX_BUFFERED_AHEAD) this.socket.pause(); // resumed when wanted
    this.pump();
  }

  /**
   * The client's FIN. node:http judges it at once: a request cut short is answered 400 and the
   * connection closed, whatever is still in flight; otherwise every request already whole is
   * answered (the server lets the client half-close, see http.ts) and then the connection ends.
   */
  private clientEnded(): void {
    this.ended = true;
    if (this.busy) {
      this.join();
      if (this.pending !== undefined && this.vet() === Verdict.Partial) this.refuse(BAD_REQUEST);
      return;
    }
    this.pump();
  }

  private join(): void {
    if (this.piecesLength === 0) return;
    this.pending = Buffer.concat([this.pending!, ...this.pieces]);
    this.pieces = [];
    this.piecesLength = 0;
  }

  /** Waiting for more bytes of a request: read again if reading was paused. */
  private wantMore(): void {
    if (this.socket.isPaused()) this.socket.resume();
  }

  /** Answers the requests waiting, one at a time, in order; hands over at the first bytes that are not simple. */
  private pump(): void {
    const socket = this.socket;
    while (!this.busy && !this.closing && !socket.destroyed) {
      if (socket.writableLength > MAX_UNSENT) return void socket.pause(); // resumed on 'drain'
      this.join();
      if (this.pending === undefined) {
        if (!this.ended) return this.wantMore();
        this.closing = true;
        socket.end();
        return;
      }
      const verdict = this.vet();
      if (verdict === Verdict.Other) return this.handOver();
      const next = this.queue.shift();
      if (next !== undefined) {
        this.answer(next.head, next.size);
        continue;
      }
      if (this.ended) return this.refuse(BAD_REQUEST); // a request cut short by the client's end
      return this.wantMore();
    }
  }

  /**
   * Reads `pending` past the requests already vetted: each complete simple request joins the
   * queue; the rest is nothing, the start of a simple request, or something for node:http.
   */
  private vet(): Verdict {
    const buf = this.pending!;
    for (;;) {
      const waiting = this.waiting;
      if (waiting !== undefined) {
        if (buf.length < waiting.end) return Verdict.Partial;
        this.waiting = undefined;
        this.enqueue(waiting.head, waiting.end);
        continue;
      }
      const at = this.vetted;
      if (at === buf.length) return Verdict.Complete;
      // node:http reads nothing after a request that closes the connection, and refuses it if sent.
      if (this.queue.length > 0 && this.queue[this.queue.length - 1].head.close) return Verdict.Other;
      const headEnd = buf.indexOf(HEAD_END, Math.max(at, this.scanned));
      if (headEnd < 0) {
        this.headWork += buf.length - at;
        if (this.headWork > MAX_HEAD_WORK || !couldBeSimpleHead(buf.toString('latin1', at))) return Verdict.Other;
        this.scanned = Math.max(at, buf.length - 3);
        return Verdict.Partial;
      }
      const head = this.headAt(buf, at, headEnd);
      if (head === undefined) return Verdict.Other;
      this.headWork = 0;
      this.waiting = { head, end: at + head.headLength + head.length };
    }
  }

  private enqueue(head: SimpleHead, end: number): void {
    this.queue.push({ head, size: end - this.vetted });
    this.vetted = end;
    this.scanned = end;
  }

  /**
   * The head from `at` to `headEnd`, parsed. A head byte for byte the same as this connection's
   * last simple one is that one (the rules it was judged by are fixed for the endpoint's life).
   */
  private headAt(buf: Buffer, at: number, headEnd: number): SimpleHead | undefined {
    const last = this.lastHead;
    const length = headEnd - at;
    if (last !== undefined && last.length === length && buf.compare(last, 0, length, at, headEnd) === 0) return this.lastParsed;
    if (length + 4 > MAX_HEAD_BYTES) return undefined;
    const head = parseSimpleHead(buf.toString('latin1', at, headEnd), this.owner.rules);
    if (head !== undefined) {
      this.lastHead = Buffer.from(buf.subarray(at, headEnd));
      this.lastParsed = head;
    }
    return head;
  }

  /** Takes the request of `size` bytes at the front of `pending` off it and answers it. */
  private answer(head: SimpleHead, size: number): void {
    const buf = this.pending!;
    const body = buf.subarray(head.headLength, size);
    if (size === buf.length) {
      this.pending = undefined;
      this.vetted = this.scanned = this.headWork = 0;
    } else {
      this.pending = buf.subarray(size);
      this.vetted -= size;
      this.scanned = Math.max(0, this.scanned - size);
      if (this.waiting !== undefined) this.waiting.end -= size;
    }
    this.busy = true;
    this.owner.counts.requests++;
    if (head.close) this.closing = true;
    if (this.pending !== undefined && this.pending.length > MAX_BUFFERED_AHEAD) this.socket.pause(); // resumed when wanted
    // handle() reads the body before its first await, so `pending` may be replaced meanwhile.
    head.dispatcher.handle(body, HTTP_CONTEXT).then(
      (reply) => this.reply(reply ?? '', head),
      () => this.reply(undefined, head), // handle() never rejects; belt and braces
    );
  }

  private reply(json: string | undefined, head: SimpleHead): void {
    this.busy = false;
    this.served = true;
    const socket = this.socket;
    if (socket.destroyed) return;
    const owner = this.owner;
    if (json === undefined) {
      socket.write(owner.replyHead('500 Internal Server Error', 'text/plain; charset=utf-8', INTERNAL_ERROR.length, head.cors, this.closing) + INTERNAL_ERROR);
    } else {
      socket.write(owner.replyHead('200 OK', 'application/json', Buffer.byteLength(json), head.cors, this.closing) + json);
    }
    if (this.closing) {
      // As node:http does: the reply goes out, then the connection is closed.
      socket.end(() => socket.destroy());
      return;
    }
    this.deadline = Date.now() + (this.pending === undefined ? owner.rules.idleTimeoutMs : owner.rules.requestTimeoutMs);
    this.pump();
  }

  /** node:http's last word on a connection it gives up on: the status line, then the close. */
  private refuse(response: string): void {
    this.closing = true;
    if (this.socket.writable) this.socket.write(response);
    this.socket.destroy();
  }

  /** Gives the connection and every byte not yet answered to node:http, for good. */
  private handOver(): void {
    const socket = this.socket;
    socket.off('data', this.onData);
    socket.off('end', this.onEnd);
    socket.off('close', this.onClose);
    socket.off('drain', this.onDrain);
    this.owner.forget(this);
    this.owner.counts.handOvers++;
    this.join();
    const bytes = this.pending;
    this.pending = undefined;
    socket.off('error', noop); // node:http adds its own at once
    if (this.ended) {
      // The stream has ended, so the bytes cannot be put back in it: node:http's listeners are
      // given them and the end as the events they would have seen.
      this.owner.handOff(socket, undefined);
      if (bytes !== undefined) socket.emit('data', bytes);
      socket.emit('end');
      return;
    }
    if (bytes !== undefined) socket.unshift(bytes);
    this.owner.handOff(socket, bytes !== undefined ? this.deadline : undefined);
    if (socket.isPaused()) socket.resume();
  }
}

function corsLines(cors: string): string {
  return cors === '*' ? 'Access-Control-Allow-Origin: *\r\n' : `Access-Control-Allow-Origin: ${cors}\r\nVary: Origin\r\n`;
}

// The Date header changes once a second; it is formatted once a second too.
let dateText = '';
let dateSecond = -1;
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

function noop(): void {}
