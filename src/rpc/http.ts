// The JSON-RPC HTTP endpoint on node:http, with geth's transport rules (docs/transports.md#http):
// POST only, JSON content types, 5 MiB bodies, Host allow-list, CORS allow-list, timeouts.
// New connections meet the fast path first (httpFastPath.ts), which answers simple JSON POSTs
// itself and hands anything else to node:http. Everything about JSON-RPC is the Dispatcher's job.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Dispatcher } from './dispatch.js';
import { HttpFastPath, type FastPathCounts } from './httpFastPath.js';
import { MAX_REQUEST_BYTES } from './jsonLimits.js';
import type { CallContext } from './types.js';

export interface HttpServerOptions {
  host: string;
  port: number;
  /** Origins allowed to call from a browser; '*' allows any. Empty: no CORS headers at all. */
  corsOrigins: string[];
  /** Accepted Host header names (port ignored); '*' allows any; IP literals always pass. */
  vhosts: string[];
  /** Chooses the dispatcher for a URL path; undefined → 404. */
  route: (path: string) => Dispatcher | undefined;
  bodyLimit?: number;
  /** Takes WebSocket upgrades that pass the host, path and origin rules (ws.ts); absent: refused. */
  websocket?: UpgradeHandler;
  /** Answer simple JSON POSTs without node:http (default true; `--http.fastpath=false` turns it off). */
  fastPath?: boolean;
  /** where the fast path counts what it did (endpoints may share one); the server's own otherwise */
  fastPathCounts?: FastPathCounts;
  /** Whole-request deadline (default 30 s) and keep-alive idle limit (default 120 s); tests shorten them. */
  requestTimeoutMs?: number;
  idleTimeoutMs?: number;
}

/** Receives an HTTP upgrade request that passed this server's checks. */
export interface UpgradeHandler {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, dispatcher: Dispatcher): void;
}

const REQUEST_TIMEOUT_MS = 30_000;
/** Open connections at once; more are dropped on arrival (each holds sockets and parser state). */
export const MAX_HTTP_CONNECTIONS = 2048;
const IDLE_TIMEOUT_MS = 120_000;
const JSON_MEDIA_TYPES = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest']);
const HTTP_CONTEXT: CallContext = { transport: 'http' };
const ALLOWED_METHODS = 'POST, GET, HEAD, OPTIONS';
const PREFLIGHT_METHODS = new Set(['POST', 'GET', 'HEAD', 'OPTIONS']);
const PREFLIGHT_MAX_AGE = '600';
const REFUSED_LINGER_MS = 500;
const REFUSED_LINGER_BYTES = 1024 * 1024;

export class HttpRpcServer {
  private server: Server | undefined;
  private fast: HttpFastPath | undefined;
  /** handed-over connections whose request began on the fast path, and that request's deadline */
  private readonly carried = new WeakMap<Duplex, NodeJS.Timeout>();
  private bound: { host: string; port: number } | undefined;
  private readonly bodyLimit: number;
  private readonly anyHost: boolean;
  private readonly vhosts: ReadonlySet<string>;
  private readonly anyOrigin: boolean;
  private readonly origins: ReadonlySet<string>;
  /** requests the fast path answered and connections it handed to node:http */
  readonly fastPathCounts: FastPathCounts;

  constructor(private readonly o: HttpServerOptions) {
    this.fastPathCounts = o.fastPathCounts ?? { requests: 0, handOvers: 0 };
    this.bodyLimit = o.bodyLimit ?? MAX_REQUEST_BYTES;
    this.anyHost = o.vhosts.includes('*');
    this.vhosts = new Set(o.vhosts.map((h) => h.toLowerCase()));
    this.anyOrigin = o.corsOrigins.includes('*');
    this.origins = new Set(o.corsOrigins.map((h) => h.toLowerCase()));
  }

  get address(): { host: string; port: number } | undefined {
    return this.bound;
  }

  start(): Promise<{ host: string; port: number }> {
    if (this.server !== undefined) return Promise.reject(new Error('HTTP RPC server already started'));
    const server = createServer(
      // Check request deadlines every 5 s (default 30 s would let a 30 s limit stretch to 60 s).
      { noDelay: true, connectionsCheckingInterval: 5_000 },
      (req, res) => this.onRequest(req, res),
    );
    const requestTimeout = this.o.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    const idleTimeout = this.o.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
    server.requestTimeout = requestTimeout; // whole request: headers and body
    server.headersTimeout = requestTimeout;
    server.keepAliveTimeout = idleTimeout;
    server.maxConnections = MAX_HTTP_CONNECTIONS; // counts fast-path connections too: one listener
    // A client may half-close once its requests are sent (`printf … | nc`, some proxies): every
    // request already whole is answered before the connection closes, as geth's server does.
    // node:http's default ends the socket at the FIN and drops the replies not written yet, which
    // ones depending on timing. (An undocumented property of the server, there since node 0.x and untyped.)
    (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.onUpgrade(req, socket, head));
    const fast = this.o.fastPath === false ? undefined : this.fastPathFor(server, requestTimeout, idleTimeout);
    return new Promise((resolve, reject) => {
      const onError = (err: Error): void => {
        fast?.close();
        reject(err);
      };
      server.once('error', onError);
      server.listen(this.o.port, this.o.host, () => {
        server.off('error', onError);
        // A failing socket after start must not crash the node.
        server.on('error', () => undefined);
        const info = server.address() as AddressInfo;
        this.server = server;
        this.fast = fast;
        this.bound = { host: info.address, port: info.port };
        resolve(this.bound);
      });
    });
  }

