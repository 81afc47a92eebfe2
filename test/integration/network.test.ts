// Three real nodes on loopback peer statically: A mines, B and C follow. Blocks mined on A reach
// B and C (same head hash); a transaction sent to C travels to A, is mined there and comes
// back in a block; admin_peers / net_peerCount / admin_nodeInfo describe the real connections;
// a restarted node comes back by itself.

import t from 'tap';
import { startNetNode, waitPeers, waitSameHead, head, type NetNode } from '../helpers/network.js';
import { waitFor } from '../helpers/node.js';
import { testDir } from '../helpers/testDir.js';

const MINER = ['--mining.mode', 'interval', '--mining.period', '1', '--minerthreads', '1'];
const FOLLOWER = ['--mining.mode', 'off', '--minerthreads', '1'];

t.test('three nodes: peering, block propagation, a transaction from a follower, restart', async (t) => {
  const nodes: NetNode[] = [];
  t.teardown(async () => {
    for (const n of nodes) await n.stop();
  });
  const dir = testDir(t, { a: {}, b: {}, c: {} });
  const a = await startNetNode(dir + '/a', MINER);
  nodes.push(a);
  const bDir = dir + '/b';
  const b = await startNetNode(bDir, FOLLOWER);
  nodes.push(b);
  const c = await startNetNode(dir + '/c', FOLLOWER);
  nodes.push(c);

  const info = await a.rpc('admin_nodeInfo');
  t.equal(info.enode.split('?')[0], a.enode, 'admin_nodeInfo shows the enode of the banner');
  t.equal(info.ports.listener, Number(/:(\d+)$/.exec(a.enode)![1]), 'the real listener port');
  t.ok(info.ports.listener > 0, 'a free port was taken');
  t.equal(info.protocols.mc.network, 100);

  // B and C add A; C also adds B; B adds C at the same moment (mutual add: one connection).
  t.equal(await b.rpc('admin_addPeer', [a.enode]), true);
  t.equal(await c.rpc('admin_addPeer', [a.enode]), true);
  await Promise.all([c.rpc('admin_addPeer', [b.enode]), b.rpc('admin_addPeer', [c.enode])]);
  await waitPeers(a, 2, 'A');
  await waitPeers(b, 2, 'B');
  await waitPeers(c, 2, 'C');
  // Give a duplicate connection time to show up, then check there is one per pair.
  await new Promise((r) => setTimeout(r, 500));
  const bPeers = await b.rpc('admin_peers');
  t.equal(bPeers.length, 2, 'B has exactly two peers (one connection to C despite the mutual add)');
  const toA = bPeers.find((p: any) => a.enode.includes(p.id));
  t.ok(toA, 'A is among B\'s peers');
  t.same(toA.caps, ['mc/63']);
  t.equal(toA.network.static, true);
  t.equal(toA.network.inbound, false);
  t.match(toA.protocols.mc, { version: 63, head: /^0x[0-9a-f]{64}$/ });

  const common = await waitSameHead([a, b, c], 3n);
  t.ok(common.number >= 3n, `B and C follow A to #${common.number}`);

  // A transaction sent to C is mined by A and reaches all three.
  const [from] = await c.rpc('mc_accounts');
  const txHash = await c.rpc('mc_sendTransaction', [{ from, to: '0x' + '11'.repeat(20), value: '0x1234' }]);
  const receipt = await waitFor(() => a.rpc('mc_getTransactionReceipt', [txHash]), 'the receipt on A', 30_000);
  t.equal(receipt.status, '0x1');
  const onC = await waitFor(() => c.rpc('mc_getTransactionReceipt', [txHash]), 'the receipt on C', 30_000);
  t.equal(onC.blockHash, receipt.blockHash, 'C holds the block A mined with it');

  // B goes away and comes back on the same datadir and port: C, which holds B as a static
  // peer, redials it by itself (backoff from 5 s).
  await b.stop();
  nodes.splice(nodes.indexOf(b), 1);
  await waitFor(async () => Number(BigInt(await c.rpc('net_peerCount'))) === 1, 'C sees B gone');
  const b2 = await startNetNode(bDir, [...FOLLOWER, '--port', /:(\d+)$/.exec(b.enode)![1]]);
  nodes.push(b2);
  t.equal(b2.enode, b.enode, 'same node key, same port: same enode');
  await waitPeers(b2, 1, 'restarted B redialed by C', 30_000);
  const top = await head(a);
  const after = await waitSameHead([a, b2], top.number);
  t.ok(after.number >= top.number, 'restarted B catches up with A');
});
