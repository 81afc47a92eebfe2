// mc_getLogs and the filter methods against a real node: every topic pattern of README "Filters and logs", address
// arrays, ranges over many blocks, blockHash, the log object, polling in batches,
// getFilterLogs, uninstall, unknown ids, pending logs.

import t from 'tap';
import { postJson, startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV, rawTx } from '../../helpers/accounts.js';
import { contract, encodeCall, topic, word } from '../../helpers/abi.js';
import { contractAddress } from '../../../src/chain/transaction.js';
import type { TxFields } from '../../../src/chain/types.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

const SIG = topic('Stored(address,uint256)');
const OTHER = topic('Other(uint256)');
const pad = (address: string) => '0x' + word(address);
const store = contract('Store');

let node: TestNode;
const nonces = new Map<string, bigint>();
let A = '';
let B = '';
/** receipts of the five Stored events, in chain order */
const events: any[] = [];
let transferBlock = '';

async function send(from: (typeof DEV)[number], fields: Omit<Partial<TxFields>, 'nonce'>) {
  const nonce = nonces.get(from.address) ?? 0n;
  nonces.set(from.address, nonce + 1n);
  const { raw, hash } = rawTx(from.key, { nonce, gas: 300_000n, ...fields });
  await node.rpc('mc_sendRawTransaction', [raw]);
  return waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), `receipt ${hash}`);
}
const setOn = (to: string, from: (typeof DEV)[number], v: number) => send(from, { to: hexToBytes(to), data: hexToBytes(encodeCall('set(uint256)', v)) });
const getLogs = (filter: object) => node.rpc('mc_getLogs', [filter]);
const values = (logs: any[]) => logs.map((l) => Number(BigInt(l.data)));

t.before(async () => {
  node = await startNode(testDir(t), ['--mining.mode', 'instant']);
  A = (await send(DEV[0], { data: hexToBytes(store.bytecode + word(1)) })).contractAddress;
  B = (await send(DEV[0], { data: hexToBytes(store.bytecode + word(2)) })).contractAddress;
  events.push(await setOn(A, DEV[0], 1)); // block 3
  events.push(await setOn(A, DEV[1], 2)); // block 4
  events.push(await setOn(B, DEV[2], 3)); // block 5
  events.push(await setOn(B, DEV[0], 4)); // block 6
  transferBlock = (await send(DEV[1], { to: hexToBytes(DEV[2].address), value: 1n, gas: 21_000n })).blockNumber; // block 7
  events.push(await setOn(A, DEV[2], 5)); // block 8
});
t.teardown(() => node.stop());

t.test('the chain under test: one block per transaction', async (t) => {
  t.same(events.map((r) => r.blockNumber), ['0x3', '0x4', '0x5', '0x6', '0x8']);
  t.equal(transferBlock, '0x7');
});

t.test('log objects carry every field and equal the receipts\' logs', async (t) => {
  const logs = await getLogs({ fromBlock: '0x0', toBlock: 'latest' });
  t.equal(logs.length, 5);
  t.same(logs, events.map((r) => r.logs[0]));
  const [first] = logs;
  t.same(Object.keys(first).sort(), ['TxData', 'address', 'blockHash', 'blockNumber', 'data', 'logIndex', 'removed', 'topics', 'transactionHash', 'transactionIndex'].sort());
  t.equal(first.removed, false);
  t.equal(first.address, A);
  t.equal(first.blockNumber, '0x3');
  t.equal(first.blockHash, events[0].blockHash);
  t.equal(first.transactionHash, events[0].transactionHash);
  t.equal(first.transactionIndex, '0x0');
  t.equal(first.logIndex, '0x0');
  t.same(first.topics, [SIG, pad(DEV[0].address)]);
  t.equal(first.data, '0x' + word(1));
  t.equal(first.TxData, first.data);
});

