// The in-process EIP-1193 provider of a node started as a library (docs/library.md#the-provider):
// `request({ method, params })` goes through the dispatcher the HTTP endpoint uses, as the same
// JSON text, so every answer is the HTTP answer's `result` or error. The provider is one
// long-lived connection, like a WebSocket: subscriptions work, and their notifications arrive as
// `message` events. No socket, no port.

import { EventEmitter } from 'node:events';
import { RpcConnection } from '../rpc/connection.js';
import type { Dispatcher } from '../rpc/dispatch.js';
import type { CallContext } from '../rpc/types.js';

/** EIP-1193's request arguments. */
export interface RequestArguments {
  readonly method: string;
  readonly params?: readonly unknown[] | object;
}

/** An EIP-1193 error: the JSON-RPC error's code, message and data, or a provider code (4900: disconnected). */
export class ProviderRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ProviderRpcError';
  }
}

/** EIP-1193: the provider is disconnected from all chains. */
export const DISCONNECTED = 4900;
/** JSON-RPC: the request is not a valid request object (here: its params are not JSON). */
const INVALID_REQUEST = -32600;

/** What EIP-1193 callers (ethers' BrowserProvider, viem's custom(), web3.js) need of a provider. */
export interface Eip1193Provider {
  request(args: RequestArguments): Promise<unknown>;
  on(event: string, listener: (...args: any[]) => void): this;
  removeListener(event: string, listener: (...args: any[]) => void): this;
}

/** A subscription notification in EIP-1193's shape. */
export interface ProviderMessage {
  type: 'eth_subscription';
  data: { subscription: string; result: unknown };
}

type Reply = { result?: unknown; error?: { code: number; message: string; data?: unknown } };

export class InProcessProvider extends EventEmitter implements Eip1193Provider {
  private nextId = 1;
  private connected = true;
  /** Notifications not yet emitted: they leave on the next turn of the event loop, in order. */
  private queue: string[] = [];
  private queuedBytes = 0;
  private flushing = false;
  private readonly connection: RpcConnection;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly chainId: string,
  ) {
    super();
    this.connection = new RpcConnection({
      write: (text) => this.enqueue(text),
      unsentBytes: () => this.queuedBytes,
      // Too many unsent notifications: this connection's subscriptions end, as a WebSocket's would.
      close: () => undefined,
    });
    // After the caller's own code has run: a listener added right after startNode() hears it.
    setImmediate(() => {
      if (this.connected) this.emit('connect', { chainId: this.chainId });
    });
  }

  /** False once the node has stopped (EIP-1193's `disconnect` has been emitted). */
  isConnected(): boolean {
    return this.connected;
  }

  async request(args: RequestArguments): Promise<unknown> {
    if (!this.connected) throw new ProviderRpcError(DISCONNECTED, 'the node has stopped');
    if (typeof args !== 'object' || args === null || typeof args.method !== 'string') {
      throw new ProviderRpcError(INVALID_REQUEST, 'invalid request: expected { method: string, params?: array | object }');
    }
    let body: string;
    try {
      body = JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method: args.method, params: args.params ?? [] });
    } catch (err) {
      throw new ProviderRpcError(INVALID_REQUEST, `invalid request: params are not JSON (${(err as Error).message})`);
    }
    const ctx: CallContext = { transport: 'ws', connection: this.connection, afterReply: [] };
    const text = await this.dispatcher.handle(body, ctx);
    // The answer waits for the next turn of the event loop, as one over a socket would: many
    // answers come from memory without any I/O, and a caller polling without a pause (`while
    // (!(await request(receipt))) {}`) would otherwise keep the loop from running the timers
    // and I/O that produce what it waits for. Costs a few microseconds per call (bench/provider.ts).
    await new Promise((resolve) => setImmediate(resolve));
    // A subscription's first events wait until its id has reached the caller.
    for (const release of ctx.afterReply!) release();
    const reply = JSON.parse(text!) as Reply;
    if (reply.error) throw new ProviderRpcError(reply.error.code, reply.error.message, reply.error.data);
    return reply.result;
  }

  /** The node stops: subscriptions end, later requests fail with 4900, `disconnect` is emitted. */
  disconnect(): void {
    if (!this.connected) return;
    this.connected = false;
    this.connection.dispose();
    this.queue = [];
    this.emit('disconnect', new ProviderRpcError(DISCONNECTED, 'the node has stopped'));
  }

  private enqueue(text: string): void {
    this.queue.push(text);
    this.queuedBytes += text.length;
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => this.flush());
  }

  /**
   * Emits the queued notifications. A listener that throws does not stop the others or the node:
   * its error is thrown again on its own turn, as an error in any event listener would be.
   */
  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    this.flushing = false;
    for (const text of batch) {
      if (!this.connected) return;
      const { params } = JSON.parse(text) as { params: { subscription: string; result: unknown } };
      const message: ProviderMessage = { type: 'eth_subscription', data: { subscription: params.subscription, result: params.result } };
      try {
        this.emit('message', message);
      } catch (err) {
        process.nextTick(() => {
          throw err;
        });
      }
    }
  }
}
