// The fast path in front of node:http (docs/transports.md#http). Each new connection is read here
// while its requests are the common simple case (a POST of JSON with a Content-Length, to a known
// route, from an allowed Host); those are answered straight from the dispatcher with the same
// bytes node:http would send. The first request that is anything else (another method, chunked,
// oversized, a bad header, an upgrade, HTTP/1.0, a malformed head...) hands the connection, with
// every byte not yet answered, to node:http for good, which applies the rules as it always has.

import type { Socket } from 'node:net';
import type { Dispatcher } from './dispatch.js';
import type { CallContext } from './types.js';

export interface FastPathRules {
  bodyLimit: number;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  route(path: string): Dispatcher | undefined;
  hostAllowed(header: string | undefined): boolean;
  /** the Access-Control-Allow-Origin value for an allowed origin, else undefined */
  allowedOrigin(origin: string): string | undefined;
  isJsonContentType(header: string | undefined): boolean;
}

/** A simple request the fast path answers itself. */
interface Head {
  dispatcher: Dispatcher;
  bodyStart: number;
  length: number;
  close: boolean;
  cors: string | undefined;
}

const HTTP_CONTEXT: CallContext = { transport: 'http' };
// node:http answers a longer head 431, so such a head is handed over.
const MAX_HEAD_BYTES = 16 * 1024;
const MAX_HEADERS = 64;
// Stop reading a client that pipelines this much ahead, or leaves this much of our replies unread.
const MAX_BUFFERED_AHEAD = 64 * 1024;
const MAX_UNSENT = 1024 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
// Only printable ASCII, tab and CRLF; anything else (obs-text, NUL, ...) is node:http's to judge.
const UNUSUAL_BYTE = /[^\t\x20-\x7e\r\n]/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const TARGET = /^\/[\x21-\x7e]*$/;
const DIGITS = /^[0-9]{1,15}$/;
const INTERNAL_ERROR = 'internal error\n';

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

class FastConnection {
  /** bytes received and not yet answered, if any */
  private pending: Buffer | undefined;
  /** where the head search resumes in `pending` */
  private scanned = 0;
  /** a body still arriving: its pieces after `pending`, kept apart until the request is whole */
  private pieces: Buffer[] = [];
  private piecesLength = 0;
  /** bytes `pending` (+ pieces) must hold before the request waiting in it is whole; 0 if not known */
  private needed = 0;
  private busy = false;
  private ended = false;
  /** the bytes of the last simple head and its parse: clients repeat their heads byte for byte */
  private lastHead: Buffer | undefined;
  private lastParsed: Head | undefined;
  private closing = false;
  /** the request deadline while a request is arriving, the idle deadline between requests */
  deadline: number;
  private readonly onData = (chunk: Buffer): void => this.receive(chunk);
  private readonly onEnd = (): void => {
    this.ended = true;
    this.pump();
  };
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

