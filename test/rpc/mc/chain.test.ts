// mc_* chain, state and transaction methods against a real node process over HTTP.

import t from 'tap';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { fastCallCounters } from '../../helpers/fastCallMetrics.js';
import { DEV, GWEI, rawTx } from '../../helpers/accounts.js';
import { contract, encodeCall, topic, word } from '../../helpers/abi.js';
import { keccak256 } from '../../../src/encoding/bytes.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

const MC = 10n ** 18n;
let node: TestNode;

t.before(async () => {
  node = await startNode(testDir(t), ['--mining.mode', 'instant', '--metrics', '--metrics.port', '0']);
});
t.teardown(() => node.stop());

const receiptOf = (hash: string) => waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), `receipt ${hash}`);

t.test('genesis and dev accounts', async (t) => {
  t.equal(await node.rpc('mc_blockNumber'), '0x0');
  const genesis = await node.rpc('mc_getBlockByNumber', ['earliest', false]);
  t.equal(genesis.number, '0x0');
  t.equal(genesis.difficulty, '0x200');
  t.equal(genesis.gasLimit, '0x895440');
  t.equal(genesis.totalDifficulty, '0x200');
  t.same(genesis.transactions, []);
  t.same(genesis.uncles, []);
  t.equal(genesis.sha3Uncles, '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347');
  const accounts = await node.rpc('mc_accounts');
  t.equal(accounts.length, 10);
  t.equal(accounts[0], DEV[0].address);
  t.equal(await node.rpc('mc_getBalance', [DEV[1].address, 'latest']), '0x' + (1_000_000n * MC).toString(16));
  t.equal(await node.rpc('mc_getBalance', ['0x' + '12'.repeat(20), 'latest']), '0x0');
  t.equal(await node.rpc('mc_coinbase'), DEV[0].address);
  t.equal(await node.rpc('net_version'), '100');
  t.equal(await node.rpc('mc_protocolVersion'), '0x3f');
  t.equal(await node.rpc('mc_syncing'), false);
  t.equal(await node.rpc('mc_gasPrice'), '0x4a817c800');
  t.equal(await node.rpc('net_listening'), true);
  t.equal(await node.rpc('net_peerCount'), '0x0');
  t.match(await node.rpc('libx_clientVersion'), /^Mcnode\/v\d+\.\d+\.\d+/);
  t.equal(await node.rpc('chain3_clientVersion'), await node.rpc('libx_clientVersion'), 'chain3_ alias');
  t.equal(await node.rpc('libx_sha3', ['0x68656c6c6f20776f726c64']), '0x47173285a8d7341e5e972fc677286384f802f8ef42a5ec5f03bbfa254cb01fad');
  t.equal(await node.rpc('eth_blockNumber'), await node.rpc('mc_blockNumber'), 'eth_ alias');
});

