// The JSON-RPC WebSocket transport (library `ws`): one JSON-RPC message or batch per frame, the
// same Dispatcher as HTTP, and notifications for subscriptions. HttpRpcServer checks Host, path
// and Origin before a handshake reaches it, on the HTTP port (`/`) and on the --ws endpoint.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer, WebSocket, RawData } from 'ws';
import type { Dispatcher } from './dispatch.js';
import type { UpgradeHandler } from './http.js';
import { MAX_REQUEST_BYTES } from './jsonLimits.js';
import { RpcConnection, type ConnectionLimits } from './connection.js';
import type { CallContext } from './types.js';

/** Open WebSocket connections per server; more handshakes are answered 503. */
export const MAX_WS_CONNECTIONS = 1024;
// Stop reading from a client that keeps this many calls unanswered or this much unsent.
const MAX_IN_FLIGHT = 1024;
const MAX_UNSENT_BEFORE_PAUSE = 16 * 1024 * 1024;
// A closed slow consumer does not read our close frame either: drop it after this long.
const CLOSE_GRACE_MS = 1_000;
/** RFC 6455 close codes. */
export const WS_CLOSE = { tooBig: 1009, policy: 1008, goingAway: 1001 } as const;

export interface WsServerOptions {
  maxConnections?: number;
  /** per-connection subscription limits (tests lower them) */
  limits?: ConnectionLimits;
}

// The library loads at the first handshake: start-up and HTTP-only users do not need it.
let library: Promise<typeof import('ws')> | undefined;

export class WsRpcServer implements UpgradeHandler {
  private wss?: WebSocketServer;
  private stopped = false;
  private readonly maxConnections: number;
  private readonly sockets = new Set<WebSocket>();

  constructor(private readonly o: WsServerOptions = {}) {
    this.maxConnections = o.maxConnections ?? MAX_WS_CONNECTIONS;
  }

  get connections(): number {
    return this.sockets.size;
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, dispatcher: Dispatcher): void {
    if (this.sockets.size >= this.maxConnections) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    if (this.wss) {
      this.wss.handleUpgrade(req, socket, head, (ws) => this.serve(ws, dispatcher));
      return;
    }
    // The socket holds the client's bytes until the library is there; an error meanwhile only closes it.
    const onError = () => socket.destroy();
    socket.on('error', onError);
    (library ??= import('ws')).then(({ WebSocketServer }) => {
      socket.off('error', onError);
      if (this.stopped) socket.destroy();
      if (socket.destroyed) return;
      // maxPayload: ws closes the connection with 1009 when a message is larger (as HTTP answers 413).
      this.wss ??= new WebSocketServer({ noServer: true, maxPayload: MAX_REQUEST_BYTES, perMessageDeflate: false }).on('error', () => undefined);
      this.handleUpgrade(req, socket, head, dispatcher);
    }, () => socket.destroy());
  }

  /** Closes every connection (the HTTP server that fed this one stops listening itself). */
  stop(): void {
    this.stopped = true;
    for (const ws of this.sockets) ws.terminate();
    this.sockets.clear();
  }

  private serve(ws: WebSocket, dispatcher: Dispatcher): void {
    this.sockets.add(ws);
    let inFlight = 0;
    const connection = new RpcConnection(
      {
        write: (text) => ws.send(text),
        unsentBytes: () => ws.bufferedAmount,
        close: (reason) => {
          ws.close(WS_CLOSE.policy, reason);
          setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
        },
      },
      this.o.limits,
    );
    const updateFlow = (): void => {
      if (ws.readyState !== ws.OPEN) return;
      if (inFlight >= MAX_IN_FLIGHT || ws.bufferedAmount > MAX_UNSENT_BEFORE_PAUSE) ws.pause();
      else if (ws.isPaused) ws.resume();
    };
    ws.on('message', (data: RawData) => {
      inFlight++;
      updateFlow();
      // Replies go out as calls finish, in any order: a subscription's events wait for its own reply.
      const ctx: CallContext = { transport: 'ws', connection, afterReply: [] };
      // handle() never rejects: every failure is a JSON-RPC error reply.
      void dispatcher.handle(asBuffer(data), ctx).then((reply) => {
        inFlight--;
        if (reply !== undefined && ws.readyState === ws.OPEN) ws.send(reply, () => updateFlow());
        else updateFlow();
        for (const release of ctx.afterReply!) release();
      });
    });
    ws.on('error', () => undefined); // oversized frames and resets end in 'close'
    ws.on('close', () => {
      this.sockets.delete(ws);
      connection.dispose();
    });
  }
}

function asBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
