// Peers named with admin_addPeer (bounded, in memory). The p2p endpoint dials and redials them;
// this list is what the node was asked to track, connected or not.

import { limitExceeded } from '../errors.js';
import type { Enode } from './enode.js';

export const MAX_STATIC_PEERS = 256;

export class StaticPeers {
  private readonly peers = new Map<string, Enode>();

  constructor(private readonly limit = MAX_STATIC_PEERS) {}

  /** Adding a known node again updates its address. */
  add(node: Enode): void {
    const id = Buffer.from(node.id).toString('hex');
    if (!this.peers.has(id) && this.peers.size >= this.limit) throw limitExceeded(`static peers (${this.limit})`);
    this.peers.set(id, node);
  }

  remove(node: Enode): boolean {
    return this.peers.delete(Buffer.from(node.id).toString('hex'));
  }

  list(): Enode[] {
    return [...this.peers.values()];
  }
}