t.test('a raw transfer is mined with fees and the block reward', async (t) => {
  const to = '0x' + 'ab'.repeat(20);
  const before = BigInt(await node.rpc('mc_getBalance', [DEV[1].address, 'latest']));
  const minerBefore = BigInt(await node.rpc('mc_getBalance', [DEV[0].address, 'latest']));
  const { raw, hash } = rawTx(DEV[1].key, { nonce: 0n, to: hexToBytes(to), value: 5n * MC, gas: 21_000n });
  t.equal(await node.rpc('mc_sendRawTransaction', [raw]), hash);
  const receipt = await receiptOf(hash);
  t.equal(receipt.status, '0x1');
  t.equal(receipt.gasUsed, '0x3e8', 'a transfer costs MOAC\'s 1000 gas');
  t.equal(receipt.cumulativeGasUsed, '0x3e8');
  t.equal(receipt.contractAddress, null);
  t.equal(receipt.from, DEV[1].address);
  t.equal(receipt.to, to);
  t.same(receipt.logs, []);
  const fee = 1000n * 20n * GWEI;
  t.equal(BigInt(await node.rpc('mc_getBalance', [to, 'latest'])), 5n * MC);
  t.equal(BigInt(await node.rpc('mc_getBalance', [DEV[1].address, 'latest'])), before - 5n * MC - fee);
  t.equal(BigInt(await node.rpc('mc_getBalance', [DEV[0].address, 'latest'])), minerBefore + 2n * MC + fee, 'reward + fee to the miner');
  t.equal(await node.rpc('mc_getTransactionCount', [DEV[1].address, 'latest']), '0x1');

  const tx = await node.rpc('mc_getTransactionByHash', [hash]);
  t.equal(tx.hash, hash);
  t.equal(tx.from, DEV[1].address);
  t.equal(tx.blockHash, receipt.blockHash);
  t.equal(tx.blockNumber, receipt.blockNumber);
  t.equal(tx.transactionIndex, '0x0');
  t.equal(tx.value, '0x' + (5n * MC).toString(16));
  t.equal(tx.v, '0xeb', 'v = recovery + 35 + 2·100');
  t.equal(tx.shardingFlag, '0x0');
  t.equal(tx.syscnt, '0x0');

  const block = await node.rpc('mc_getBlockByHash', [receipt.blockHash, true]);
  t.equal(block.transactions[0].hash, hash);
  t.equal(block.gasUsed, '0x3e8');
  const byNumber = await node.rpc('mc_getBlockByNumber', [receipt.blockNumber, false]);
  t.same(byNumber.transactions, [hash]);
  t.equal(await node.rpc('mc_getBlockTransactionCountByHash', [receipt.blockHash]), '0x1');
  t.equal(await node.rpc('mc_getBlockTransactionCountByNumber', [receipt.blockNumber]), '0x1');
  t.equal((await node.rpc('mc_getTransactionByBlockHashAndIndex', [receipt.blockHash, '0x0'])).hash, hash);
  t.equal((await node.rpc('mc_getTransactionByBlockNumberAndIndex', [receipt.blockNumber, '0x0'])).hash, hash);
  t.equal(await node.rpc('mc_getTransactionByBlockNumberAndIndex', [receipt.blockNumber, '0x5']), null);
  t.equal(await node.rpc('mc_getUncleCountByBlockHash', [receipt.blockHash]), '0x0');
  t.equal(await node.rpc('mc_getUncleCountByBlockNumber', [receipt.blockNumber]), '0x0');
  t.equal(await node.rpc('mc_getUncleByBlockHashAndIndex', [receipt.blockHash, '0x0']), null);
  t.equal(await node.rpc('mc_getUncleByBlockNumberAndIndex', [receipt.blockNumber, '0x0']), null);

  // The balance at the parent block is the old one.
  const parent = '0x' + (BigInt(receipt.blockNumber) - 1n).toString(16);
  t.equal(BigInt(await node.rpc('mc_getBalance', [DEV[1].address, parent])), before);
});

t.test('pool refusals', async (t) => {
  const err = async (raw: string) => (await node.call('mc_sendRawTransaction', [raw])).error;
  const low = await err(rawTx(DEV[1].key, { nonce: 0n, to: hexToBytes(DEV[2].address), gas: 21_000n }).raw);
  t.same(low, { code: -32000, message: 'nonce too low' });
  const poor = rawTx('0x' + '11'.repeat(32), { nonce: 0n, to: hexToBytes(DEV[2].address), value: 1n, gas: 21_000n });
  t.same(await err(poor.raw), { code: -32000, message: 'insufficient funds for gas * price + value' });
  const intrinsic = rawTx(DEV[2].key, { nonce: 0n, to: hexToBytes(DEV[1].address), gas: 999n });
  t.same(await err(intrinsic.raw), { code: -32000, message: 'intrinsic gas too low' });
  const huge = rawTx(DEV[2].key, { nonce: 0n, to: hexToBytes(DEV[1].address), gas: 10_000_000n });
  t.same(await err(huge.raw), { code: -32000, message: 'exceeds block gas limit' });
  const wrongChain = rawTx(DEV[2].key, { nonce: 0n, to: hexToBytes(DEV[1].address), gas: 21_000n }, 101n);
  t.match(await err(wrongChain.raw), { code: -32000, message: /invalid chain id/ });
  // a first byte below 0x80 is an EIP-2718 type byte
  t.same(await err('0x1234'), { code: -32000, message: 'transaction type not supported' });
  t.match(await err('0x8234'), { code: -32602, message: /rlp/ });
  t.match(await err('1234'), { code: -32602, message: /invalid argument 0: hex string without 0x prefix/ });
  const cheap = rawTx(DEV[2].key, { nonce: 0n, to: hexToBytes(DEV[1].address), gas: 21_000n, gasPrice: 1n });
  t.same(await err(cheap.raw), { code: -32000, message: 'transaction underpriced' });
});

