// An independent peer built here from @ethereumjs/devp2p's own classes (RLPx, its eth protocol
// class under the name mc/63), not from src/p2p/: it exchanges Status with a real node, asks
// for headers and checks their hashes against the node's RPC. Then the node's refusals: another
// network id, another genesis, garbage on the port, a malformed message, an unrequested reply.

import t, { type Test } from 'tap';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { RLP } from '@ethereumjs/rlp';
import { RLPx, ETH, type Peer } from '@ethereumjs/devp2p';
import { keccak256 } from 'ethereum-cryptography/keccak.js';
import { startNetNode, peerCount, type NetNode } from '../helpers/network.js';
import { waitFor } from '../helpers/node.js';
import { testDir } from '../helpers/testDir.js';

const MC = { name: 'mc', version: 63, length: 52, constructor: ETH };
const hexToBytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
const toHex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');
const intBytes = (n: bigint) => (n === 0n ? new Uint8Array() : hexToBytes(n.toString(16).padStart(n.toString(16).length + (n.toString(16).length % 2), '0')));

interface TestPeer {
  rlpx: RLPx;
  peer: Peer;
  eth: ETH;
  closed: Promise<void>;
}

/** Connects an independent RLPx peer to `node` announcing `networkId`. */
async function connect(t: Test, node: NetNode, networkId: bigint, key: Uint8Array = randomBytes(32)): Promise<TestPeer> {
  const m = /^enode:\/\/([0-9a-f]{128})@([^:]+):(\d+)$/.exec(node.enode)!;
  const rlpx = new RLPx(key, {
    capabilities: [MC],
    common: { chainId: () => networkId, customCrypto: {} } as never,
    maxPeers: 5,
    clientId: new TextEncoder().encode('independent-test-peer'),
  });
  t.teardown(() => rlpx.destroy());
  rlpx.events.on('error', () => undefined);
  rlpx.events.on('peer:error', () => undefined);
  const added = new Promise<Peer>((resolve, reject) => {
    rlpx.events.once('peer:added', resolve);
    setTimeout(() => reject(new Error('no RLPx handshake within 15 s')), 15_000).unref();
  });
  await rlpx.connect({ id: hexToBytes(m[1]), address: m[2], tcpPort: Number(m[3]) });
  const peer = await added;
  const eth = peer.getProtocols()[0] as ETH;
  const closed = new Promise<void>((resolve) => rlpx.events.on('peer:removed', (p) => p === peer && resolve()));
  return { rlpx, peer, eth, closed };
}

async function sendStatus(p: TestPeer, genesis: string): Promise<{ td: Uint8Array; bestHash: Uint8Array } | undefined> {
  const status = new Promise<any>((resolve) => p.eth.events.once('status', resolve));
  try {
    p.eth.sendStatus({ td: intBytes(512n), bestHash: hexToBytes(genesis), genesisHash: hexToBytes(genesis) });
  } catch {
    // the node's Status came first and the library here found the mismatch
  }
  return Promise.race([status, p.closed.then(() => undefined)]);
}

const withinSeconds = <T>(p: Promise<T>, s: number, what: string): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), s * 1000).unref())]);

