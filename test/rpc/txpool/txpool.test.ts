// txpool_content / txpool_inspect / txpool_status and the pool's refusals, against a real node
// over HTTP and IPC, and through chain3's txpool properties.

import t from 'tap';
import Chain3 from 'chain3';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV, GWEI, rawTx } from '../../helpers/accounts.js';
import { toChecksumAddress } from '../../../src/encoding/address.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

const ZERO_HASH = '0x' + '0'.repeat(64);
const TO = '0x7097302333beef4813eef53d12dff987241e3c3c';
const checksum = (a: string) => toChecksumAddress(hexToBytes(a));

let node: TestNode;
t.before(async () => {
  // Mining off: everything stays in the pool until the test mines.
  node = await startNode(testDir(t), ['--mining.mode', 'off']);
});
t.teardown(() => node.stop());

t.test('content, inspect and status over HTTP, IPC and chain3', async (t) => {
  const sent = {
    n0: rawTx(DEV[1].key, { nonce: 0n, to: hexToBytes(TO), value: 10n ** 18n, gas: 2_000_000n, gasPrice: 20n * GWEI }),
    n1: rawTx(DEV[1].key, { nonce: 1n, to: hexToBytes(TO), value: 5n, gas: 21_000n, gasPrice: 21n * GWEI }),
    n3: rawTx(DEV[1].key, { nonce: 3n, to: hexToBytes(TO), value: 7n, gas: 21_000n, gasPrice: 20n * GWEI }),
    create: rawTx(DEV[2].key, { nonce: 0n, value: 0n, gas: 100_000n, data: hexToBytes('0x6000'), gasPrice: 30n * GWEI }),
  };
  for (const s of Object.values(sent)) t.equal(await node.rpc('mc_sendRawTransaction', [s.raw]), s.hash);

  const status = await node.rpc('txpool_status');
  t.same(status, { pending: '0x3', queued: '0x1' });
  t.same((await node.ipcCall('txpool_status')).result, status, 'same over IPC');

  const content = await node.rpc('txpool_content');
  const a1 = checksum(DEV[1].address);
  const a2 = checksum(DEV[2].address);
  t.not(a1, DEV[1].address, 'outer keys are checksummed (mixed case)');
  t.same(Object.keys(content.pending).sort(), [a1, a2].sort());
  t.same(Object.keys(content.pending[a1]), ['0', '1'], 'inner keys are decimal nonces');
  t.same(Object.keys(content.queued), [a1]);
  t.same(Object.keys(content.queued[a1]), ['3']);
  const tx0 = content.pending[a1]['0'];
  t.same(tx0, {
    blockHash: ZERO_HASH,
    blockNumber: null,
    from: DEV[1].address,
    gas: '0x1e8480',
    gasPrice: '0x4a817c800',
    hash: sent.n0.hash,
    input: '0x',
    nonce: '0x0',
    syscnt: '0x0',
    to: TO,
    transactionIndex: '0x0',
    value: '0xde0b6b3a7640000',
    v: tx0.v,
    r: tx0.r,
    s: tx0.s,
    shardingFlag: '0x0',
    type: '0x0',
  });
  t.match(tx0.v, /^0x[0-9a-f]+$/);
  t.equal(content.pending[a2]['0'].to, null);
  t.same((await node.ipcCall('txpool_content')).result, content, 'same over IPC');

  const inspect = await node.rpc('txpool_inspect');
  t.same(inspect, {
    pending: {
      [a1]: {
        0: '0x7097302333Beef4813EEf53d12dfF987241E3C3C: 1000000000000000000 sha + 2000000 × 20000000000 gas',
        1: '0x7097302333Beef4813EEf53d12dfF987241E3C3C: 5 sha + 21000 × 21000000000 gas',
      },
      [a2]: { 0: 'contract creation: 0 sha + 100000 × 30000000000 gas' },
    },
    queued: { [a1]: { 3: '0x7097302333Beef4813EEf53d12dfF987241E3C3C: 7 sha + 21000 × 20000000000 gas' } },
  });
  t.same((await node.ipcCall('txpool_inspect')).result, inspect, 'same over IPC');

  const chain3 = new Chain3(new Chain3.providers.HttpProvider(node.url));
  t.same(chain3.txpool.status, status);
  t.same(chain3.txpool.content, content);
  t.same(chain3.txpool.inspect, inspect);

  // The pending tag and the pending block reflect the pool: 3 executable, nonce 3 waits.
  t.equal(await node.rpc('mc_getTransactionCount', [DEV[1].address, 'pending']), '0x2');
  const pendingBlock = await node.rpc('mc_getBlockByNumber', ['pending', false]);
  t.same(pendingBlock.transactions.sort(), [sent.n0.hash, sent.n1.hash, sent.create.hash].sort());

  // Filling the gap promotes nonce 3.
  const n2 = rawTx(DEV[1].key, { nonce: 2n, to: hexToBytes(TO), value: 1n, gas: 21_000n });
  await node.rpc('mc_sendRawTransaction', [n2.raw]);
  t.same(await node.rpc('txpool_status'), { pending: '0x5', queued: '0x0' });
  t.equal(await node.rpc('mc_getTransactionCount', [DEV[1].address, 'pending']), '0x4');
  t.equal((await node.rpc('mc_getBlockByNumber', ['pending', false])).transactions.length, 5);

  // Mined transactions leave the pool.
  await node.rpc('miner_start', []);
  await waitFor(() => node.rpc('mc_getTransactionReceipt', [sent.n3.hash]), 'promoted tx mined');
  await waitFor(async () => (await node.rpc('txpool_status')).pending === '0x0', 'pool emptied');
  t.same(await node.rpc('txpool_content'), { pending: {}, queued: {} });
  t.same(await node.rpc('txpool_inspect'), { pending: {}, queued: {} });
  await node.rpc('miner_stop', []);
});