t.test('defaults: fromBlock and toBlock are latest', async (t) => {
  t.same(values(await getLogs({})), [5]);
  t.same(values(await getLogs({ toBlock: 'latest' })), [5]);
});

t.test('every topic pattern', async (t) => {
  t.same(values(await getLogs({ fromBlock: 'earliest', topics: [] })), [1, 2, 3, 4, 5], '[] matches anything');
  t.same(values(await getLogs({ fromBlock: 'earliest', topics: [SIG] })), [1, 2, 3, 4, 5], '[A]');
  t.same(values(await getLogs({ fromBlock: 'earliest', topics: [OTHER] })), [], '[other]');
  t.same(values(await getLogs({ fromBlock: 'earliest', topics: [pad(DEV[2].address)] })), [], 'order matters');
  t.same(values(await getLogs({ fromBlock: 'earliest', topics: [null, pad(DEV[2].address)] })), [3, 5], '[null, B]');
  t.same(values(await getLogs({ fromBlock: 'earliest', topics: [[SIG, OTHER], [pad(DEV[0].address), pad(DEV[1].address)]] })), [1, 2, 4], 'OR arrays');
  const ab = [SIG, pad(DEV[1].address)];
  t.same(values(await getLogs({ fromBlock: 'earliest', topics: [ab, ab] })), [2], '[[A,B],[A,B]]');
  t.same(values(await getLogs({ fromBlock: 'earliest', topics: [null, [null, pad(DEV[0].address)]] })), [1, 2, 3, 4, 5], 'null inside an OR array matches anything');
  t.same(values(await getLogs({ fromBlock: 'earliest', topics: [SIG, null] })), [1, 2, 3, 4, 5], 'trailing null');
  t.same(values(await getLogs({ fromBlock: 'earliest', topics: [null, null, null] })), [], 'more positions than the log has');
  t.same(values(await getLogs({ fromBlock: 'earliest', topics: [[], [pad(DEV[1].address)]] })), [2], 'an empty OR array matches anything');
});

t.test('addresses: one or an array, combined with topics', async (t) => {
  t.same(values(await getLogs({ fromBlock: 'earliest', address: A })), [1, 2, 5]);
  t.same(values(await getLogs({ fromBlock: 'earliest', address: [B] })), [3, 4]);
  t.same(values(await getLogs({ fromBlock: 'earliest', address: [A, B] })), [1, 2, 3, 4, 5]);
  t.same(values(await getLogs({ fromBlock: 'earliest', address: ['0x' + '99'.repeat(20), B] })), [3, 4]);
  t.same(values(await getLogs({ fromBlock: 'earliest', address: [A, B], topics: [null, pad(DEV[0].address)] })), [1, 4]);
  t.same(values(await getLogs({ fromBlock: 'earliest', address: [] })), [1, 2, 3, 4, 5], 'an empty array is no constraint');
});

