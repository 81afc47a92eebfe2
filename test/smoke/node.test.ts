// The smoke suite CI runs on Node 24 besides the whole suite on the machine's Node (.ci/run,
// docs/testing.md): the `mcnode` command and startNode() each start a node, take a transfer,
// answer a call, push a subscription and stop. With test/package/package.test.ts (the installed
// package's command and startNode) it is what "runs on Node 24" means. Kept short.

import t from 'tap';
import WebSocket from 'ws';
import { startNode as startLibraryNode } from '../../src/library/index.js';
import { DEV } from '../helpers/accounts.js';
import { startNode, waitFor } from '../helpers/node.js';
import { testDir } from '../helpers/testDir.js';

const TO = '0x' + '24'.repeat(20);

t.test(`the mcnode command on Node ${process.versions.node}: start, transfer, call, subscription, stop`, async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'instant']);
  t.teardown(() => node.stop());
  const ws = new WebSocket(node.url.replace('http:', 'ws:'));
  t.teardown(() => ws.close());
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const messages: any[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(String(data))));
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
  const subscription = (await waitFor(async () => messages.find((m) => m.id === 1), 'the subscription id')).result;

  const hash = await node.rpc('mc_sendTransaction', [{ from: DEV[0].address, to: TO, value: '0x18' }]);
  const receipt = await waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), 'the receipt');
  t.equal(receipt.status, '0x1', 'the transfer is mined');
  t.equal(await node.rpc('mc_getBalance', [TO, 'latest']), '0x18');
  t.equal(await node.rpc('mc_call', [{ to: TO, data: '0x' }, 'latest']), '0x', 'a call');
  const head = await waitFor(async () => messages.find((m) => m.params?.subscription === subscription), 'the newHeads notification');
  t.equal(head.params.result.number, receipt.blockNumber, 'the subscription pushed the block');
  t.equal(await node.stop(), 0, 'stops cleanly');
});

t.test(`startNode() on Node ${process.versions.node}: start, transfer, call, subscription, stop`, async (t) => {
  const node = await startLibraryNode({ mining: { mode: 'instant' } });
  t.teardown(() => node.stop());
  const messages: any[] = [];
  node.provider.on('message', (m: unknown) => messages.push(m));
  const subscription = await node.provider.request({ method: 'eth_subscribe', params: ['newHeads'] });
  const hash = await node.provider.request({ method: 'eth_sendTransaction', params: [{ from: node.accounts[0].address, to: TO, value: '0x18' }] });
  const receipt = await waitFor(() => node.provider.request({ method: 'eth_getTransactionReceipt', params: [hash] }) as Promise<any>, 'the receipt');
  t.equal(receipt.status, '0x1');
  t.equal(await node.provider.request({ method: 'eth_call', params: [{ to: TO, data: '0x' }, 'latest'] }), '0x');
  const head = await waitFor(async () => messages.find((m) => m.data.subscription === subscription), 'the message event');
  t.equal(head.data.result.number, receipt.blockNumber);
  await node.stop();
  await t.rejects(node.provider.request({ method: 'eth_blockNumber' }), { code: 4900 }, 'stopped');
});
