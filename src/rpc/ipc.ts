// The JSON-RPC IPC endpoint: a unix socket carrying newline-delimited JSON both ways. The reader
// also accepts values packed back to back or split across chunks (JsonSplitter). Replies on one
// connection are written in request order, while the calls themselves run concurrently.

import { chmod, lstat, unlink } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { Dispatcher } from './dispatch.js';
import { RpcCode } from './errors.js';
import { JsonSplitter } from './jsonSplitter.js';
import { MAX_REQUEST_BYTES } from './jsonLimits.js';
import type { CallContext } from './types.js';
import { RpcConnection } from './connection.js';

export interface IpcServerOptions {
  path: string;
  dispatcher: Dispatcher;
}

// sun_path is 108 bytes on Linux (104 on macOS) including the terminating NUL.
const MAX_SOCKET_PATH_BYTES = 103;
/** Open IPC connections at once; more are dropped on arrival. */
export const MAX_IPC_CONNECTIONS = 1024;
// Stop reading from a client that keeps this many calls unanswered (it is not reading replies).
const MAX_IN_FLIGHT = 1024;
// After refusing an oversized value, give the client this long to read the reply and hang up.
const CLOSE_GRACE_MS = 2_000;
const TOO_LARGE_REPLY =
  JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: { code: RpcCode.InvalidRequest, message: `request too large (limit ${MAX_REQUEST_BYTES} bytes)` },
  }) + '\n';

export class IpcRpcServer {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly o: IpcServerOptions) {}

  async start(): Promise<void> {
    if (this.server !== undefined) throw new Error('IPC server already started');
    const { path } = this.o;
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
      throw new Error(`IPC path ${path} is too long (max ${MAX_SOCKET_PATH_BYTES} bytes)`);
    }
    await removeStaleSocket(path);
    const server = createServer((socket) => this.serve(socket));
    server.maxConnections = MAX_IPC_CONNECTIONS;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        server.on('error', () => undefined);
        resolve();
      });
    });
    this.server = server;
    try {
      await chmod(path, 0o600); // owner only: IPC serves every namespace, personal_* included
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  /** Stops listening, drops every connection and removes the socket file. */
  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await closed;
    await unlink(this.o.path).catch(() => undefined); // libuv usually removed it already
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    const splitter = new JsonSplitter(MAX_REQUEST_BYTES);
    let tail: Promise<void> = Promise.resolve();
    let inFlight = 0;
    let ending = false;

    const updateFlow = (): void => {
      if (ending || socket.destroyed) return;
      if (inFlight >= MAX_IN_FLIGHT || socket.writableNeedDrain) socket.pause();
      else socket.resume();
    };
    const send = (text: string): void => {
      if (!socket.destroyed && socket.writable) socket.write(text);
    };
    // Subscriptions push notifications on the same socket, one JSON value per line, queued
    // behind the replies still owed (so a subscription's id always comes before its events).
    let queued = 0;
    const connection = new RpcConnection({
      write: (text) => {
        queued += text.length;
        tail = tail.then(() => {
          queued -= text.length;
          send(text + '\n');
        });
      },
      unsentBytes: () => socket.writableLength + queued,
      close: () => void socket.destroy(),
    });
    const ctx: CallContext = { transport: 'ipc', connection };

    socket.on('data', (chunk: Buffer) => {
      if (ending) return;
      for (const value of splitter.push(chunk)) {
        inFlight++;
        const reply = this.o.dispatcher.handle(value, ctx); // starts running now
        tail = tail
          .then(() => reply)
          .then((text) => {
            inFlight--;
            if (text !== undefined) send(text + '\n');
            updateFlow();
          })
          .catch(() => void socket.destroy()); // unreachable in practice; never leave a rejection unhandled
      }
      if (splitter.overflowed) {
        // The stream cannot be resynchronised: answer what came before, then say why and close.
        ending = true;
        tail = tail.then(() => {
          if (!socket.destroyed) socket.end(TOO_LARGE_REPLY);
          setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
        });
        return;
      }
      updateFlow();
    });
    socket.on('drain', updateFlow);
    socket.on('error', () => undefined); // resets from clients are routine
    socket.on('close', () => {
      this.sockets.delete(socket);
      connection.dispose();
    });
  }
}

/** A leftover socket file with nobody listening is removed; a live one means another node. */
async function removeStaleSocket(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = (await lstat(path)).isSocket();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!isSocket) throw new Error(`IPC endpoint ${path} exists and is not a socket`);
  const answer = await new Promise<'live' | 'stale' | 'unknown'>((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve('live');
    });
    probe.once('error', (err: NodeJS.ErrnoException) => {
      resolve(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? 'stale' : 'unknown');
    });
  });
  if (answer !== 'stale') throw new Error(`IPC endpoint ${path} is in use`);
  await unlink(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}
