// One long-lived client connection (WebSocket or IPC) able to receive notifications: the
// subscriptions it holds (at most 1000) and the slow-consumer rule (more than 16 MiB of
// notifications unsent → the connection is closed). docs/transports.md#subscriptions.

import { limitExceeded } from '../errors.js';

export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 1000;
export const MAX_UNSENT_NOTIFICATION_BYTES = 16 * 1024 * 1024;

/** What a transport offers a connection. */
export interface ConnectionTransport {
  /** sends one JSON message (the transport adds its framing) */
  write(text: string): void;
  /** bytes written but not yet handed to the network */
  unsentBytes(): number;
  /** closes the connection because of `reason` (slow consumer) */
  close(reason: string): void;
}

export interface ConnectionLimits {
  maxSubscriptions: number;
  maxUnsentBytes: number;
}

export class RpcConnection {
  private readonly subs = new Map<string, () => void>();
  private open = true;

  constructor(
    private readonly transport: ConnectionTransport,
    private readonly limits: ConnectionLimits = { maxSubscriptions: MAX_SUBSCRIPTIONS_PER_CONNECTION, maxUnsentBytes: MAX_UNSENT_NOTIFICATION_BYTES },
  ) {}

  get isOpen(): boolean {
    return this.open;
  }

  get subscriptionCount(): number {
    return this.subs.size;
  }

  /** Checks the per-connection limit before a subscription is made. */
  checkRoom(): void {
    if (this.subs.size >= this.limits.maxSubscriptions) {
      throw limitExceeded(`subscriptions (max ${this.limits.maxSubscriptions} per connection)`);
    }
  }

  /** Ties a subscription to this connection: `cancel` runs on unsubscribe or close. */
  add(id: string, cancel: () => void): void {
    if (!this.open) {
      cancel();
      return;
    }
    this.subs.set(id, cancel);
  }

  /** True when this connection held the subscription. */
  remove(id: string): boolean {
    const cancel = this.subs.get(id);
    if (!cancel) return false;
    this.subs.delete(id);
    cancel();
    return true;
  }

  /** Sends `{"method": method, "params": {"subscription": id, "result": …}}`; `resultJson` is JSON text. */
  notify(method: string, id: string, resultJson: string): void {
    if (!this.open) return;
    const text = `{"jsonrpc":"2.0","method":"${method}","params":{"subscription":"${id}","result":${resultJson}}}`;
    if (this.transport.unsentBytes() + text.length > this.limits.maxUnsentBytes) {
      this.close('slow consumer: too many unsent notifications');
      return;
    }
    this.transport.write(text);
  }

  /** Cancels every subscription and closes the transport. */
  close(reason: string): void {
    if (!this.open) return;
    this.dispose();
    this.transport.close(reason);
  }

  /** The transport is gone: cancel every subscription. */
  dispose(): void {
    this.open = false;
    for (const cancel of this.subs.values()) cancel();
    this.subs.clear();
  }
}
