// Connection limits: --maxpeers 1 keeps one peer and refuses the next; --maxpeers 0 turns
// networking off (no listener, port 0 in admin_nodeInfo, admin_addPeer still accepted);
// admin_removePeer disconnects a static peer and stops redialing it.

import t from 'tap';
import { startNode, waitFor } from '../helpers/node.js';
import { startNetNode, peerCount, waitPeers, type NetNode } from '../helpers/network.js';
import { testDir } from '../helpers/testDir.js';

t.test('--maxpeers 1: a second peer is refused; admin_removePeer disconnects for good', async (t) => {
  const dir = testDir(t, { a: {}, b: {}, c: {} });
  const nodes: NetNode[] = [];
  t.teardown(async () => {
    for (const n of nodes) await n.stop();
  });
  const a = await startNetNode(dir + '/a', ['--mining.mode', 'off', '--maxpeers', '1']);
  const b = await startNetNode(dir + '/b', ['--mining.mode', 'off']);
  const c = await startNetNode(dir + '/c', ['--mining.mode', 'off']);
  nodes.push(a, b, c);
  await b.rpc('admin_addPeer', [a.enode]);
  await waitPeers(a, 1, 'A takes B');
  await c.rpc('admin_addPeer', [a.enode]);
  // C keeps trying (static), A keeps refusing: give it a dial and a redial.
  await new Promise((r) => setTimeout(r, 6_500));
  t.equal(await peerCount(a), 1, 'A stays at one peer');
  t.equal(await peerCount(c), 0, 'C is refused');

  // B removes A: disconnected, and no redial brings it back.
  t.equal(await b.rpc('admin_removePeer', [a.enode]), true);
  await waitFor(async () => (await peerCount(b)) === 0, 'B drops A');
  // The free slot goes to C's next redial (backoff 10 s by now), never back to B.
  await waitFor(async () => (await peerCount(c)) === 1, 'C gets the free slot', 30_000);
  t.equal(await peerCount(b), 0, 'B did not redial A');
  const [peer] = await a.rpc('admin_peers');
  t.ok(c.enode.includes(peer.id), 'A\'s one peer is now C');
});

t.test('--maxpeers 0: no networking', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'off', '--maxpeers', '0', '--rpcapi', 'mc,net,admin']);
  t.teardown(() => node.stop());
  t.match(node.stdout(), /\nP2P\s+disabled\n/, 'the banner says so');
  const info = await node.rpc('admin_nodeInfo');
  t.equal(info.ports.listener, 0);
  t.match(info.enode, /@127\.0\.0\.1:0\?/);
  t.equal(await node.rpc('admin_addPeer', [`enode://${info.id}@127.0.0.1:30303`]), true, 'still accepted for tracking');
  t.equal(await node.rpc('net_peerCount'), '0x0');
  t.equal(await node.rpc('net_listening'), true);
});

t.test('a new peer receives the pending pool', async (t) => {
  const dir = testDir(t, { a: {}, b: {} });
  const nodes: NetNode[] = [];
  t.teardown(async () => {
    for (const n of nodes) await n.stop();
  });
  const a = await startNetNode(dir + '/a', ['--mining.mode', 'off']);
  nodes.push(a);
  const [from] = await a.rpc('mc_accounts');
  const hash = await a.rpc('mc_sendTransaction', [{ from, to: '0x' + '33'.repeat(20), value: '0x5' }]);
  const b = await startNetNode(dir + '/b', ['--mining.mode', 'off']);
  nodes.push(b);
  t.equal((await b.rpc('txpool_status')).pending, '0x0');
  await b.rpc('admin_addPeer', [a.enode]);
  await waitFor(async () => (await b.rpc('txpool_status')).pending === '0x1', 'B receives A\'s pending transaction');
  t.equal((await b.rpc('mc_getTransactionByHash', [hash])).hash, hash, 'the same transaction');
});
