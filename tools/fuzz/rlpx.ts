// Fuzzing the peer-to-peer side: a peer built from @ethereumjs/devp2p's own classes (RLPx and its
// eth protocol class under the name mc/63) connects to a node, completes Status, then sends
// mutated mc/63 messages: valid requests with odd values, valid shapes with broken fields,
// random RLP trees, unknown codes. A message the node refuses ends the connection; the fuzzer
// reconnects with a fresh key (the old one is banned). The verdict: the node alive and
// answering, its head unchanged (nothing written from a peer), nothing escaped into its log.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RLPx, ETH, type Peer } from '@ethereumjs/devp2p';
import { Random } from '../lib/random.js';
import { startNodeProcess, troubleIn } from '../lib/nodeProcess.js';
import { rpc } from '../lib/rpcClient.js';

type Item = Uint8Array | Item[];
const MC = { name: 'mc', version: 63, length: 52, constructor: ETH };
const CODES = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0d, 0x0e, 0x0f, 0x10];

const hexBytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
const int = (n: number | bigint) => {
  const h = BigInt(n).toString(16);
  return n === 0 || n === 0n ? new Uint8Array() : hexBytes(h.length % 2 ? '0' + h : h);
};

function randomItem(r: Random, depth = 0): Item {
  if (depth > 3 || r.chance(0.6)) {
    const pick = r.int(5);
    if (pick === 0) return new Uint8Array();
    if (pick === 1) return Uint8Array.of(0, r.int(256)); // a non-canonical integer
    if (pick === 2) return new Uint8Array(32).map(() => r.int(256));
    return new Uint8Array(r.size(40)).map(() => r.int(256));
  }
  return Array.from({ length: r.size(6) }, () => randomItem(r, depth + 1));
}

/** One fuzz message: a code and its payload; `genesis` and `head` make some of them meaningful. */
export function rlpxMessage(seed: number, index: number, known: { genesis: Uint8Array; head: Uint8Array }): { code: number; payload: Item } {
  const r = new Random(seed, index);
  const code = CODES[r.int(CODES.length)];
  const hash = r.chance(0.5) ? known.head : r.chance(0.5) ? known.genesis : new Uint8Array(32).map(() => r.int(256));
  switch (r.int(4)) {
    case 0: // a well-formed request with odd values
      if (code === 0x03) return { code, payload: [r.chance(0.5) ? hash : int(r.int(1000)), int(r.int(400)), int(r.chance(0.2) ? 2 ** 31 : r.int(5)), int(r.int(2))] };
      return { code: [0x05, 0x0f, 0x0d][r.int(3)], payload: Array.from({ length: r.size(200) }, () => hash) };
    case 1: // a header-like list with one field broken
      return { code: r.chance(0.5) ? 0x07 : 0x04, payload: [[Array.from({ length: 15 }, (_, i) => (i === r.int(15) ? randomItem(r) : new Uint8Array(32))), [], []], int(r.int(10_000))] };
    default:
      return { code, payload: randomItem(r) };
  }
}

interface Connection {
  rlpx: RLPx;
  peer: Peer;
  eth: ETH;
  closed: boolean;
}

async function connectPeer(enode: string, networkId: bigint, genesis: Uint8Array, head: Uint8Array): Promise<Connection | undefined> {
  const m = /^enode:\/\/([0-9a-f]{128})@([^:]+):(\d+)$/.exec(enode)!;
  const rlpx = new RLPx(randomBytes(32), { capabilities: [MC], common: { chainId: () => networkId, customCrypto: {} } as never, maxPeers: 2 });
  rlpx.events.on('error', () => undefined);
  rlpx.events.on('peer:error', () => undefined);
  try {
    const peer = await new Promise<Peer>((resolve, reject) => {
      rlpx.events.once('peer:added', resolve);
      setTimeout(() => reject(new Error('no handshake')), 10_000).unref();
      rlpx.connect({ id: hexBytes(m[1]), address: m[2], tcpPort: Number(m[3]) }).catch(reject);
    });
    const eth = peer.getProtocols()[0] as ETH;
    const conn: Connection = { rlpx, peer, eth, closed: false };
    rlpx.events.on('peer:removed', () => (conn.closed = true));
    const status = new Promise<void>((resolve, reject) => {
      eth.events.once('status', () => resolve());
      setTimeout(() => reject(new Error('no Status')), 10_000).unref();
    });
    eth.sendStatus({ td: int(1), bestHash: head, genesisHash: genesis });
    await status;
    return conn;
  } catch {
    rlpx.destroy();
    return undefined;
  }
}

export interface RlpxFuzzResult {
  seed: number;
  sent: number;
  connections: number;
  alive: boolean;
  headUnchanged: boolean;
  trouble: string[];
}

export async function fuzzRlpx(o: { seed: number; count: number; log?: (l: string) => void }): Promise<RlpxFuzzResult> {
  const log = o.log ?? (() => undefined);
  const datadir = mkdtempSync(path.join(os.tmpdir(), 'mcnode-fuzz-rlpx-'));
  const node = await startNodeProcess(datadir, { args: ['--mining.mode', 'off', '--port', '0'] });
  let sent = 0;
  let connections = 0;
  try {
    const enode = /P2P\s+(enode:\/\/\S+)/.exec(node.stdout())![1];
    const g = await rpc(node.http!, 'mc_getBlockByNumber', ['0x0', false]);
    const before = await rpc(node.http!, 'mc_getBlockByNumber', ['latest', false]);
    const known = { genesis: hexBytes(g.hash), head: hexBytes(before.hash) };
    log(`fuzzing ${o.count} mc/63 messages with FUZZ_SEED=${o.seed} (node pid ${node.pid})`);
    let conn: Connection | undefined;
    for (let i = 0; i < o.count && node.alive(); i++) {
      if (!conn || conn.closed) {
        conn?.rlpx.destroy();
        conn = await connectPeer(enode, 100n, known.genesis, known.head);
        connections++;
        if (!conn) continue;
      }
      const { code, payload } = rlpxMessage(o.seed, i, known);
      try {
        conn.eth.sendMessage(code as never, payload as never);
        sent++;
      } catch {
        /* the library refused to send it: not the node's concern */
      }
      // Let the node react before the next one, so a refusal is seen as a closed connection.
      await new Promise((r) => setTimeout(r, 2));
    }
    conn?.rlpx.destroy();
    let alive = node.alive();
    let headUnchanged = false;
    if (alive) {
      try {
        const after = await rpc(node.http!, 'mc_getBlockByNumber', ['latest', false], 10_000);
        headUnchanged = after.hash === before.hash;
      } catch {
        alive = false;
      }
    }
    return { seed: o.seed, sent, connections, alive, headUnchanged, trouble: troubleIn(node.stderr()) };
  } finally {
    await node.stop();
    rmSync(datadir, { recursive: true, force: true });
  }
}
