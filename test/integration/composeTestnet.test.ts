// docker-compose.testnet.yml without Docker: its addresses and keys agree (the followers'
// bootnode is the miner's node key at the miner's address, each --nat extip is the service's
// own address), and its miner and a follower, run with the file's commands and environment
// (addresses moved to loopback, free ports, 1 s blocks), peer through --bootnodes and share a head.

import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import secp256k1 from 'secp256k1';
import { ROOT, startNode, type TestNode } from '../helpers/node.js';
import { waitPeers, waitSameHead } from '../helpers/network.js';
import { testDir } from '../helpers/testDir.js';

interface Service {
  environment?: Record<string, string>;
  entrypoint?: string[];
  command?: string[];
  networks: { testnet: { ipv4_address: string } };
}

const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.testnet.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const { miner, follower1, follower2 } = compose.services;
const flag = (args: string[], name: string) => args[args.indexOf(name) + 1];
const minerScript = miner.entrypoint![2];
const minerKey = /echo ([0-9a-f]{64}) > \/data\/nodekey/.exec(minerScript)![1];
const minerArgs = /exec node dist\/src\/cmd\/cli\.js (.*)$/.exec(minerScript)![1].split(/\s+/);
const minerId = Buffer.from(secp256k1.publicKeyCreate(Buffer.from(minerKey, 'hex'), false).slice(1)).toString('hex');

t.test('the compose file is consistent', async (t) => {
  t.equal(flag(minerArgs, '--nat'), `extip:${miner.networks.testnet.ipv4_address}`);
  for (const f of [follower1, follower2]) {
    const args = f.command!.slice(2);
    t.equal(flag(args, '--bootnodes'), `enode://${minerId}@${miner.networks.testnet.ipv4_address}:30333`, 'bootnode: the miner\'s key and address');
    t.equal(flag(args, '--nat'), `extip:${f.networks.testnet.ipv4_address}`);
    t.equal(flag(args, '--mining.mode'), 'off');
    t.equal(f.environment?.MCNODE_CONFIG, 'testnet');
  }
});

t.test('the miner and a follower, as the file runs them, form a network', async (t) => {
  const dir = testDir(t, { miner: { nodekey: minerKey }, follower: {} });
  const local = ['--port', '0', '--p2p.addr', '127.0.0.1', '--mining.period', '1', '--minerthreads', '1', '--rpcapi', 'mc,net,admin'];
  const fromData = (args: string[], datadir: string) => args.map((a) => (a === '/data' ? datadir : a));
  const nodes: TestNode[] = [];
  t.teardown(async () => {
    for (const n of nodes) await n.stop();
  });
  const a = await startNode(dir + '/miner', [...fromData(minerArgs, dir + '/miner'), ...local], miner.environment);
  nodes.push(a);
  const info = await a.rpc('admin_nodeInfo');
  t.equal(info.id, minerId, 'the node runs with the file\'s node key');
  t.equal(info.ip, miner.networks.testnet.ipv4_address, '--nat extip is what the enode advertises');
  const port = info.ports.listener;

  const args = fromData(follower1.command!.slice(2), dir + '/follower').map((a) =>
    a.startsWith('enode://') ? a.replace(/@[^:]+:\d+$/, `@127.0.0.1:${port}`) : a);
  const b = await startNode(dir + '/follower', [...args, ...local], follower1.environment);
  nodes.push(b);
  await waitPeers(b, 1, 'the follower dials its bootnode', 30_000);
  await waitSameHead([a, b], 2n, 60_000);
  t.pass('the follower holds the miner\'s head');
});
