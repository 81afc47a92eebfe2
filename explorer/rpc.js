// The node's JSON-RPC from the page: calls over HTTP POST to this endpoint, the read-only SCS
// calls at /explorer/scs, and new heads over a WebSocket to this endpoint (polling when the
// WebSocket cannot be opened). Nothing else is contacted.

let nextId = 1;

export class RpcError extends Error {
  constructor(error) {
    super(error.message);
    this.code = error.code;
    this.data = error.data;
  }
}

async function post(path, method, params) {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  const reply = await res.json();
  if (reply.error) throw new RpcError(reply.error);
  return reply.result;
}

/** A main-chain call. */
export const rpc = (method, ...params) => post('/', method, params);
/** A read-only SCS call (app chains). */
export const scs = (method, ...params) => post('/explorer/scs', method, params);

/**
 * Calls `onHead(header)` for every new head: an `eth_subscribe` over the WebSocket, or a poll of
 * the block number every 2 s while it is not open. `onState(text, live)` tells which one runs.
 */
export function watchHeads(onHead, onState) {
  let socket;
  let poll;
  let last;
  const startPolling = () => {
    if (poll) return;
    onState('polling', false);
    poll = setInterval(async () => {
      try {
        const number = await rpc('eth_blockNumber');
        if (last !== undefined && number !== last) onHead(await rpc('eth_getBlockByNumber', number, false));
        last = number;
      } catch {
        /* the next tick tries again */
      }
    }, 2000);
  };
  const connect = () => {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    socket = new WebSocket(`${scheme}//${location.host}/`);
    socket.onopen = () => {
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'eth_subscribe', params: ['newHeads'] }));
      clearInterval(poll);
      poll = undefined;
      onState('live', true);
    };
    socket.onmessage = (event) => {
      const msg = JSON.parse(event.data);
      if (msg.method === 'eth_subscription') onHead(msg.params.result);
    };
    socket.onclose = () => {
      startPolling();
      setTimeout(connect, 5000);
    };
  };
  connect();
}