t.test('ranges across blocks, clamping, blockHash, errors', async (t) => {
  t.same(values(await getLogs({ fromBlock: '0x4', toBlock: '0x6' })), [2, 3, 4]);
  t.same(values(await getLogs({ fromBlock: '0x5', toBlock: '0x5' })), [3]);
  t.same(values(await getLogs({ fromBlock: '0x7', toBlock: '0x7' })), [], 'a block without logs');
  t.same(values(await getLogs({ fromBlock: '0x6', toBlock: '0xffffffff' })), [4, 5], 'toBlock clamped to the head');
  t.same(values(await getLogs({ fromBlock: '0x0', toBlock: '0x2710' })), [1, 2, 3, 4, 5], '10,001 blocks requested, 9 exist');
  t.same(values(await getLogs({ fromBlock: 'earliest', toBlock: 'pending' })), [1, 2, 3, 4, 5], 'empty pending block adds nothing');
  t.same(values(await getLogs({ blockHash: events[1].blockHash })), [2]);
  t.same(await getLogs({ fromBlock: '0x100' }), [], 'a start past the head with toBlock latest: nothing yet');
  t.same((await node.call('mc_getLogs', [{ fromBlock: '0x6', toBlock: '0x5' }])).error, { code: -32000, message: 'invalid block range: fromBlock > toBlock' });
  t.same((await node.call('mc_getLogs', [{ fromBlock: 'latest', toBlock: '0x2' }])).error, { code: -32000, message: 'invalid block range: fromBlock > toBlock' });
  t.same((await node.call('mc_getLogs', [{ blockHash: '0x' + '12'.repeat(32) }])).error, { code: -32000, message: 'unknown block' });
  const both = await node.call('mc_getLogs', [{ blockHash: events[1].blockHash, fromBlock: '0x1' }]);
  t.equal(both.error?.code, -32602);
  t.match(both.error?.message, /cannot specify both blockHash and fromBlock\/toBlock/);
  t.same((await node.call('mc_getLogs', [{ topics: [null, null, null, null, null] }])).error, { code: -32005, message: 'limit exceeded: topics (max 4 positions)' });
  t.same(await getLogs({ fromBlock: 'earliest', topics: [null, null, null, null] }), [], 'four positions are allowed');
  const badAddress = await node.call('mc_getLogs', [{ address: ['0x1234'] }]);
  t.equal(badAddress.error?.code, -32602);
  t.match(badAddress.error?.message, /address/);
  t.equal((await node.call('mc_getLogs', [{ topics: SIG }])).error?.code, -32602, 'topics must be an array');
  t.equal((await node.call('mc_getLogs', [{ topics: ['0x12'] }])).error?.code, -32602, 'topics are 32 bytes');
  t.equal((await node.call('mc_getLogs', [{ fromBlock: 'soon' }])).error?.code, -32602);
  t.equal((await node.call('mc_getLogs', [])).error?.code, -32602, 'the options object is required');
  const ipc = await node.ipcCall('mc_getLogs', [{ fromBlock: 'earliest', address: B }]);
  t.same(values(ipc.result), [3, 4], 'served over IPC too');
});

t.test('filters: ids, changes polled in one batch, getFilterLogs, uninstall', async (t) => {
  const blockFilter = await node.rpc('mc_newBlockFilter');
  const txFilter = await node.rpc('mc_newPendingTransactionFilter');
  const logFilter = await node.rpc('mc_newFilter', [{ address: A, topics: [SIG] }]);
  const otherFilter = await node.rpc('mc_newFilter', [{ address: B }]);
  for (const id of [blockFilter, txFilter, logFilter, otherFilter]) t.match(id, /^0x[1-9a-f][0-9a-f]*$/, `QUANTITY id ${id}`);
  t.equal(new Set([blockFilter, txFilter, logFilter, otherFilter]).size, 4);

  const poll = () =>
    postJson(node.url, [blockFilter, txFilter, logFilter, otherFilter].map((id, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'mc_getFilterChanges', params: [id] })));
  const empty = (await poll()) as unknown as any[];
  t.same(empty.map((r) => r.result), [[], [], [], []], 'nothing changed yet');

  const receipt = await setOn(A, DEV[1], 6);
  const batch = (await poll()) as unknown as any[];
  t.same(batch.map((r) => r.id), [1, 2, 3, 4]);
  t.same(batch[0].result, [receipt.blockHash], 'block hashes');
  t.same(batch[1].result, [receipt.transactionHash], 'transaction hashes');
  t.same(batch[2].result, receipt.logs, 'log objects');
  t.same(batch[3].result, [], 'other address');
  t.same(((await poll()) as unknown as any[]).map((r) => r.result), [[], [], [], []], 'only changes since the last poll');

  t.same(await node.rpc('mc_getFilterLogs', [logFilter]), receipt.logs, 'getFilterLogs: latest block');
  const wide = await node.rpc('mc_newFilter', [{ fromBlock: 'earliest', address: [A] }]);
  t.same(values(await node.rpc('mc_getFilterLogs', [wide])), [1, 2, 5, 6]);
  t.same(await node.rpc('mc_getFilterChanges', [wide]), [], 'a new filter reports only later logs');
  t.same((await node.call('mc_getFilterLogs', [blockFilter])).error, {
    code: -32000,
    message: 'filter is not a log filter (mc_getFilterLogs serves filters made by mc_newFilter)',
  });

  t.equal(await node.rpc('mc_uninstallFilter', [logFilter]), true);
  t.equal(await node.rpc('mc_uninstallFilter', [logFilter]), false);
  t.same((await node.call('mc_getFilterChanges', [logFilter])).error, { code: -32000, message: 'filter not found' });
  t.same((await node.call('mc_getFilterLogs', [logFilter])).error, { code: -32000, message: 'filter not found' });
  t.same((await node.call('mc_getFilterChanges', ['0x1234'])).error, { code: -32000, message: 'filter not found' });
  t.same((await node.call('mc_getFilterChanges', ['not-an-id'])).error, { code: -32000, message: 'filter not found' });
  t.equal(await node.rpc('mc_uninstallFilter', ['0x0']), false);
  t.equal((await node.call('mc_getFilterChanges', [42])).error?.code, -32602);
  t.equal((await node.call('mc_newFilter', [{ fromBlock: '0x9', toBlock: '0x2' }])).error?.message, 'invalid block range: fromBlock > toBlock');
  t.same((await node.call('mc_newFilter', [{ topics: [null, null, null, null, null] }])).error?.code, -32005);
  for (const id of [blockFilter, txFilter, otherFilter, wide]) t.equal(await node.rpc('mc_uninstallFilter', [id]), true);
});