t.test('contracts: deploy, call, estimate, storage, logs, revert', async (t) => {
  const store = contract('Store');
  const deploy = rawTx(DEV[2].key, { nonce: 0n, data: hexToBytes(store.bytecode + word(7)), gas: 500_000n });
  await node.rpc('mc_sendRawTransaction', [deploy.raw]);
  const receipt = await receiptOf(deploy.hash);
  t.equal(receipt.status, '0x1');
  t.equal(receipt.to, null);
  const address: string = receipt.contractAddress;
  t.match(address, /^0x[0-9a-f]{40}$/);
  t.equal(await node.rpc('mc_getCode', [address, 'latest']), store.deployed);
  t.equal(await node.rpc('mc_getCode', [DEV[0].address, 'latest']), '0x');
  t.equal(await node.rpc('mc_getStorageAt', [address, '0x0', 'latest']), '0x' + word(7));

  const get = await node.rpc('mc_call', [{ to: address, data: encodeCall('value()') }, 'latest']);
  t.equal(get, '0x' + word(7));
  t.equal(await node.rpc('mc_call', [{ to: address, data: encodeCall('add(uint256,uint256)', 40, 2) }]), '0x' + word(42));

  const setData = encodeCall('set(uint256)', 99);
  const estimate = BigInt(await node.rpc('mc_estimateGas', [{ from: DEV[2].address, to: address, data: setData }]));
  t.ok(estimate > 20_000n && estimate < 90_000n, `estimate ${estimate}`);
  const set = rawTx(DEV[2].key, { nonce: 1n, to: hexToBytes(address), data: hexToBytes(setData), gas: estimate });
  await node.rpc('mc_sendRawTransaction', [set.raw]);
  const setReceipt = await receiptOf(set.hash);
  t.equal(setReceipt.status, '0x1', 'the estimate is enough');
  t.equal(setReceipt.logs.length, 1);
  const log = setReceipt.logs[0];
  t.equal(log.address, address);
  t.same(log.topics, [topic('Stored(address,uint256)'), '0x' + word(DEV[2].address)]);
  t.equal(log.data, '0x' + word(99));
  t.equal(log.TxData, log.data);
  t.equal(log.logIndex, '0x0');
  t.equal(log.transactionHash, set.hash);
  t.equal(log.removed, false);
  t.not(setReceipt.logsBloom, '0x' + '0'.repeat(512));

  // Mapping slot rule: keccak(pad(key) ‖ pad(slot)).
  const slot = bytesToHex(keccak256(hexToBytes('0x' + word(DEV[2].address) + word(1))));
  t.equal(await node.rpc('mc_getStorageAt', [address, slot, 'latest']), '0x' + word(99));
  t.equal(await node.rpc('mc_getStorageAt', [address, '0x0', 'latest']), '0x' + word(99));
  // A position is hex of up to 32 bytes, not a QUANTITY: leading zeros (a hash starting 0x0…) are fine.
  t.equal(await node.rpc('mc_getStorageAt', [address, '0x00', 'latest']), '0x' + word(99));
  t.equal(await node.rpc('mc_getStorageAt', [address, '0x' + '0'.repeat(64), 'latest']), '0x' + word(99));
  t.equal(await node.rpc('mc_getStorageAt', [address, '0x0' + slot.slice(3), 'latest']), '0x' + word(0), 'a zero-led hash slot');
  t.same((await node.call('mc_getStorageAt', [address, '0x1' + '0'.repeat(64), 'latest'])).error,
    { code: -32602, message: 'invalid argument 1: hex string too long, want at most 32 bytes' });
  t.same((await node.call('mc_getStorageAt', [address, '0xzz', 'latest'])).error, { code: -32602, message: 'invalid argument 1: invalid hex string' });
  t.equal(await node.rpc('mc_getStorageAt', [address, '0x00', 'pending']), '0x' + word(99), 'pending state too');

  const revert = await node.call('mc_call', [{ to: address, data: encodeCall('fail()') }, 'latest']);
  t.equal(revert.error?.code, 3);
  t.equal(revert.error?.message, 'execution reverted: nope');
  t.match(revert.error?.data, /^0x08c379a0/);
  const estRevert = await node.call('mc_estimateGas', [{ to: address, data: encodeCall('fail()') }]);
  t.equal(estRevert.error?.code, 3);

  // A failing transaction is mined with status 0 and charges the gas.
  const failing = rawTx(DEV[2].key, { nonce: 2n, to: hexToBytes(address), data: hexToBytes(encodeCall('fail()')), gas: 60_000n });
  await node.rpc('mc_sendRawTransaction', [failing.raw]);
  const failReceipt = await receiptOf(failing.hash);
  t.equal(failReceipt.status, '0x0');
  t.same(failReceipt.logs, []);
  t.equal(await node.rpc('mc_estimateGas', [{ from: DEV[1].address, to: DEV[2].address, value: '0x1' }]), '0x3e8');
});