t.test('an independent devp2p peer: Status, GetBlockHeaders, refusals', async (t) => {
  const node = await startNetNode(testDir(t), ['--mining.mode', 'instant', '--minerthreads', '1']);
  t.teardown(() => node.stop());
  const [from] = await node.rpc('mc_accounts');
  for (let i = 0; i < 3; i++) {
    const hash = await node.rpc('mc_sendTransaction', [{ from, to: '0x' + '22'.repeat(20), value: '0x1' }]);
    await waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), 'a mined transfer');
  }
  const genesis = (await node.rpc('mc_getBlockByNumber', ['0x0', false])).hash;
  const headNumber = BigInt(await node.rpc('mc_blockNumber'));

  t.test('Status and headers', async (t) => {
    const p = await connect(t, node, 100n);
    const status = await withinSeconds(sendStatus(p, genesis), 10, 'Status');
    t.ok(status, 'Status exchanged');
    const head = await node.rpc('mc_getBlockByNumber', ['latest', false]);
    t.equal(toHex(status!.bestHash), head.hash, 'the node announces its head');
    await waitFor(async () => (await peerCount(node)) === 1, 'the node counts the peer');
    const [info] = await node.rpc('admin_peers');
    t.equal(info.name, 'independent-test-peer');
    t.equal(info.network.inbound, true);

    const reply = new Promise<Uint8Array[][]>((resolve) =>
      p.eth.events.on('message', (code: number, payload: any) => code === 0x04 && resolve(payload)));
    p.eth.sendMessage(0x03 as never, [intBytes(0n), intBytes(3n), intBytes(0n), intBytes(0n)] as never);
    const headers = await withinSeconds(reply, 10, 'BlockHeaders');
    const want = Math.min(3, Number(headNumber) + 1);
    t.equal(headers.length, want, `${want} headers from #0`);
    for (let i = 0; i < headers.length; i++) {
      const block = await node.rpc('mc_getBlockByNumber', ['0x' + i.toString(16), false]);
      t.equal(toHex(keccak256(RLP.encode(headers[i]))), block.hash, `header #${i} hashes to the node's block hash`);
    }
    // By hash, reverse: the head and its parent.
    const byHash = new Promise<Uint8Array[][]>((resolve) =>
      p.eth.events.on('message', (code: number, payload: any) => code === 0x04 && resolve(payload)));
    p.eth.sendMessage(0x03 as never, [hexToBytes(head.hash), intBytes(2n), intBytes(0n), intBytes(1n)] as never);
    const back = await withinSeconds(byHash, 10, 'BlockHeaders by hash');
    t.equal(toHex(keccak256(RLP.encode(back[0]))), head.hash, 'origin by hash');
    if (back.length > 1) t.equal(toHex(keccak256(RLP.encode(back[1]))), head.parentHash, 'reverse walks to the parent');

    // Bodies and receipts of block 1 (one transfer).
    const block1 = await node.rpc('mc_getBlockByNumber', ['0x1', false]);
    const bodies = new Promise<any>((resolve) => p.eth.events.on('message', (code: number, payload: any) => code === 0x06 && resolve(payload)));
    p.eth.sendMessage(0x05 as never, [hexToBytes(block1.hash), randomBytes(32)] as never);
    const [body] = await withinSeconds(bodies, 10, 'BlockBodies');
    t.equal(toHex(keccak256(RLP.encode(body[0][0]))), block1.transactions[0], 'the body holds the block\'s transaction (an unknown hash is left out)');
    const receipts = new Promise<any>((resolve) => p.eth.events.on('message', (code: number, payload: any) => code === 0x10 && resolve(payload)));
    p.eth.sendMessage(0x0f as never, [hexToBytes(block1.hash)] as never);
    const [list] = await withinSeconds(receipts, 10, 'Receipts');
    t.equal(list.length, 1, 'one receipt');
    const rpcReceipt = await node.rpc('mc_getTransactionReceipt', [block1.transactions[0]]);
    t.equal(BigInt(toHex(list[0][1])), BigInt(rpcReceipt.cumulativeGasUsed), 'its cumulative gas, as the RPC shows it');

    // An unrequested reply ends the connection.
    p.eth.sendMessage(0x04 as never, [] as never);
    await withinSeconds(p.closed, 10, 'disconnect after an unrequested reply');
    t.pass('unrequested BlockHeaders: disconnected');
    await waitFor(async () => (await peerCount(node)) === 0, 'the node forgets the peer');
  });

  t.test('another network id is refused', async (t) => {
    const p = await connect(t, node, 999n);
    const status = await withinSeconds(sendStatus(p, genesis), 10, 'refusal');
    // The library on either side throws on the mismatch; the node disconnects.
    await withinSeconds(p.closed, 10, 'disconnect');
    t.pass(`disconnected (status ${status ? 'seen' : 'not completed'})`);
    t.equal(await peerCount(node), 0);
  });

  t.test('another genesis is refused', async (t) => {
    const p = await connect(t, node, 100n);
    await sendStatus(p, '0x' + '11'.repeat(32));
    await withinSeconds(p.closed, 10, 'disconnect');
    t.pass('disconnected');
    t.equal(await peerCount(node), 0);
  });

  t.test('a malformed message is refused and the node keeps serving', async (t) => {
    const p = await connect(t, node, 100n);
    t.ok(await withinSeconds(sendStatus(p, genesis), 10, 'Status'));
    // NewBlock whose block is not [header, txs, uncles]
    p.eth.sendMessage(0x07 as never, [[intBytes(1n)], intBytes(5n)] as never);
    await withinSeconds(p.closed, 10, 'disconnect after a malformed NewBlock');
    t.pass('disconnected');
    t.ok(BigInt(await node.rpc('mc_blockNumber')) >= 0n, 'the node still answers');
  });

  t.test('an oversized message (> 10 MiB) ends the connection', async (t) => {
    const p = await connect(t, node, 100n);
    t.ok(await withinSeconds(sendStatus(p, genesis), 10, 'Status'));
    p.eth.sendMessage(0x02 as never, [randomBytes(11 * 1024 * 1024)] as never);
    await withinSeconds(p.closed, 15, 'disconnect after 11 MiB');
    t.pass('disconnected');
    t.equal(typeof (await node.rpc('mc_blockNumber')), 'string', 'the node still answers');
  });

  t.test('a request left unanswered for 10 s drops the peer, which is then kept away', async (t) => {
    const key = randomBytes(32);
    const p = await connect(t, node, 100n, key);
    const asked = new Promise<number>((resolve) => p.eth.events.on('message', (code: number) => code === 0x03 && resolve(code)));
    // A heavier chain than the node's: it asks for headers, which never come.
    const status = new Promise<any>((resolve) => p.eth.events.once('status', resolve));
    p.eth.sendStatus({ td: intBytes(10n ** 9n), bestHash: randomBytes(32), genesisHash: hexToBytes(genesis) });
    await withinSeconds(status, 10, 'Status');
    await withinSeconds(asked, 10, 'the node asks for headers');
    const t0 = Date.now();
    await withinSeconds(p.closed, 20, 'disconnect after the timeout');
    t.ok(Date.now() - t0 >= 9_000, 'dropped after about 10 s');
    // Coming back at once: refused while banned (no Status completes, the connection ends).
    const again = await connect(t, node, 100n, key).catch(() => undefined);
    if (again) {
      const st = await withinSeconds(sendStatus(again, genesis), 10, 'refusal');
      await withinSeconds(again.closed, 10, 'banned peer disconnected');
      t.pass(`banned peer refused (status ${st ? 'seen' : 'not completed'})`);
    } else {
      t.pass('banned peer refused at the handshake');
    }
    t.equal(await peerCount(node), 0);
  });

  t.test('random bytes on the port end that connection only', async (t) => {
    const socket = net.connect({ host: '127.0.0.1', port: Number(/:(\d+)$/.exec(node.enode)![1]) });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // More than the largest handshake packet, so the library parses (and fails on) it at once.
    socket.write(randomBytes(70_000));
    await withinSeconds(closed, 15, 'the node closes a garbage connection');
    t.pass('closed');
    t.equal(typeof (await node.rpc('mc_blockNumber')), 'string', 'the node still answers');
  });
});
