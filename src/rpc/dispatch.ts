// Turns one request body (single call or batch) into one reply body. Transport-independent:
// HTTP and IPC hand over raw bytes and write back whatever string comes out. Never rejects.

import { RpcCode, methodNotFound, toRpcError } from './errors.js';
import { RawJson } from './rawJson.js';
import { createJaysonInvoker, invokeDirect, type Invoker } from './invoke.js';
import { MAX_BATCH_ITEMS, MAX_BATCH_RESPONSE_BYTES, MAX_JSON_DEPTH, exceedsDepth } from './jsonLimits.js';
import { canonicalName } from './namespaces.js';
import type { CallContext, MethodTable, RpcErrorObject, RpcId, RpcMethod, RpcParams } from './types.js';

export interface DispatcherOptions {
  methods: MethodTable;
  /** Namespace whitelist (HTTP --rpcapi), asked with the table name; false → -32601. */
  isAllowed?: (method: string) => boolean;
  /** Include stack traces in -32603 data only when true. */
  debug?: boolean;
  /** SCS rpcdebug: 'ScsRPCMethod.getnonce' matches 'ScsRPCMethod.GetNonce'. */
  caseInsensitive?: boolean;
  /** How a validated call reaches its handler; default 'direct' (see invoke.ts). */
  invoker?: 'jayson' | 'direct';
  /** Told of every call to a served method (canonical name, milliseconds, no error): metrics. */
  onCall?: (method: string, ms: number, ok: boolean) => void;
  /** Calls wait until it opens: the node binds its listeners before it has finished starting. */
  gate?: StartGate;
}

/**
 * Holds every call until the node has finished starting: its listeners are bound early (their
 * ports go into the banner and admin_nodeInfo), but nothing is answered before the banner is
 * written and the peer-to-peer listener is bound, so the first answer never meets a half-started node.
 */
export class StartGate {
  isOpen = false;
  private release!: () => void;
  readonly opened: Promise<void> = new Promise((resolve) => (this.release = resolve));

  open(): void {
    this.isOpen = true;
    this.release();
  }
}

/** A decoded request: either a call (notify = no reply wanted) or an invalid one. */
type Decoded =
  | { valid: true; id: RpcId; notify: boolean; method: string; params: RpcParams }
  | { valid: false; id: RpcId };

const PARSE_ERROR: RpcErrorObject = { code: RpcCode.ParseError, message: 'parse error' };
const INVALID_REQUEST: RpcErrorObject = { code: RpcCode.InvalidRequest, message: 'invalid request' };
const TOO_DEEP: RpcErrorObject = {
  code: RpcCode.InvalidRequest,
  message: `invalid request: nesting deeper than ${MAX_JSON_DEPTH}`,
};
const EMPTY_BATCH: RpcErrorObject = { code: RpcCode.InvalidRequest, message: 'empty batch' };
const BATCH_TOO_LARGE: RpcErrorObject = { code: RpcCode.InvalidRequest, message: 'batch too large' };
const RESPONSE_TOO_LARGE: RpcErrorObject = { code: RpcCode.ResponseTooLarge, message: 'response too large' };
/** Calls of one batch that run at the same time (bounds the memory of in-flight results). */
export const BATCH_WINDOW = 16;

export class Dispatcher {
  private readonly methods: MethodTable;
  private readonly isAllowed: ((method: string) => boolean) | undefined;
  private readonly debug: boolean;
  private readonly caseInsensitive: boolean;
  private readonly invoke: Invoker;
  private readonly onCall: DispatcherOptions['onCall'];
  private readonly gate: StartGate | undefined;

  constructor(o: DispatcherOptions) {
    this.gate = o.gate;
    this.methods = o.methods;
    this.isAllowed = o.isAllowed;
    this.debug = o.debug ?? false;
    this.caseInsensitive = o.caseInsensitive ?? false;
    this.invoke = o.invoker === 'jayson' ? createJaysonInvoker() : invokeDirect;
    this.onCall = o.onCall;
  }

