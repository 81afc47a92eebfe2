// mc_subscribe / mc_unsubscribe (and their eth_ aliases): push notifications over WebSocket and
// IPC. The notification method follows the namespace the client subscribed with
// (`eth_subscription` after eth_subscribe). Over HTTP there is no connection to push to.

import { ErrorKind, NodeError } from '../../../errors.js';
import { bytesToHex, encodeQuantity } from '../../../encoding/hex.js';
import type { Block } from '../../../chain/types.js';
import type { SubscriptionEvent, SubscriptionHub, SubscriptionRequest } from '../../../filters/subscriptions.js';
import { formatHeader, formatLog, formatTransaction } from '../../format.js';
import { ParamError, decodePositional, optional, boolean, string, type Codec } from '../../params.js';
import type { CallContext, RpcMethod, RpcParams } from '../../types.js';
import { filterQuery } from './filters.js';

const unavailable = (message: string) => new NodeError(ErrorKind.Unavailable, message);

// One header's JSON serves every newHeads subscriber of that block.
const headJson = new WeakMap<Block, string>();

function toJson(event: SubscriptionEvent): string {
  switch (event.kind) {
    case 'newHeads': {
      let text = headJson.get(event.block);
      if (text === undefined) headJson.set(event.block, (text = JSON.stringify(formatHeader(event.block))));
      return text;
    }
    case 'logs':
      return JSON.stringify(formatLog(event.entry.log, event.entry.at, event.removed));
    case 'newPendingTransactions':
      return JSON.stringify(event.full ? formatTransaction(event.tx) : bytesToHex(event.tx.hash));
    case 'syncing': {
      const s = event.status;
      if (s === false) return 'false';
      return JSON.stringify({
        syncing: true,
        status: { startingBlock: encodeQuantity(s.startingBlock), currentBlock: encodeQuantity(s.currentBlock), highestBlock: encodeQuantity(s.highestBlock) },
      });
    }
  }
}

const anything: Codec<unknown> = (v) => v;

function decodeRequest(params: RpcParams, ns: string): SubscriptionRequest {
  const [kind, options] = decodePositional(params, [string, optional(anything)] as const);
  switch (kind) {
    case 'newHeads':
    case 'syncing':
      return { kind };
    case 'logs': {
      if (options === undefined) return { kind, criteria: { addresses: [], topics: [] } };
      return { kind, criteria: filterQuery(options, 1).criteria };
    }
    case 'newPendingTransactions':
      return { kind, full: options === undefined ? false : boolean(options, 1) };
    default:
      throw unavailable(`no "${kind}" subscription in ${ns} namespace`);
  }
}

const subscriptionId = (id: bigint) => '0x' + id.toString(16).padStart(32, '0');

export function subscriptionMethods(hub: SubscriptionHub): Record<string, RpcMethod> {
  return {
    mc_subscribe: {
      handler(params, ctx?: CallContext, sent = 'mc_subscribe') {
        const ns = sent.slice(0, sent.indexOf('_'));
        const connection = ctx?.connection;
        if (!connection) throw unavailable('notifications not supported');
        const request = decodeRequest(params, ns);
        connection.checkRoom();
        const method = `${ns}_subscription`;
        // Events that come before the reply has been written wait one turn, so the client knows the id first.
        let ready = false;
        const early: string[] = [];
        let idText = '';
        const id = hub.subscribe(request, (event) => {
          const json = toJson(event);
          if (ready) connection.notify(method, idText, json);
          else early.push(json);
        });
        idText = subscriptionId(id);
        connection.add(idText, () => hub.unsubscribe(id));
        const release = () => {
          ready = true;
          for (const json of early.splice(0)) connection.notify(method, idText, json);
        };
        // IPC writes notifications behind owed replies itself; a WebSocket says when the reply left.
        if (ctx?.afterReply) ctx.afterReply.push(release);
        else setImmediate(release);
        return idText;
      },
    },
    mc_unsubscribe: {
      handler(params, ctx?: CallContext) {
        const [id] = decodePositional(params, [string] as const);
        const connection = ctx?.connection;
        if (!connection) throw unavailable('notifications not supported');
        if (!/^0x[0-9a-fA-F]+$/.test(id)) throw new ParamError(0, 'expected a subscription id');
        return connection.remove(id.toLowerCase());
      },
    },
  };
}