  /** The deadline passed: a request still arriving gets node:http's 408; an idle connection is closed. */
  expire(): void {
    if (this.busy) return;
    if (this.pending !== undefined && !this.closing && this.socket.writable) {
      this.socket.write('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    }
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    if (this.closing) return; // after Connection: close nothing more is read
    if (this.pending === undefined) {
      this.pending = chunk;
      this.scanned = 0;
      if (!this.busy) this.deadline = Date.now() + this.owner.rules.requestTimeoutMs;
    } else if (this.needed > 0) {
      // Joined once, when the body is whole: joining per piece would copy a 5 MiB body ~80 times.
      this.pieces.push(chunk);
      this.piecesLength += chunk.length;
      if (this.pending.length + this.piecesLength < this.needed) return;
      this.join();
    } else {
      this.pending = Buffer.concat([this.pending, chunk]);
    }
    if (this.busy && this.pending.length > MAX_BUFFERED_AHEAD) this.socket.pause(); // resumed when wanted
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

  /** Answers the requests waiting, one at a time, in order; hands over at the first that is not simple. */
  private pump(): void {
    const socket = this.socket;
    while (!this.busy && !this.closing && !socket.destroyed) {
      if (socket.writableLength > MAX_UNSENT) return void socket.pause(); // resumed on 'drain'
      this.join();
      const buf = this.pending;
      if (buf === undefined) {
        if (this.ended) {
          this.closing = true;
          socket.end();
        } else this.wantMore();
        return;
      }
      const headEnd = buf.indexOf(HEAD_END, this.scanned);
      if (headEnd < 0) {
        if (buf.length > MAX_HEAD_BYTES || this.ended || hasBareLineBreak(buf, this.scanned)) return this.handOver();
        this.scanned = Math.max(0, buf.length - 3);
        return this.wantMore();
      }
      const head = this.headAt(buf, headEnd);
      if (head === undefined) return this.handOver();
      const end = head.bodyStart + head.length;
      if (buf.length < end) {
        if (this.ended) return this.handOver();
        this.scanned = headEnd; // the head is whole; wait for the body
        this.needed = end;
        return this.wantMore();
      }
      this.pending = buf.length === end ? undefined : buf.subarray(end);
      this.scanned = 0;
      this.needed = 0;
      this.answer(head, buf.subarray(head.bodyStart, end));
    }
  }

  /**
   * The head ending at `headEnd`, parsed. A head byte for byte the same as this connection's last
   * simple one is that one (the rules it was judged by are fixed for the endpoint's life).
   */
  private headAt(buf: Buffer, headEnd: number): Head | undefined {
    const last = this.lastHead;
    if (last !== undefined && last.length === headEnd && buf.compare(last, 0, headEnd, 0, headEnd) === 0) return this.lastParsed;
    const head = parseHead(buf, headEnd, this.owner.rules);
    if (head !== undefined) {
      this.lastHead = Buffer.from(buf.subarray(0, headEnd));
      this.lastParsed = head;
    }
    return head;
  }

  private answer(head: Head, body: Buffer): void {
    this.busy = true;
    if (head.close) this.closing = true;
    if (this.pending !== undefined && this.pending.length > MAX_BUFFERED_AHEAD) this.socket.pause(); // resumed when wanted
    // handle() reads the body before its first await, so `pending` may be replaced meanwhile.
    head.dispatcher.handle(body, HTTP_CONTEXT).then(
      (reply) => this.reply(reply ?? '', head),
      () => this.reply(undefined, head), // handle() never rejects; belt and braces
    );
  }

  private reply(json: string | undefined, head: Head): void {
    this.busy = false;
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

  /** Gives the connection and every byte not yet answered to node:http, for good. */
  private handOver(): void {
    const socket = this.socket;
    socket.off('data', this.onData);
    socket.off('end', this.onEnd);
    socket.off('close', this.onClose);
    socket.off('drain', this.onDrain);
    this.owner.forget(this);
    this.join();
    if (this.ended) {
      // The client has stopped sending, and node:http could not see that end any more; it drops
      // a request cut short by the client's end too. (The error listener stays: a reset must not throw.)
      socket.end(() => socket.destroy());
      return;
    }
    socket.off('error', noop); // node:http adds its own at once
    const begun = this.pending !== undefined;
    if (begun) socket.unshift(this.pending!);
    this.pending = undefined;
    this.owner.handOff(socket, begun ? this.deadline : undefined);
    if (socket.isPaused()) socket.resume();
  }
}

/** The simple POST this path answers itself, or undefined for anything node:http must see. */
function parseHead(buf: Buffer, headEnd: number, rules: FastPathRules): Head | undefined {
  if (headEnd > MAX_HEAD_BYTES) return undefined;
  const text = buf.toString('latin1', 0, headEnd);
  if (UNUSUAL_BYTE.test(text)) return undefined;
  const lines = text.split('\r\n');
  if (lines.length > MAX_HEADERS + 1) return undefined;
  const requestLine = lines[0];
  if (!requestLine.startsWith('POST ') || !requestLine.endsWith(' HTTP/1.1')) return undefined;
  const target = requestLine.slice(5, -9);
  if (!TARGET.test(target)) return undefined;
  let length: string | undefined;
  let host: string | undefined;
  let type: string | undefined;
  let origin: string | undefined;
  let connection: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(':');
    if (colon <= 0 || line.includes('\r') || line.includes('\n')) return undefined;
    const name = line.slice(0, colon);
    if (!TOKEN.test(name)) return undefined;
    const value = trimSpaces(line.slice(colon + 1));
    // A repeated header that this path reads is node:http's to judge (it refuses or keeps the first).
    switch (name.toLowerCase()) {
      case 'content-length':
        if (length !== undefined) return undefined;
        length = value;
        break;
      case 'host':
        if (host !== undefined) return undefined;
        host = value;
        break;
      case 'content-type':
        if (type !== undefined) return undefined;
        type = value;
        break;
      case 'origin':
        if (origin !== undefined) return undefined;
        origin = value;
        break;
      case 'connection':
        if (connection !== undefined) return undefined;
        connection = value.toLowerCase();
        break;
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
        return undefined;
    }
  }
  // node:http refuses an HTTP/1.1 request without Host (400); an over-limit length is its 413.
  if (length === undefined || !DIGITS.test(length) || Number(length) > rules.bodyLimit) return undefined;
  if (host === undefined || !rules.hostAllowed(host) || (type !== 'application/json' && !rules.isJsonContentType(type))) return undefined;
  let close = false;
  if (connection !== undefined) {
    for (const token of connection.split(',')) {
      const option = trimSpaces(token);
      if (option === 'close') close = true;
      else if (option === 'upgrade') return undefined;
    }
  }
  const query = target.indexOf('?');
  const dispatcher = rules.route(query < 0 ? target : target.slice(0, query));
  if (dispatcher === undefined) return undefined;
  const cors = origin === undefined ? undefined : rules.allowedOrigin(origin);
  return { dispatcher, bodyStart: headEnd + 4, length: Number(length), close, cors };
}

/** A line feed without its carriage return in the part of a head not yet scanned: not ours. */
function hasBareLineBreak(buf: Buffer, from: number): boolean {
  for (let i = buf.indexOf(0x0a, from); i >= 0; i = buf.indexOf(0x0a, i + 1)) {
    if (i === 0 || buf[i - 1] !== 0x0d) return true;
  }
  return false;
}

function trimSpaces(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && (s.charCodeAt(a) === 0x20 || s.charCodeAt(a) === 0x09)) a++;
  while (b > a && (s.charCodeAt(b - 1) === 0x20 || s.charCodeAt(b - 1) === 0x09)) b--;
  return s.slice(a, b);
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
