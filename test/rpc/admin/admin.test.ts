// admin_* and vnode_* against a real node: node identity from the persistent node key, static
// peers, the one HTTP endpoint (admin_startRPC / admin_stopRPC), served-namespace rules, chain3.

import t from 'tap';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Chain3 from 'chain3';
import secp256k1 from 'secp256k1';
import { postJson, startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV } from '../../helpers/accounts.js';
import { testDir } from '../../helpers/testDir.js';

const VNODE_ADDRESS = '0xd814f2ac2c4ca49b33066582e4e97ebae02f2ab9';
const VNODE_CHECKSUMMED = '0xD814F2ac2c4cA49b33066582E4e97EBae02F2aB9';
const nodeIdOfKeyHex = (hex: string) => Buffer.from(secp256k1.publicKeyCreate(Buffer.from(hex, 'hex'), false).slice(1)).toString('hex');
const PEER_ID = nodeIdOfKeyHex('22'.repeat(32));

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

t.test('nodeInfo, datadir, peers and vnode values', async (t) => {
  const datadir = testDir(t);
  const p2pPort = await freePort();
  const flags = [
    '--mining.mode', 'off', '--port', String(p2pPort), '--rpcapi', 'mc,net,admin,vnode,chain3',
    '--vnode.address', VNODE_ADDRESS, '--vnode.ip', '10.0.0.7', '--vnode.serviceCfg', 'localhost:50068',
    '--vnode.showToPublic', 'false', '--scs.enabled', 'false', // vnode_scsService: whether the SCS endpoint runs
  ];
  let node: TestNode = await startNode(datadir, flags);
  t.teardown(() => node.stop());

  const keyHex = fs.readFileSync(path.join(datadir, 'nodekey'), 'utf8');
  t.match(keyHex, /^[0-9a-f]{64}$/, 'node key written on first start');
  t.equal(fs.statSync(path.join(datadir, 'nodekey')).mode & 0o777, 0o600);
  const id = nodeIdOfKeyHex(keyHex);
  const info = await node.rpc('admin_nodeInfo');
  const genesis = await node.rpc('mc_getBlockByNumber', ['earliest', false]);
  t.same(info, {
    id,
    name: await node.rpc('chain3_clientVersion'),
    enode: `enode://${id}@127.0.0.1:${p2pPort}?servicecfgport=localhost:50068&showtopublic=false&beneficialaddress=${VNODE_CHECKSUMMED}&ip=10.0.0.7`,
    ip: '127.0.0.1',
    ports: { discovery: 0, listener: p2pPort },
    listenAddr: `127.0.0.1:${p2pPort}`,
    protocols: { mc: { network: 100, difficulty: 512, genesis: genesis.hash, head: genesis.hash, consensus: 'keccak-pow' } },
  });
  t.same((await node.ipcCall('admin_nodeInfo')).result, info, 'same over IPC');
  t.equal(await node.rpc('admin_datadir'), path.resolve(datadir));

  t.equal(await node.rpc('vnode_address'), VNODE_ADDRESS);
  t.equal(await node.rpc('vnode_scsService'), false);
  t.equal(await node.rpc('vnode_serviceCfg'), 'localhost:50068');
  t.equal(await node.rpc('vnode_showToPublic'), false);
  t.equal(await node.rpc('vnode_vnodeIP'), '10.0.0.7');
  for (const m of ['vnode_address', 'vnode_scsService', 'vnode_serviceCfg', 'vnode_showToPublic', 'vnode_vnodeIP', 'admin_datadir', 'admin_peers']) {
    t.same((await node.ipcCall(m)).result, await node.rpc(m), `${m} over IPC`);
  }

  const chain3 = new Chain3(new Chain3.providers.HttpProvider(node.url));
  t.same(chain3.admin.nodeInfo, info);
  t.equal(chain3.admin.datadir, path.resolve(datadir));
  t.same(chain3.admin.peers, []);
  t.equal(chain3.admin.addPeer(`enode://${PEER_ID}@10.1.2.3:30333`), true);
  t.same([chain3.vnode.address, chain3.vnode.scsService, chain3.vnode.serviceCfg, chain3.vnode.showToPublic, chain3.vnode.ip],
    [VNODE_ADDRESS, false, 'localhost:50068', false, '10.0.0.7']);

  // Peers: accepted for tracking; these addresses do not answer, so none is connected.
  t.equal(await node.rpc('admin_addPeer', [`enode://${PEER_ID}@[::1]:30303?discport=30301`]), true);
  t.equal(await node.rpc('admin_addPeer', [`enode://${PEER_ID}@peer.example.org:30303`]), true, 'DNS names');
  t.same(await node.rpc('admin_peers'), [], 'admin_peers lists connected peers only');
  t.equal(await node.rpc('net_peerCount'), '0x0');
  t.equal(await node.rpc('admin_removePeer', [`enode://${PEER_ID}@10.1.2.3:30333`]), true);
  t.equal((await node.ipcCall('admin_removePeer', [`enode://${PEER_ID}@10.1.2.3:30333`])).result, true);
  t.same((await node.ipcCall('admin_removePeer', ['enode://x'])).error, { code: -32000, message: 'invalid enode: does not contain node ID' });
  const bad: [string, string][] = [
    [`enode://${PEER_ID}@10.1.2.3`, 'missing port'],
    [`http://${PEER_ID}@10.1.2.3:30303`, 'invalid URL scheme, want "enode"'],
    ['enode://10.1.2.3:30303', 'does not contain node ID'],
    [`enode://${PEER_ID.slice(2)}@10.1.2.3:30303`, 'invalid public key (want 128 hex digits)'],
    [`enode://${'00'.repeat(64)}@10.1.2.3:30303`, 'invalid public key (invalid secp256k1 curve point)'],
    [`enode://${PEER_ID}@10.1.2.3:0`, 'invalid port'],
    [`enode://${PEER_ID}@10.1.2.3:65536`, 'invalid port'],
    [`enode://${PEER_ID}@bad_host!:30303`, 'invalid host "bad_host!"'],
    [`enode://${PEER_ID}@[10.1.2.3]:30303`, 'invalid host "10.1.2.3"'],
  ];
  for (const [url, reason] of bad) {
    t.same((await node.call('admin_addPeer', [url])).error, { code: -32000, message: `invalid enode: ${reason}` }, reason);
  }
  t.same((await node.ipcCall('admin_addPeer', [bad[0][0]])).error, { code: -32000, message: 'invalid enode: missing port' });
  t.equal((await node.call('admin_addPeer', [42])).error?.code, -32602);

  // The node key persists: same identity after a restart.
  t.equal(await node.stop(), 0);
  node = await startNode(datadir, flags);
  t.equal((await node.rpc('admin_nodeInfo')).id, id);
});