  /** Reply body for a request body; undefined when nothing is to be sent (notifications only). */
  handle(body: string | Buffer, ctx: CallContext): Promise<string | undefined> {
    if (this.gate !== undefined && !this.gate.isOpen) return this.gate.opened.then(() => this.handle(body, ctx));
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (exceedsDepth(text, MAX_JSON_DEPTH)) return Promise.resolve(errorReply(null, TOO_DEEP));
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return Promise.resolve(errorReply(null, PARSE_ERROR));
    }
    if (Array.isArray(message)) return this.batch(message, ctx);
    return this.call(decodeRequest(message), ctx);
  }

  private async batch(items: unknown[], ctx: CallContext): Promise<string | undefined> {
    if (items.length === 0) return errorReply(null, EMPTY_BATCH);
    if (items.length > MAX_BATCH_ITEMS) return errorReply(null, BATCH_TOO_LARGE);
    const requests = items.map(decodeRequest);
    // Calls run concurrently, BATCH_WINDOW at a time; replies keep request order. Once the replies
    // pass the size limit, later calls are not run at all: they get -32003 (notifications nothing),
    // so a small batch of calls with huge results cannot make the node hold gigabytes.
    const out: string[] = [];
    let size = 0;
    let over = false;
    for (let start = 0; start < requests.length; start += BATCH_WINDOW) {
      const window = requests.slice(start, start + BATCH_WINDOW);
      const replies = over ? [] : await Promise.all(window.map((r) => this.call(r, ctx)));
      for (let j = 0; j < window.length; j++) {
        const request = window[j];
        if (over) {
          if (!request.valid || !request.notify) out.push(errorReply(request.id, RESPONSE_TOO_LARGE));
          continue;
        }
        const reply = replies[j];
        if (reply === undefined) continue;
        out.push(reply);
        size += Buffer.byteLength(reply);
        if (size > MAX_BATCH_RESPONSE_BYTES) over = true;
      }
    }
    return out.length === 0 ? undefined : `[${out.join(',')}]`;
  }

  // `ctx` reaches the handler: subscriptions need the caller's connection.
  private async call(request: Decoded, ctx: CallContext): Promise<string | undefined> {
    if (!request.valid) return errorReply(request.id, INVALID_REQUEST);
    const { id, notify } = request;
    let found: { name: string; method: RpcMethod } | undefined;
    const started = this.onCall ? performance.now() : 0;
    try {
      found = this.lookup(request.method);
      if (found === undefined) return notify ? undefined : errorReply(id, methodNotFound(request.method));
      const result = await this.invoke(found.method, request.params, found.name, ctx, request.method);
      this.onCall?.(found.name, performance.now() - started, true);
      return notify ? undefined : resultReply(id, result, this.debug);
    } catch (err) {
      // Only served methods are reported, so that callers cannot invent label values.
      if (found) this.onCall?.(found.name, performance.now() - started, false);
      return notify ? undefined : errorReply(id, toRpcError(err, this.debug));
    }
  }

  /** Resolves aliases, the optional case folding and the whitelist. Map lookups only. */
  private lookup(sent: string): { name: string; method: RpcMethod } | undefined {
    let name = canonicalName(sent);
    let method = this.methods.get(name);
    if (method === undefined && this.caseInsensitive) {
      const folded = name.toLowerCase();
      for (const [key, m] of this.methods) {
        if (key.toLowerCase() === folded) {
          name = key;
          method = m;
          break;
        }
      }
    }
    if (method === undefined) return undefined;
    if (this.isAllowed !== undefined && !this.isAllowed(name)) return undefined;
    return { name, method };
  }
}

export { canonicalName };

function decodeRequest(message: unknown): Decoded {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return { valid: false, id: null };
  const m = message as Record<string, unknown>;
  const rawId = m.id;
  let id: RpcId;
  if (rawId === undefined || rawId === null) id = null;
  else if (typeof rawId === 'string' || typeof rawId === 'number') id = rawId;
  else return { valid: false, id: null };
  if (m.jsonrpc !== '2.0' || typeof m.method !== 'string') return { valid: false, id };
  const raw = m.params;
  let params: RpcParams;
  if (raw === undefined) params = [];
  else if (typeof raw === 'object' && raw !== null) params = raw as RpcParams;
  else return { valid: false, id };
  return { valid: true, id, notify: rawId === undefined, method: m.method, params };
}

function resultReply(id: RpcId, result: unknown, debug: boolean): string {
  if (result instanceof RawJson) return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result.text}}`;
  let json: string | undefined;
  try {
    json = JSON.stringify(result);
  } catch (err) {
    // A handler returned something that is not JSON (a bigint, a cycle): a bug, reported as one.
    return errorReply(id, toRpcError(err, debug));
  }
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${json ?? 'null'}}`;
}

function errorReply(id: RpcId, error: RpcErrorObject): string {
  let json: string;
  try {
    json = JSON.stringify(error);
  } catch {
    json = JSON.stringify({ code: error.code, message: error.message });
  }
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":${json}}`;
}
