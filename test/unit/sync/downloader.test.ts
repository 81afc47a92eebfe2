// The downloader driven in-process by a fake peer: its requests are answered from another chain
// by the node's own serving code, through RLP encoding as on the wire. A good peer is synced to
// the same head; a peer that serves a tampered body is dropped and nothing of it is written
// (the blocks before it in the batch are).

import t, { type Test } from 'tap';
import { RLP } from '@ethereumjs/rlp';
import { openRig as open, type Rig } from '../../../tools/lib/chainRig.js';
import { Downloader } from '../../../src/sync/downloader.js';
import { chainImport } from '../../../src/sync/chainImport.js';
import { serveBodies, serveHeaders } from '../../../src/sync/serve.js';
import { decodeGetHeaders, decodeHashList } from '../../../src/p2p/messages.js';
import { Msg } from '../../../src/p2p/mcMessages.js';
import type { Item, SyncPeer } from '../../../src/sync/types.js';
import { testDir } from '../../helpers/testDir.js';

const quiet = { info: () => undefined, warn: () => undefined };
const wire = (items: Item[]): Item => RLP.decode(RLP.encode(items as never)) as Item;

function fakePeer(source: Rig, tamper?: (bodies: Item[]) => Item[]): SyncPeer & { dropped?: string; requests: number[] } {
  const peer = {
    id: 'f'.repeat(128),
    td: 0n,
    head: source.chain.head.hash,
    knownBlocks: new Set<string>(),
    knownTxs: new Set<string>(),
    closed: false,
    dropped: undefined as string | undefined,
    requests: [] as number[],
    send: () => undefined,
    on: () => peer,
    drop(reason: string) {
      peer.dropped = reason;
      peer.closed = true;
    },
    async request(code: number, payload: Item): Promise<Item> {
      peer.requests.push(code);
      const sent = wire(payload as Item[]);
      if (code === Msg.GetBlockHeaders) return wire(await serveHeaders(source.chain, decodeGetHeaders(sent)));
      if (code === Msg.GetBlockBodies) {
        const bodies = await serveBodies(source.chain, decodeHashList(sent, 'bodies'));
        return wire(tamper ? tamper(bodies) : bodies);
      }
      throw new Error(`unexpected request ${code}`);
    },
  };
  return peer;
}

async function mineWithTransfers(rig: Rig, blocks: number): Promise<void> {
  for (let i = 0; i < blocks; i++) {
    if (i % 3 === 0) await rig.pool.add(rig.tx(0, BigInt(i / 3)));
    await rig.mine();
  }
}

async function openRig(t: Test, dir: string): Promise<Rig> {
  const rig = await open(dir);
  t.teardown(() => rig.close());
  return rig;
}

t.test('a good peer: synced to its head through headers and bodies', async (t) => {
  const a = await openRig(t, testDir(t, { a: {}, b: {} }) + '/a');
  const b = await openRig(t, t.testdirName + '/b');
  await mineWithTransfers(a, 12);
  const peer = fakePeer(a);
  peer.td = (await a.chain.getTotalDifficulty(a.chain.head.hash))!;
  const downloader = new Downloader(b.chain, chainImport(b.importer), quiet);
  t.equal(downloader.progress(), undefined, 'not syncing before');
  await downloader.maybeSync(peer);
  t.equal(peer.dropped, undefined);
  t.same(b.chain.head.hash, a.chain.head.hash, 'the same head');
  t.equal(b.chain.head.header.number, 12n);
  t.ok(peer.requests.includes(Msg.GetBlockBodies), 'bodies were fetched');
  t.equal(downloader.progress(), undefined, 'not syncing after');
});

t.test('a peer serving a tampered body is dropped; nothing is written', async (t) => {
  const a = await openRig(t, testDir(t, { a: {}, b: {} }) + '/a');
  const b = await openRig(t, t.testdirName + '/b');
  await mineWithTransfers(a, 6);
  // Block 1 carries a transfer: serve it without its transaction.
  const peer = fakePeer(a, (bodies) => bodies.map((body, i) => (i === 0 ? [[], []] : body)));
  peer.td = (await a.chain.getTotalDifficulty(a.chain.head.hash))!;
  const before = b.chain.head.hash;
  await new Downloader(b.chain, chainImport(b.importer), quiet).maybeSync(peer);
  t.match(peer.dropped, /invalid block/, `dropped: ${peer.dropped}`);
  t.same(b.chain.head.hash, before, 'the head did not move');
  t.equal(await b.chain.getBlockByHash((await a.chain.getBlockByNumber(1n))!.hash), undefined, 'block 1 was not stored');
});

t.test('a bad block in the middle of a batch: the blocks before it are kept, the peer is dropped', async (t) => {
  const a = await openRig(t, testDir(t, { a: {}, b: {} }) + '/a');
  const b = await openRig(t, t.testdirName + '/b');
  await mineWithTransfers(a, 9);
  // Block 7 carries a transfer (blocks 1, 4, 7): serve it without its transaction.
  const peer = fakePeer(a, (bodies) => bodies.map((body, i) => (i === 6 ? [[], []] : body)));
  peer.td = (await a.chain.getTotalDifficulty(a.chain.head.hash))!;
  await new Downloader(b.chain, chainImport(b.importer), quiet).maybeSync(peer);
  t.match(peer.dropped, /invalid block/, `dropped: ${peer.dropped}`);
  t.equal(b.chain.head.header.number, 6n, 'the six good blocks were committed');
  t.same(b.chain.head.hash, (await a.chain.getBlockByNumber(6n))!.hash);
  t.notOk(await b.chain.hasBlock((await a.chain.getBlockByNumber(7n))!.hash), 'block 7 was not stored');
});

t.test('a lighter peer is left alone', async (t) => {
  const a = await openRig(t, testDir(t, { a: {}, b: {} }) + '/a');
  const b = await openRig(t, t.testdirName + '/b');
  await mineWithTransfers(b, 3);
  await mineWithTransfers(a, 2);
  const peer = fakePeer(a);
  peer.td = (await a.chain.getTotalDifficulty(a.chain.head.hash))!;
  await new Downloader(b.chain, chainImport(b.importer), quiet).maybeSync(peer);
  t.same(peer.requests, [], 'no request sent');
  t.equal(b.chain.head.header.number, 3n);
});