t.test('vnode defaults: the first dev account', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'off']);
  t.teardown(() => node.stop());
  t.equal(await node.rpc('vnode_address'), DEV[0].address);
  t.equal(await node.rpc('vnode_serviceCfg'), ':50062');
  t.equal(await node.rpc('vnode_showToPublic'), true);
  t.equal(await node.rpc('vnode_scsService'), true);
  t.equal(await node.rpc('vnode_vnodeIP'), '127.0.0.1');
  // admin is private: not over HTTP unless listed, always over IPC.
  t.same((await node.call('admin_nodeInfo')).error, { code: -32601, message: 'the method admin_nodeInfo does not exist/is not available' });
  t.same((await node.call('admin_addPeer', ['x'])).error?.code, -32601);
  t.same((await node.call('personal_newAccount', ['x'])).error, {
    code: -32601, message: 'the method personal_newAccount does not exist/is not available',
  }, 'personal is not served over HTTP unless listed in --rpcapi');
  t.equal((await node.call('personal_listAccounts')).error?.code, -32601);
  t.equal((await node.call('txpool_status')).error, undefined, 'txpool is in the default --rpcapi');
  t.equal(typeof (await node.ipcCall('admin_nodeInfo')).result.id, 'string');
  t.notOk(Object.hasOwn(await node.rpc('rpc_modules'), 'admin'));
  t.ok(Object.hasOwn((await node.ipcCall('rpc_modules')).result, 'admin'));
});