t.test('mc_sendTransaction signs with an unlocked dev account', async (t) => {
  const hash = await node.rpc('mc_sendTransaction', [{ from: DEV[0].address, to: DEV[2].address, value: '0x10' }]);
  const receipt = await receiptOf(hash);
  t.equal(receipt.status, '0x1');
  const tx = await node.rpc('mc_getTransactionByHash', [hash]);
  t.equal(tx.gas, '0x15f90', 'default gas 90000');
  t.equal(tx.gasPrice, '0x4a817c800', 'default gas price 20 Gsha');
  const locked = await node.call('mc_sendTransaction', [{ from: '0x' + '77'.repeat(20), to: DEV[2].address }]);
  t.same(locked.error, { code: -32000, message: 'authentication needed: password or unlock' });
  const sig = await node.rpc('mc_sign', [DEV[0].address, '0xdeadbeef']);
  t.match(sig, /^0x[0-9a-f]{130}$/);
  t.ok(sig.endsWith('1b') || sig.endsWith('1c'), 'v is 27 or 28');
});

t.test('pending block and tags', async (t) => {
  const pending = await node.rpc('mc_getBlockByNumber', ['pending', false]);
  t.equal(pending.number, null);
  t.equal(pending.hash, null);
  t.equal(pending.nonce, null);
  t.equal(pending.logsBloom, null);
  const head = await node.rpc('mc_getBlockByNumber', ['latest', false]);
  t.equal(pending.parentHash, head.hash);
  t.equal(await node.rpc('mc_getBlockByNumber', ['0xffffff', false]), null);
  t.equal(await node.rpc('mc_getBlockByHash', ['0x' + '00'.repeat(32), false]), null);
  t.equal(await node.rpc('mc_getTransactionByHash', ['0x' + '00'.repeat(32)]), null);
  t.equal(await node.rpc('mc_getTransactionReceipt', ['0x' + '00'.repeat(32)]), null);
  t.equal(await node.rpc('mc_getBalance', [DEV[1].address, 'pending']), await node.rpc('mc_getBalance', [DEV[1].address, 'latest']));
  const bad = await node.call('mc_getBalance', [DEV[1].address, 'newest']);
  t.equal(bad.error?.code, -32602);
  t.match(bad.error?.message, /invalid argument 1/);
  const future = await node.call('mc_getBalance', [DEV[1].address, '0xffffff']);
  t.same(future.error, { code: -32000, message: 'header not found' });
  const odd = await node.call('mc_getCode', ['0x123', 'latest']);
  t.match(odd.error, { code: -32602, message: /invalid argument 0: hex string has odd length/ });
});

t.test('IPC serves the same methods', async (t) => {
  const http = await node.call('mc_blockNumber');
  const ipc = await node.ipcCall('mc_blockNumber');
  t.equal(ipc.result, http.result);
  t.equal((await node.ipcCall('mc_getBalance', [DEV[1].address, 'latest'])).result, await node.rpc('mc_getBalance', [DEV[1].address, 'latest']));
});

// Last: every mc_call and mc_estimateGas above was also answered by the library EVM (startNode's
// --rpc.fastcall.verify 1) and compared.
t.test('the call interpreter agreed with the library EVM on every call', async (t) => {
  const c = await fastCallCounters(node);
  t.ok(c.verified > 0, `${c.verified} answers compared`);
  t.equal(c.disagreements, 0);
  t.equal(c.faults, 0);
});
