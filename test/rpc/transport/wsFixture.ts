// An in-process HTTP + WebSocket endpoint over a SubscriptionHub fed by a fake chain and pool,
// and a small WebSocket client that collects replies and notifications.

import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import type { Block, Header, Log, Receipt, SignedTx } from '../../../src/chain/types.js';
import { logsBloom } from '../../../src/chain/block.js';
import { bigintToFixed, keccak256 } from '../../../src/encoding/bytes.js';
import { Dispatcher } from '../../../src/rpc/dispatch.js';
import { HttpRpcServer } from '../../../src/rpc/http.js';
import { WsRpcServer, type WsServerOptions } from '../../../src/rpc/ws.js';
import { SubscriptionHub, type NewHead, type Rewound } from '../../../src/filters/subscriptions.js';
import { subscriptionMethods } from '../../../src/rpc/modules/mc/subscriptions.js';
import { buildMethodTable } from '../../../src/rpc/modules/index.js';
import { testMethods } from './fixture.js';

export class FakeEvents extends EventEmitter<{ newHead: [NewHead]; rewound: [Rewound]; pendingTx: [SignedTx] }> {}

export function makeBlock(number: bigint, txLogs: Log[][] = [], extraData = new Uint8Array()): { block: Block; receipts: Receipt[] } {
  const receipts: Receipt[] = txLogs.map((logs) => ({ status: 1, cumulativeGasUsed: 0n, gasUsed: 0n, logsBloom: logsBloom(logs), logs, contractAddress: null }));
  const header: Header = {
    parentHash: new Uint8Array(32), sha3Uncles: new Uint8Array(32), miner: new Uint8Array(20), stateRoot: new Uint8Array(32),
    transactionsRoot: new Uint8Array(32), receiptsRoot: new Uint8Array(32), logsBloom: logsBloom(txLogs.flat()), difficulty: 1n,
    number, gasLimit: 9_000_000n, gasUsed: 0n, timestamp: number, extraData, mixHash: new Uint8Array(32), nonce: new Uint8Array(8),
  };
  const transactions = txLogs.map((_, i) => ({ hash: keccak256(bigintToFixed(number * 1000n + BigInt(i), 32)) }) as SignedTx);
  return { block: { header, hash: keccak256(bigintToFixed(number + 7n, 32)), transactions, size: 0 }, receipts };
}

export interface WsEndpoint {
  url: string;
  events: FakeEvents;
  hub: SubscriptionHub;
  ws: WsRpcServer;
  http: HttpRpcServer;
  stop(): Promise<void>;
}

export async function startWsEndpoint(o: { corsOrigins?: string[]; vhosts?: string[]; ws?: WsServerOptions } = {}): Promise<WsEndpoint> {
  const events = new FakeEvents();
  const hub = new SubscriptionHub({ chain: events, rewinds: events, pool: events });
  const methods = buildMethodTable(Object.fromEntries(testMethods()), subscriptionMethods(hub));
  const dispatcher = new Dispatcher({ methods });
  const ws = new WsRpcServer(o.ws);
  const http = new HttpRpcServer({
    host: '127.0.0.1', port: 0, corsOrigins: o.corsOrigins ?? [], vhosts: o.vhosts ?? ['localhost'],
    route: (p) => (p === '/' ? dispatcher : undefined), websocket: ws,
  });
  const { port } = await http.start();
  return {
    url: `ws://127.0.0.1:${port}/`, events, hub, ws, http,
    async stop() {
      ws.stop();
      await http.stop();
      hub.stop();
    },
  };
}

/** A connected client: `call` resolves with the reply of one request; notifications collect in `notes`. */
export interface Client {
  socket: WebSocket;
  notes: any[];
  call(method: string, params?: unknown[]): Promise<any>;
  send(body: string): Promise<any>;
  nextNote(): Promise<any>;
  closed: Promise<{ code: number; reason: string }>;
}

let nextId = 1;

export async function connect(url: string, options: WebSocket.ClientOptions = {}): Promise<Client> {
  const socket = new WebSocket(url, options);
  const replies: ((m: any) => void)[] = [];
  const notes: any[] = [];
  const noteWaiters: ((m: any) => void)[] = [];
  socket.on('message', (data) => {
    const m = JSON.parse(String(data));
    if (!Array.isArray(m) && m.method !== undefined) {
      const waiter = noteWaiters.shift();
      if (waiter) waiter(m);
      else notes.push(m);
    } else {
      replies.shift()?.(m);
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const withTimeout = <T>(p: Promise<T>, what: string) =>
    Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), 5000).unref())]);
  const client: Client = {
    socket, notes, closed,
    send: (body) => withTimeout(new Promise((resolve) => {
      replies.push(resolve);
      socket.send(body);
    }), body.slice(0, 80)),
    call: (method, params = []) => client.send(JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params })),
    nextNote: () => withTimeout(notes.length ? Promise.resolve(notes.shift()) : new Promise((resolve) => noteWaiters.push(resolve)), 'notification'),
  };
  return client;
}