t.test('pending logs (null block fields) for pending ranges', async (t) => {
  const idle = await startNode(testDir(t), ['--mining.mode', 'off']);
  t.teardown(() => idle.stop());
  const filter = await idle.rpc('mc_newFilter', [{ fromBlock: 'latest', toBlock: 'pending' }]);
  const minedOnly = await idle.rpc('mc_newFilter', [{}]);
  const deploy = rawTx(DEV[0].key, { nonce: 0n, gas: 300_000n, data: hexToBytes(store.bytecode + word(1)) });
  const at = bytesToHex(contractAddress(hexToBytes(DEV[0].address), 0n));
  const set = rawTx(DEV[0].key, { nonce: 1n, gas: 300_000n, to: hexToBytes(at), data: hexToBytes(encodeCall('set(uint256)', 9)) });
  await idle.rpc('mc_sendRawTransaction', [deploy.raw]);
  await idle.rpc('mc_sendRawTransaction', [set.raw]);
  const expected = {
    removed: false, logIndex: null, transactionIndex: null, transactionHash: null, blockHash: null, blockNumber: null,
    address: at, data: '0x' + word(9), TxData: '0x' + word(9), topics: [SIG, pad(DEV[0].address)],
  };
  t.same(await idle.rpc('mc_getLogs', [{ fromBlock: 'pending', toBlock: 'pending' }]), [expected]);
  t.same(await idle.rpc('mc_getLogs', [{ fromBlock: 'earliest', toBlock: 'pending', address: at }]), [expected]);
  t.same(await idle.rpc('mc_getLogs', [{ fromBlock: 'earliest' }]), [], 'nothing mined');
  t.same(await idle.rpc('mc_getFilterChanges', [filter]), [expected], 'pending logs reach a filter whose range ends at pending');
  t.same(await idle.rpc('mc_getFilterChanges', [filter]), [], 'once');
  t.same(await idle.rpc('mc_getFilterChanges', [minedOnly]), []);
  t.same((await idle.call('mc_getLogs', [{ fromBlock: 'pending', toBlock: 'latest' }])).error?.message, 'invalid block range: fromBlock > toBlock');
});