t.test('one HTTP endpoint: startRPC / stopRPC', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'off', '--rpcapi', 'mc,net,admin,rpc']);
  t.teardown(() => node.stop());
  const running = (port: number | string) => ({ code: -32000, message: `HTTP RPC already running on 127.0.0.1:${port}` });
  const first = new URL(node.url).port;
  t.same((await node.ipcCall('admin_startRPC', ['127.0.0.1', 8545])).error, running(first));
  t.same((await node.call('admin_startRPC', [])).error, running(first), 'over HTTP too');
  const chain3 = new Chain3(new Chain3.providers.HttpProvider(node.url));
  t.throws(() => chain3.admin.startRPC('127.0.0.1', 8545, '', 'mc'), /HTTP RPC already running on/);

  // Not over HTTP itself (that would lock every HTTP client out); over IPC it closes the endpoint.
  t.same((await node.call('admin_stopRPC')).error, { code: -32000, message: 'admin_stopRPC closes the HTTP endpoint: call it over IPC' });
  t.equal(await node.rpc('mc_blockNumber') !== undefined, true, 'HTTP still answers');
  t.equal((await node.ipcCall('admin_stopRPC')).result, true);
  await waitFor(() => postJson(node.url, { jsonrpc: '2.0', id: 1, method: 'mc_blockNumber', params: [] }).then(() => false, () => true), 'endpoint closed');
  t.same((await node.ipcCall('admin_stopRPC')).error, { code: -32000, message: 'HTTP RPC not running' });

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  t.equal((await node.ipcCall('admin_startRPC', ['127.0.0.1', port, 'http://app.example', 'mc,chain3,rpc'])).result, true);
  const call = (method: string) => postJson(url, { jsonrpc: '2.0', id: 7, method, params: [] });
  t.equal((await call('mc_blockNumber')).result, '0x0');
  t.match((await call('chain3_clientVersion')).result, /^Mcnode\//, 'chain3 is libx');
  t.same((await call('net_version')).error, { code: -32601, message: 'the method net_version does not exist/is not available' }, 'only the listed apis');
  t.equal((await call('admin_nodeInfo')).error?.code, -32601);
  t.same((await call('rpc_modules')).result, { mc: '1.0', libx: '1.0', rpc: '1.0' });
  const cors = await fetch(url, {
    method: 'POST', headers: { 'content-type': 'application/json', origin: 'http://app.example' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'mc_blockNumber', params: [] }),
  });
  t.equal(cors.headers.get('access-control-allow-origin'), 'http://app.example', 'the cors argument applies');
  t.same((await node.ipcCall('admin_startRPC', ['127.0.0.1', port + 1])).error, running(port));

  t.equal((await node.ipcCall('admin_startRPC', ['127.0.0.1', 70000])).error?.code, -32602);
  t.same((await node.ipcCall('admin_startRPC', [null, null, null, 'mc,bogus'])).error, {
    code: -32602, message: 'invalid argument 3: unknown namespace "bogus"',
  });

  // Stop and start again on the same port at once.
  t.equal((await node.ipcCall('admin_stopRPC')).result, true);
  t.equal((await node.ipcCall('admin_startRPC', ['127.0.0.1', port, null, 'admin,mc'])).result, true);
  const again = new Chain3(new Chain3.providers.HttpProvider(url));
  t.equal(again.mc.blockNumber, 0);
  t.throws(() => again.admin.stopRPC(), /call it over IPC/, 'chain3 over HTTP cannot close its own endpoint');
  t.equal((await node.ipcCall('admin_stopRPC')).result, true);

  // A port in use is reported, and nothing is left running.
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => blocker.close(resolve)));
  const busy = (blocker.address() as net.AddressInfo).port;
  t.match((await node.ipcCall('admin_startRPC', ['127.0.0.1', busy])).error, { code: -32000, message: /^cannot start HTTP RPC on 127\.0\.0\.1:\d+: .*EADDRINUSE/ });
  t.same((await node.ipcCall('admin_stopRPC')).error, { code: -32000, message: 'HTTP RPC not running' });
});
