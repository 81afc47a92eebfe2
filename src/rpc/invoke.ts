// How a validated single call reaches its handler. Parsing, envelopes, routing, batches and
// limits are ours (geth's rules), so jayson could only pass a call through. Measured: that costs
// 0.6 µs a call but ~100 ms of start-up (jayson's index loads its clients and ws), so the node
// calls handlers directly; the jayson invoker stays, loaded on first use, as the cross-check the
// transport tests replay (test/rpc/transport/transcript.test.ts).

import type { JSONRPCCallbackTypePlain, RequestParamsLike, Server } from 'jayson';
import type { CallContext, RpcMethod, RpcParams } from './types.js';

/** Runs one handler; resolves with its result or rejects with exactly what it threw. */
export type Invoker = (method: RpcMethod, params: RpcParams, name: string, ctx?: CallContext, sent?: string) => Promise<unknown>;

/** Calls the handler straight from our Map lookup. */
export const invokeDirect: Invoker = async (method, params, _name, ctx, sent) => method.handler(params, ctx, sent);

// One jayson call in flight: jayson's context object carries the resolved method in and the
// original thrown value out (jayson itself would flatten it into a generic error).
interface Slot {
  method: RpcMethod;
  ctx: CallContext | undefined;
  sent: string | undefined;
  failed: boolean;
  failure: unknown;
}

// Any well-formed error makes jayson pass it through untouched; the real value is in the slot.
const FAILED = { code: -32603, message: 'internal error' };

/** Creates an invoker backed by one jayson.Server whose router always yields our dispatch method. */
export function createJaysonInvoker(): Invoker {
  let server: Promise<Server> | undefined;
  return async (method, params, name, ctx, sent) => {
    const jayson = await (server ??= jaysonServer());
    return new Promise((resolve, reject) => {
      const slot: Slot = { method, ctx, sent, failed: false, failure: undefined };
      const request = { jsonrpc: '2.0' as const, id: 0, method: name, params };
      try {
        jayson.call(request, slot, (err, response) => {
          if (slot.failed) reject(slot.failure);
          else if (err) reject(new Error(`jayson refused the call: ${JSON.stringify(err.error)}`));
          else resolve(response?.result);
        });
      } catch (err) {
        reject(err);
      }
    });
  };
}

async function jaysonServer(): Promise<Server> {
  const { default: jayson } = await import('jayson');
  const run = new jayson.Method(
    function (params: RequestParamsLike, context: object, callback: JSONRPCCallbackTypePlain): void {
      const slot = context as Slot;
      const fail = (err: unknown): void => {
        slot.failed = true;
        slot.failure = err;
        callback(FAILED);
      };
      let out: unknown;
      try {
        out = slot.method.handler(params as RpcParams, slot.ctx, slot.sent);
      } catch (err) {
        fail(err);
        return;
      }
      // Promise.resolve also adopts foreign thenables and turns a throwing `then` into a rejection.
      Promise.resolve(out).then((value) => callback(null, value), fail);
    },
    { useContext: true },
  );
  return new jayson.Server({}, { useContext: true, router: () => run });
}
