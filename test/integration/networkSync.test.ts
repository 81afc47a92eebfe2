// Full sync of a 2,000-block chain (built from the committed script test/fixtures/chains/long.json)
// by a fresh node: mc_syncing reports {startingBlock, currentBlock, highestBlock} while it is
// behind and false once it holds the same head; static-nodes.json names the peer.

import t from 'tap';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mcnode } from '../fixtures/chains/prebuilt.js';
import { ROOT } from '../helpers/node.js';
import { startNetNode, head, waitPeers, type NetNode } from '../helpers/network.js';
import { waitFor } from '../helpers/node.js';
import { connect } from '../rpc/transport/wsFixture.js';
import { testDir } from '../helpers/testDir.js';

const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/chains/long.json');
const EXPECT = { number: 2000n, hash: '0x8963d2becfc30c4f0b495cf94c7f352e807c482e95b201da216658b5d28d9d5b' };

t.test('a fresh node syncs 2,000 blocks from a peer and reports progress', async (t) => {
  const dir = testDir(t, { a: {}, b: {} });
  const build = mcnode('fixture', SCRIPT, '--datadir', dir + '/a', '--ipcdisable', '--verbosity', '1', '--minerthreads', '1');
  t.equal(build.status, 0, `fixture built ${build.stderr}`);
  const init = mcnode('init', dir + '/a/genesis.json', '--datadir', dir + '/b', '--ipcdisable', '--verbosity', '1');
  t.equal(init.status, 0, `fresh node initialised with the same genesis ${init.stderr}`);

  const nodes: NetNode[] = [];
  t.teardown(async () => {
    for (const n of nodes) await n.stop();
  });
  const a = await startNetNode(dir + '/a', ['--mining.mode', 'off']);
  nodes.push(a);
  t.same(await head(a), EXPECT, 'the serving node holds the fixture chain');
  t.equal(await a.rpc('mc_syncing'), false, 'a node ahead of everyone is not syncing');

  writeFileSync(dir + '/b/static-nodes.json', JSON.stringify([a.enode]));
  const b = await startNetNode(dir + '/b', ['--mining.mode', 'off']);
  nodes.push(b);
  await waitPeers(b, 1, 'B reads static-nodes.json and dials A');

  const seen: { startingBlock: string; currentBlock: string; highestBlock: string }[] = [];
  await waitFor(async () => {
    const s = await b.rpc('mc_syncing');
    if (s) seen.push(s);
    return (await head(b)).number === EXPECT.number;
  }, 'B reaches #2000', 60_000);
  t.ok(seen.length > 0, `mc_syncing reported progress ${seen.length} time(s)`);
  const mid = seen[Math.floor(seen.length / 2)];
  t.equal(mid.startingBlock, '0x0', 'startingBlock: the head when the sync began');
  t.equal(mid.highestBlock, '0x7d0', 'highestBlock: the peer\'s head');
  t.ok(BigInt(mid.currentBlock) <= 2000n);
  t.ok(seen.some((s) => BigInt(s.currentBlock) > 0n && BigInt(s.currentBlock) < 2000n), 'currentBlock seen between the ends');

  t.same(await head(b), EXPECT, 'B holds the same head');
  await waitFor(async () => (await b.rpc('mc_syncing')) === false, 'mc_syncing false once in step');
  const tx = await b.rpc('mc_getBlockByNumber', ['0x65', true]);
  t.equal(tx.transactions.length, 1, 'block 101 carries its transfer after sync');

  // A third node, subscribed to `syncing` over WebSocket before it meets A, is told of the sync.
  const init2 = mcnode('init', dir + '/a/genesis.json', '--datadir', dir + '/c', '--ipcdisable', '--verbosity', '1');
  t.equal(init2.status, 0, `third node initialised ${init2.stderr}`);
  const c = await startNetNode(dir + '/c', ['--mining.mode', 'off']);
  nodes.push(c);
  const ws = await connect(c.url.replace(/^http/, 'ws'));
  t.teardown(() => ws.socket.close());
  const sub = await ws.call('eth_subscribe', ['syncing']);
  t.match(sub.result, /^0x[0-9a-f]+$/, 'syncing subscription id');
  await c.rpc('admin_addPeer', [a.enode]);
  await waitFor(async () => (await head(c)).number === EXPECT.number, 'C reaches #2000', 60_000);
  const notes: any[] = [];
  await waitFor(async () => {
    notes.push(await ws.nextNote());
    return notes[notes.length - 1].params.result === false ? true : undefined;
  }, 'the sync-ended notification', 20_000);
  t.ok(notes.every((n) => n.method === 'eth_subscription' && n.params.subscription === sub.result), 'named after the eth_ namespace, for this subscription');
  // geth's shape: {syncing: true, status: {startingBlock, currentBlock, highestBlock}}, then false.
  const progress = notes.filter((n) => n.params.result !== false).map((n) => {
    t.equal(n.params.result.syncing, true);
    return n.params.result.status;
  });
  t.ok(progress.length >= 1, `progress notifications: ${progress.length}`);
  t.equal(JSON.stringify(Object.keys(progress[0]).sort()), JSON.stringify(['currentBlock', 'highestBlock', 'startingBlock']), 'progress fields');
  t.equal(progress[0].startingBlock, '0x0');
  t.equal(progress[progress.length - 1].highestBlock, '0x7d0', 'highestBlock: A\'s head');
});

t.test('a chain with an app-chain payout (a settlement system transaction) syncs to a node without that app chain', async (t) => {
  const dir = testDir(t, { a: {}, b: {} });
  const run = mcnode('import', path.join(ROOT, 'test/fixtures/chains/payouts.rlp'), '--datadir', dir + '/a', '--ipcdisable', '--verbosity', '1');
  t.equal(run.status, 0, `payout chain imported ${run.stderr}`);
  const nodes: NetNode[] = [];
  t.teardown(async () => {
    for (const n of nodes) await n.stop();
  });
  const a = await startNetNode(dir + '/a', ['--mining.mode', 'off']);
  nodes.push(a);
  const b = await startNetNode(dir + '/b', ['--mining.mode', 'off']);
  nodes.push(b);
  t.same(await b.rpc('admin_peers'), [], 'B starts alone');
  await b.rpc('admin_addPeer', [a.enode]);
  const top = await a.rpc('mc_getBlockByNumber', ['latest', true]);
  await waitFor(async () => (await head(b)).hash === top.hash, 'B reaches A\'s head', 60_000);
  const copy = await b.rpc('mc_getBlockByNumber', ['latest', false]);
  t.equal(copy.stateRoot, top.stateRoot, 'the same state root');
  const settlements: string[] = [];
  for (let n = 1; n <= Number(top.number); n++) {
    const block = await b.rpc('mc_getBlockByNumber', ['0x' + n.toString(16), true]);
    for (const tx of block.transactions) if (tx.syscnt === '0x1') settlements.push(tx.hash);
  }
  t.equal(settlements.length, 1, 'the settlement system transaction came over the network');
  t.equal((await b.rpc('mc_getTransactionReceipt', [settlements[0]])).status, '0x1');
});
