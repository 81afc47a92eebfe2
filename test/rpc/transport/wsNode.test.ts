// WebSocket and subscriptions on a running node: upgrades on the HTTP port, the separate --ws
// endpoint with its own namespaces, subscriptions over IPC, and the refusal over HTTP.

import t from 'tap';
import net from 'node:net';
import { startNode, waitFor } from '../../helpers/node.js';
import { DEV, rawTx } from '../../helpers/accounts.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { connect } from './wsFixture.js';
import { testDir } from '../../helpers/testDir.js';

t.test('HTTP port upgrades, --ws endpoint, IPC subscriptions, HTTP refusal', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'instant', '--ws', '--wsport', '0', '--wsapi', 'mc,net,rpc', '--wsorigins', 'http://ok.example']);
  t.teardown(() => node.stop());
  const wsUrl = /WS\s+(ws:\/\/\S+)/.exec(node.stdout())![1];

  t.same((await node.call('eth_subscribe', ['newHeads'])).error, { code: -32601, message: 'notifications not supported' });

  const onHttpPort = await connect(node.url.replace('http:', 'ws:'));
  t.teardown(() => onHttpPort.socket.close());
  t.equal((await onHttpPort.call('eth_chainId')).result, '0x64');
  t.equal((await onHttpPort.call('txpool_status')).result.pending, '0x0', 'HTTP namespaces');
  const heads = (await onHttpPort.call('eth_subscribe', ['newHeads'])).result;
  const pending = (await onHttpPort.call('mc_subscribe', ['newPendingTransactions'])).result;

  await t.rejects(connect(wsUrl, { origin: 'http://evil.example' }), /403/, '--wsorigins refuses other origins');
  (await connect(wsUrl, { origin: 'http://ok.example' })).socket.close();
  await t.rejects(connect(node.url.replace('http:', 'ws:'), { origin: 'http://ok.example' }), /403/, 'the HTTP port follows --rpccorsdomain');
  const separate = await connect(wsUrl.endsWith('/') ? wsUrl : wsUrl + '/');
  t.teardown(() => separate.socket.close());
  t.equal((await separate.call('net_version')).result, '100');
  t.equal((await separate.call('txpool_status')).error.code, -32601, '--wsapi leaves txpool out');
  t.same((await separate.call('rpc_modules')).result, { mc: '1.0', net: '1.0', rpc: '1.0' }, 'rpc_modules names the --wsapi list');
  t.same((await onHttpPort.call('rpc_modules')).result, { libx: '1.0', mc: '1.0', net: '1.0', vnode: '1.0', txpool: '1.0', miner: '1.0', rpc: '1.0', evm: '1.0', anvil: '1.0', hardhat: '1.0' }, 'the HTTP list, dev controls included on the devnet');

  // IPC: a subscription pushes lines on the same socket
  const ipc = net.connect(node.ipcPath);
  t.teardown(() => ipc.destroy());
  const lines: any[] = [];
  let buffer = '';
  ipc.on('data', (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
  });
  ipc.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }) + '\n');
  const ipcId = (await waitFor(async () => lines.find((l) => l.id === 1), 'IPC subscribe reply')).result;

  const tx = rawTx(DEV[1].key, { nonce: 0n, to: hexToBytes(DEV[2].address), value: 1n, gas: 21_000n });
  await node.rpc('eth_sendRawTransaction', [tx.raw]);
  const receipt = await waitFor(() => node.rpc('eth_getTransactionReceipt', [tx.hash]), 'receipt');

  const notes = [await onHttpPort.nextNote(), await onHttpPort.nextNote()];
  const byId = Object.fromEntries(notes.map((n) => [n.params.subscription, n]));
  t.same(byId[pending], { jsonrpc: '2.0', method: 'mc_subscription', params: { subscription: pending, result: tx.hash } });
  t.match(byId[heads], { method: 'eth_subscription', params: { result: { hash: receipt.blockHash, number: receipt.blockNumber } } });
  const ipcNote = await waitFor(async () => lines.find((l) => l.method), 'IPC notification');
  t.match(ipcNote, { method: 'eth_subscription', params: { subscription: ipcId, result: { hash: receipt.blockHash } } });
});
