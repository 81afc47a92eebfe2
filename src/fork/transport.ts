// How JSON-RPC messages reach a fork's upstream: HTTP(S) POST, one WebSocket, or an IPC socket
// (newline-delimited JSON, as geth, MOAC and mcnode write it). One exchange sends one message (a
// call or a batch) and waits for its answer; a failure to exchange (refused, reset, timed out, an
// HTTP status other than 200) is a TransportError, which the client may retry. The client above
// (upstreamClient.ts) owns retries, the concurrency bound and the counting.

import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import WebSocket from 'ws';

/** A JSON-RPC message out (a call or a batch of calls) and what came back, parsed. */
export type JsonMessage = unknown;

/** The exchange failed below JSON-RPC: nothing (or nothing usable) came back. */
export class TransportError extends Error {}

export interface Transport {
  /** Sends `message` (its calls carry their ids) and resolves with the answer; `ids` are the ids it waits for. */
  exchange(message: JsonMessage, ids: readonly number[], timeoutMs: number): Promise<JsonMessage>;
  close(): void;
}

/** `Name: value` header lines as pairs; a line without a colon is refused. */
export function parseHeaders(lines: readonly string[]): [string, string][] {
  return lines.map((line) => {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`fork header "${line}" is not "Name: value"`);
    return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
  });
}

/** The transport a URL names: http(s)://, ws(s)://, or a filesystem path of an IPC socket. */
export function openTransport(url: string, headers: readonly [string, string][]): Transport {
  if (/^https?:\/\//i.test(url)) return new HttpTransport(url, headers);
  if (/^wss?:\/\//i.test(url)) return new SocketTransport(() => new WsLink(url, headers));
  return new SocketTransport(() => new IpcLink(url));
}

/** The URL as logs and messages show it: no user name or password. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

const describe = (err: unknown): string => {
  const e = err as NodeJS.ErrnoException;
  return e.code ? `${e.code}${e.message && !e.message.includes(e.code) ? ` (${e.message})` : ''}` : (e.message ?? String(err));
};

class HttpTransport implements Transport {
  private readonly agent: http.Agent;
  private readonly module: typeof http | typeof https;

  constructor(
    private readonly url: string,
    private readonly headers: readonly [string, string][],
  ) {
    const secure = /^https:/i.test(url);
    this.module = secure ? https : http;
    // The client keeps at most 8 exchanges in flight: as many kept-alive sockets.
    this.agent = new this.module.Agent({ keepAlive: true, maxSockets: 8 });
  }

  exchange(message: JsonMessage, _ids: readonly number[], timeoutMs: number): Promise<JsonMessage> {
    const body = Buffer.from(JSON.stringify(message));
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': body.length };
      for (const [name, value] of this.headers) headers[name] = value;
      const req = this.module.request(this.url, { method: 'POST', agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => reject(new TransportError(describe(err))));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) return reject(new TransportError(`HTTP ${res.statusCode}${text ? `: ${text.slice(0, 120)}` : ''}`));
          try {
            resolve(JSON.parse(text));
          } catch {
            reject(new TransportError(`the answer is not JSON: ${text.slice(0, 80)}`));
          }
        });
      });
      req.setTimeout(timeoutMs, () => req.destroy(new TransportError(`no answer within ${timeoutMs} ms`)));
      req.on('error', (err) => reject(err instanceof TransportError ? err : new TransportError(describe(err))));
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** A message link over one connection: WebSocket frames or IPC lines. */
interface Link {
  /** resolves once connected */
  readonly ready: Promise<void>;
  send(text: string): void;
  onMessage(handler: (text: string) => void): void;
  /** called once when the connection ends or fails, with the reason */
  onClose(handler: (reason: string) => void): void;
  close(): void;
}

class WsLink implements Link {
  private readonly ws: WebSocket;
  readonly ready: Promise<void>;
  constructor(url: string, headers: readonly [string, string][]) {
    this.ws = new WebSocket(url, { headers: Object.fromEntries(headers), maxPayload: 256 * 2 ** 20 });
    this.ready = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', (err) => reject(new TransportError(describe(err))));
    });
    this.ready.catch(() => undefined);
  }
  send(text: string): void {
    this.ws.send(text);
  }
  onMessage(handler: (text: string) => void): void {
    this.ws.on('message', (data) => handler(data.toString()));
  }
  onClose(handler: (reason: string) => void): void {
    let done = false;
    const once = (reason: string) => {
      if (!done) handler(reason);
      done = true;
    };
    this.ws.on('error', (err) => once(describe(err)));
    this.ws.on('close', (code) => once(`connection closed (${code})`));
  }
  close(): void {
    this.ws.terminate();
  }
}

class IpcLink implements Link {
  private readonly socket: net.Socket;
  readonly ready: Promise<void>;
  private buffer = '';
  constructor(path: string) {
    this.socket = net.connect(path);
    this.ready = new Promise((resolve, reject) => {
      this.socket.once('connect', () => resolve());
      this.socket.once('error', (err) => reject(new TransportError(describe(err))));
    });
    this.ready.catch(() => undefined);
  }
  send(text: string): void {
    this.socket.write(text + '\n');
  }
  onMessage(handler: (text: string) => void): void {
    this.socket.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl).trim();
        this.buffer = this.buffer.slice(nl + 1);
        if (line) handler(line);
      }
    });
  }
  onClose(handler: (reason: string) => void): void {
    let done = false;
    const once = (reason: string) => {
      if (!done) handler(reason);
      done = true;
    };
    this.socket.on('error', (err) => once(describe(err)));
    this.socket.on('close', () => once('connection closed'));
  }
  close(): void {
    this.socket.destroy();
  }
}

interface Waiting {
  resolve(value: JsonMessage): void;
  reject(err: Error): void;
}

/** Exchanges over one connection (opened on first use and again after it drops), answers matched by id. */
class SocketTransport implements Transport {
  private link: Link | undefined;
  /** by the id of a call, or of a batch's first call */
  private readonly waiting = new Map<number, Waiting>();

  constructor(private readonly connect: () => Link) {}

  private async open(): Promise<Link> {
    if (this.link) return this.link;
    const link = this.connect();
    this.link = link;
    link.onMessage((text) => this.answer(text));
    link.onClose((reason) => {
      if (this.link === link) this.link = undefined;
      const pending = [...this.waiting.values()];
      this.waiting.clear();
      for (const w of pending) w.reject(new TransportError(reason));
    });
    try {
      await link.ready;
    } catch (err) {
      if (this.link === link) this.link = undefined;
      link.close();
      throw err;
    }
    return link;
  }

  private answer(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return; // not ours to parse: nothing waits on it
    }
    const first = Array.isArray(message) ? message[0] : message;
    const id = (first as { id?: unknown } | undefined)?.id;
    if (typeof id !== 'number') return; // a notification, or an answer without an id
    const ids = Array.isArray(message) ? message.map((m) => (m as { id?: unknown }).id).filter((x): x is number => typeof x === 'number') : [id];
    // A batch's answers may come in any order: whichever of its ids the batch was filed under.
    for (const candidate of ids) {
      const w = this.waiting.get(candidate);
      if (w) {
        this.waiting.delete(candidate);
        w.resolve(message);
        return;
      }
    }
  }

  async exchange(message: JsonMessage, ids: readonly number[], timeoutMs: number): Promise<JsonMessage> {
    const link = await this.open();
    const key = ids[0];
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(key);
        reject(new TransportError(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(key, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      link.send(JSON.stringify(message));
    });
  }

  close(): void {
    this.link?.close();
    this.link = undefined;
  }
}
