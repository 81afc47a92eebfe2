// Multi-node helpers: start nodes with networking on loopback (free ports), read their enode
// URLs from the banner, peer them and wait for a shared head.

import { startNode, waitFor, type TestNode } from './node.js';

export interface NetNode extends TestNode {
  enode: string;
}

/** A node with peer-to-peer networking on 127.0.0.1 and a free port; `args` add to it. */
export async function startNetNode(datadir: string, args: string[] = []): Promise<NetNode> {
  const node = await startNode(datadir, ['--port', '0', '--rpcapi', 'libx,mc,net,admin,txpool,miner', ...args]);
  const enode = /P2P\s+(enode:\/\/\S+)/.exec(node.stdout())?.[1];
  if (!enode) {
    await node.stop();
    throw new Error(`no P2P line in the banner:\n${node.stdout()}`);
  }
  return Object.assign(node, { enode });
}

export const peerCount = async (node: TestNode): Promise<number> => Number(BigInt(await node.rpc('net_peerCount')));

export async function waitPeers(node: TestNode, n: number, what: string, timeoutMs = 20_000): Promise<void> {
  await waitFor(async () => (await peerCount(node)) >= n, `${what}: ${n} peer(s)`, timeoutMs);
}

export async function head(node: TestNode): Promise<{ number: bigint; hash: string }> {
  const block = await node.rpc('mc_getBlockByNumber', ['latest', false]);
  return { number: BigInt(block.number), hash: block.hash };
}

/** Waits until every node has a head at height ≥ `min` and all heads are the same block. */
export async function waitSameHead(nodes: TestNode[], min: bigint, timeoutMs = 30_000): Promise<{ number: bigint; hash: string }> {
  return waitFor(async () => {
    const heads = await Promise.all(nodes.map(head));
    if (heads[0].number < min) return undefined;
    return heads.every((h) => h.hash === heads[0].hash) ? heads[0] : undefined;
  }, `a common head ≥ #${min}`, timeoutMs);
}