  /** Stops listening and drops every open connection, in flight or idle. */
  stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return Promise.resolve();
    this.server = undefined;
    this.bound = undefined;
    this.fast?.close();
    this.fast = undefined;
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /**
   * node:http's server still listens (one port, one connection limit, its own tracking of the
   * connections handed to it); the fast path takes each new connection first and gives node:http
   * those it does not serve, through node:http's own 'connection' listener.
   */
  private fastPathFor(server: Server, requestTimeoutMs: number, idleTimeoutMs: number): HttpFastPath {
    const nodeListeners = server.listeners('connection') as ((socket: Socket) => void)[];
    server.removeAllListeners('connection');
    const fast = new HttpFastPath(
      {
        bodyLimit: this.bodyLimit,
        requestTimeoutMs,
        idleTimeoutMs,
        route: this.o.route,
        hostAllowed: (header) => this.hostAllowed(header),
        allowedOrigin: (origin) => this.allowedOrigin(origin),
        isJsonContentType,
      },
      (socket, deadline) => {
        for (const listener of nodeListeners) listener.call(server, socket);
        if (deadline !== undefined) this.carryDeadline(socket, deadline);
      },
      this.fastPathCounts,
    );
    server.on('connection', (socket: Socket) => fast.accept(socket));
    return fast;
  }