t.test('refusals: -32000 with geth\'s messages over HTTP and IPC', async (t) => {
  const from = DEV[0].address;
  const nonce = BigInt(await node.rpc('mc_getTransactionCount', [from, 'pending']));
  const to = hexToBytes(TO);
  const ok = rawTx(DEV[0].key, { nonce, to, gas: 21_000n, gasPrice: 20n * GWEI });
  await node.rpc('mc_sendRawTransaction', [ok.raw]);
  const cases: [string, string][] = [
    [ok.raw, 'already known'],
    [rawTx(DEV[0].key, { nonce, to, gas: 21_000n, gasPrice: 21n * GWEI }).raw, 'replacement transaction underpriced'],
    [rawTx(DEV[0].key, { nonce: nonce + 1n, to, gas: 999n }).raw, 'intrinsic gas too low'],
    [rawTx(DEV[0].key, { nonce: nonce + 1n, to, gas: 100_000_000n }).raw, 'exceeds block gas limit'],
    [rawTx(DEV[0].key, { nonce: nonce + 1n, to, gas: 21_000n, gasPrice: 1n }).raw, 'transaction underpriced'],
    [rawTx(DEV[0].key, { nonce: nonce + 1n, to, gas: 21_000n, value: 10n ** 30n }).raw, 'insufficient funds for gas * price + value'],
  ];
  // DEV[1]'s nonce 0 was mined in the first test.
  cases.push([rawTx(DEV[1].key, { nonce: 0n, to, gas: 21_000n }).raw, 'nonce too low']);
  for (const [raw, message] of cases) {
    const http = await node.call('mc_sendRawTransaction', [raw]);
    t.same(http.error, { code: -32000, message }, `HTTP: ${message}`);
    const ipc = await node.ipcCall('mc_sendRawTransaction', [raw]);
    t.same(ipc.error, { code: -32000, message }, `IPC: ${message}`);
  }
  // A 10% bump replaces.
  const bumped = rawTx(DEV[0].key, { nonce, to, gas: 21_000n, gasPrice: 22n * GWEI });
  t.equal(await node.rpc('mc_sendRawTransaction', [bumped.raw]), bumped.hash);
  const pool = await node.rpc('txpool_content');
  t.equal(pool.pending[checksum(from)][nonce.toString()].hash, bumped.hash);
  t.equal(await node.rpc('mc_getTransactionByHash', [ok.hash]), null, 'the replaced one is gone');
});

t.test('pool limits: txpool is full, and eviction of a cheaper sender', async (t) => {
  const small = await startNode(testDir(t), [
    '--mining.mode', 'off', '--txpool.globalSlots', '2', '--txpool.globalQueue', '1', '--txpool.accountQueue', '1',
  ]);
  t.teardown(() => small.stop());
  const to = hexToBytes(TO);
  const send = (key: string, nonce: bigint, gasPrice: bigint) =>
    small.call('mc_sendRawTransaction', [rawTx(key, { nonce, to, gas: 21_000n, gasPrice }).raw]);
  t.ok((await send(DEV[1].key, 0n, 20n * GWEI)).result);
  t.ok((await send(DEV[1].key, 1n, 20n * GWEI)).result, 'one account may take every pending slot');
  t.same((await send(DEV[1].key, 2n, 50n * GWEI)).error, { code: -32000, message: 'txpool is full' });
  t.ok((await send(DEV[1].key, 5n, 20n * GWEI)).result, 'queued');
  t.same((await send(DEV[1].key, 6n, 20n * GWEI)).error, { code: -32000, message: 'txpool is full' }, 'per-account queue');
  t.same((await send(DEV[2].key, 0n, 20n * GWEI)).error, { code: -32000, message: 'txpool is full' }, 'same price: no eviction');
  const evictor = rawTx(DEV[2].key, { nonce: 0n, to, gas: 21_000n, gasPrice: 25n * GWEI });
  t.equal((await small.call('mc_sendRawTransaction', [evictor.raw])).result, evictor.hash);
  t.same(await small.rpc('txpool_status'), { pending: '0x2', queued: '0x1' });
  const inspect = await small.rpc('txpool_inspect');
  t.same(Object.keys(inspect.pending[checksum(DEV[1].address)]), ['0'], 'DEV[1]\'s last pending transaction was evicted');
});