  /**
   * node:http times a handed-over request from the hand-off; the time its head took on the fast
   * path counts too, so its original deadline is kept here until node:http has read it whole.
   */
  private carryDeadline(socket: Socket, deadline: number): void {
    const timer = setTimeout(() => {
      this.carried.delete(socket);
      // As node:http's own request timeout: 408 unless a reply has begun, then close.
      const replying = (socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage?.headersSent === true;
      if (!replying && socket.writable) socket.write('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
      socket.destroy();
    }, Math.max(0, deadline - Date.now()));
    timer.unref();
    this.carried.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  }

  /** The request carrying a fast-path deadline has been read whole (or taken by an upgrade). */
  private releaseDeadline(socket: Duplex, req?: IncomingMessage): void {
    const timer = this.carried.get(socket);
    if (timer === undefined) return;
    this.carried.delete(socket);
    if (req === undefined || req.complete) clearTimeout(timer);
    else req.once('end', () => clearTimeout(timer));
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    this.releaseDeadline(req.socket, req);
    const origin = req.headers.origin;
    const cors = origin === undefined ? undefined : this.allowedOrigin(origin);
    if (!this.hostAllowed(req.headers.host)) return refuse(req, res, 403, 'invalid host specified\n', cors);
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const dispatcher = this.o.route(query < 0 ? url : url.slice(0, query));
    if (dispatcher === undefined) return refuse(req, res, 404, 'not found\n', cors);

    switch (req.method) {
      case 'POST':
        break;
      case 'GET':
      case 'HEAD':
        // Health check; a GET carrying a body is not a call.
        if (hasBody(req)) return refuse(req, res, 405, 'method not allowed\n', cors);
        return plain(res, 200, '', cors);
      case 'OPTIONS':
        return this.preflight(req, res, cors);
      default:
        return refuse(req, res, 405, 'method not allowed\n', cors);
    }

    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > this.bodyLimit) return tooLarge(req, res, this.bodyLimit, cors);
    if (!isJsonContentType(req.headers['content-type'])) {
      return refuse(req, res, 415, 'invalid content type, only application/json is supported\n', cors);
    }
    this.readBody(req, res, dispatcher, cors);
  }

  /** WebSocket handshakes: the same Host and path rules as calls; a browser's Origin must be allowed (CORS list). */
  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => undefined);
    this.releaseDeadline(socket);
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const dispatcher = this.o.route(query < 0 ? url : url.slice(0, query));
    const origin = req.headers.origin;
    let status = 0;
    if (!this.hostAllowed(req.headers.host)) status = 403;
    else if (dispatcher === undefined || this.o.websocket === undefined) status = 404;
    else if (origin !== undefined && this.allowedOrigin(origin) === undefined) status = 403;
    if (status !== 0) {
      socket.write(`HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Not Found'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      // node:http neither reads nor tracks a socket it has handed to 'upgrade': ended only on our
      // side, it stayed open for as long as the client kept its side open, and stop() waited for it.
      socket.resume();
      lingerThenClose(socket as Socket);
      return;
    }
    this.o.websocket!.handleUpgrade(req, socket, head, dispatcher!);
  }

  private readBody(req: IncomingMessage, res: ServerResponse, dispatcher: Dispatcher, corsOrigin?: string): void {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > this.bodyLimit) {
        req.off('data', onData);
        req.off('end', onEnd);
        chunks.length = 0;
        tooLarge(req, res, this.bodyLimit, corsOrigin);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      dispatcher.handle(body, HTTP_CONTEXT).then(
        (reply) => sendJson(res, reply ?? '', corsOrigin),
        () => plain(res, 500, 'internal error\n', corsOrigin), // handle() never rejects; belt and braces
      );
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', () => undefined); // client went away mid-body
  }

  private preflight(req: IncomingMessage, res: ServerResponse, corsOrigin: string | undefined): void {
    const wanted = req.headers['access-control-request-method'];
    if (corsOrigin === undefined || (wanted !== undefined && !PREFLIGHT_METHODS.has(wanted.toUpperCase()))) {
      res.writeHead(204).end();
      return;
    }
    res.writeHead(204, {
      ...corsHeaders(corsOrigin),
      'Access-Control-Allow-Methods': ALLOWED_METHODS,
      'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] ?? 'Content-Type',
      'Access-Control-Max-Age': PREFLIGHT_MAX_AGE,
    });
    res.end();
  }

  /** The Access-Control-Allow-Origin value for an allowed origin, else undefined. */
  private allowedOrigin(origin: string): string | undefined {
    if (this.anyOrigin) return '*';
    return this.origins.has(origin.toLowerCase()) ? origin : undefined;
  }

  // DNS-rebinding guard: a browser page on evil.example resolving to 127.0.0.1 sends its own Host.
  private hostAllowed(header: string | undefined): boolean {
    if (this.anyHost || header === undefined || header === '') return true;
    if (header.charCodeAt(0) === 0x5b /* [ */) {
      const end = header.indexOf(']');
      return end > 0 && isIP(header.slice(1, end)) === 6;
    }
    const colon = header.indexOf(':');
    // One colon separates the port; more than one can only be a bare IPv6 literal.
    const host = colon >= 0 && header.indexOf(':', colon + 1) < 0 ? header.slice(0, colon) : header;
    if (isIP(host) !== 0) return true;
    return this.vhosts.has(host.toLowerCase());
  }
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** Media type compared case-insensitively; parameters (`; charset=utf-8`) ignored. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const semi = header.indexOf(';');
  const media = (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase();
  return JSON_MEDIA_TYPES.has(media);
}

function corsHeaders(corsOrigin: string): Record<string, string> {
  return corsOrigin === '*'
    ? { 'Access-Control-Allow-Origin': '*' }
    : { 'Access-Control-Allow-Origin': corsOrigin, Vary: 'Origin' };
}

function sendJson(res: ServerResponse, body: string, corsOrigin: string | undefined): void {
  if (res.destroyed) return;
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
  };
  if (corsOrigin !== undefined) Object.assign(headers, corsHeaders(corsOrigin));
  res.writeHead(200, headers);
  res.end(body);
}

function plain(res: ServerResponse, status: number, body: string, corsOrigin: string | undefined): void {
  if (res.destroyed) return;
  const headers: Record<string, string | number> = {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  };
  if (status === 405) headers.Allow = ALLOWED_METHODS;
  if (corsOrigin !== undefined) Object.assign(headers, corsHeaders(corsOrigin));
  res.writeHead(status, headers);
  res.end(body);
}

// A refused request's body is not read: close the connection rather than let node:http
// drain an upload of any size to keep it alive.
function refuse(req: IncomingMessage, res: ServerResponse, status: number, body: string, cors: string | undefined): void {
  if (hasBody(req)) {
    res.shouldKeepAlive = false;
    lingerBeforeClose(req.socket);
  }
  plain(res, status, body, cors);
}

/**
 * Closing at once, with unread bytes arriving, sends a reset that can reach a client still
 * uploading before it has read the refusal. So, as Go's server does, the connection is half-closed
 * after the reply and what still arrives is read and dropped (nothing is kept) for at most
 * REFUSED_LINGER_MS or REFUSED_LINGER_BYTES, then it is closed.
 */
function lingerBeforeClose(socket: Socket): void {
  // node:http calls destroySoon() once the last reply of a connection is sent.
  socket.destroySoon = function lingeringClose(this: Socket): void {
    lingerThenClose(this);
  };
}

/** Half-closes now; closes once the client has closed, or after the linger (time or bytes). */
function lingerThenClose(socket: Socket): void {
  const from = socket.bytesRead;
  socket.end();
  const check = setInterval(() => {
    if (socket.bytesRead - from > REFUSED_LINGER_BYTES) socket.destroy();
  }, 20);
  const limit = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
  socket.once('close', () => {
    clearInterval(check);
    clearTimeout(limit);
  });
}

function tooLarge(req: IncomingMessage, res: ServerResponse, limit: number, cors: string | undefined): void {
  refuse(req, res, 413, `content length too large (limit ${limit} bytes)\n`, cors);
}
