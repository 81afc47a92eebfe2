// SCS methods one by one: shapes of both variants, refusals with clear errors, the pool with a
// nonce gap, run-time app chains, the endpoint's paths, and the VNODE side (via, vnode_*).

import t from 'tap';
import { postJson, startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV, rawTx } from '../../helpers/accounts.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { contractAddress } from '../../../src/chain/transaction.js';
import { toChecksumAddress } from '../../../src/encoding/address.js';
import { callData, counter, deployTx, scsOf, sendApp, transferTx, type Scs } from './scsHelpers.js';
import { testDir } from '../../helpers/testDir.js';

const CHAIN = '0x' + 'c1'.repeat(20);
const BIG_SUPPLY = 123456789012345678901234567890n;
let node: TestNode;
let scs: Scs;

t.before(async () => {
  const declared = [{ address: CHAIN, tokenSupply: '0x' + BIG_SUPPLY.toString(16), flushRound: 100 }];
  node = await startNode(testDir(t), ['--mining.mode', 'instant', '--appChains', JSON.stringify(declared)]);
  scs = scsOf(node);
});
t.teardown(() => node.stop());

const errorOf = async (method: string, params: unknown[]) => (await scs.call(method, params)).error;

t.test('the endpoint: paths, variants, info methods, the VNODE side', async (t) => {
  const url = node.scsUrl!;
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.equal((await fetch(url)).status, 200, 'GET health check');
  t.equal((await fetch(`${url}/nope`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status, 404);
  t.equal(await scs.rpc('scs_listening'), true);
  t.equal(await scs.rpc('scs_protocolVersion'), '0x1');
  t.match(await scs.rpc('scs_datadir'), /^\//);
  const id = await scs.rpc('scs_getSCSId');
  t.match(id, /^0x[0-9a-f]{40}$/);
  t.equal(await scs.debug('GetScsId'), id);
  const onRoot = await postJson(url, { jsonrpc: '2.0', id: 1, method: 'ScsRPCMethod.GetScsId', params: {} });
  t.equal(onRoot.error?.code, -32601, 'rpcdebug only on /rpc');
  const onDebug = await postJson(`${url}/rpc`, { jsonrpc: '2.0', id: 1, method: 'scs_getSCSId', params: [] });
  t.equal(onDebug.result, id, 'scs_* on /rpc too (the explorer sends both there)');
  const folded = await postJson(`${url}/rpc`, { jsonrpc: '2.0', id: 7, method: 'scsrpcmethod.getscsid', params: {} });
  t.equal(folded.result, id, 'method names fold case');
  t.equal(await node.rpc('vnode_scsService'), true);
  t.equal(await node.rpc('vnode_serviceCfg'), ':50062');
  t.equal(await node.rpc('vnode_address'), DEV[0].address);
});

t.test('unknown app chains, pending, bad ranges: clear errors', async (t) => {
  const other = '0x' + '99'.repeat(20);
  for (const [method, params] of [
    ['scs_getBlockNumber', [other]], ['scs_getDappState', [other]], ['scs_getBalance', [other, DEV[0].address]],
    ['scs_getExchangeInfo', [other, 0, 1, 0, 1]], ['scs_getTxpool', [other]],
  ] as const) {
    const err = await errorOf(method, [...params]);
    t.equal(err?.code, -32000, method);
    t.equal(err?.message, `unknown app chain ${other}: this SCS does not serve it`);
  }
  const dbg = await scs.debug('GetBlockNumber', { SubChainAddr: other }).catch((e) => e.rpcError);
  t.equal(dbg.code, -32000);
  const pending = await errorOf('scs_getBlock', [CHAIN, 'pending']);
  t.equal(pending?.code, -32602);
  t.match(pending?.message, /no pending block/);
  const range = await errorOf('scs_getBlockList', [CHAIN, '0x2', '0x1']);
  t.equal(range?.code, -32602);
  t.equal(range?.message, 'invalid block range: end block 1 is below start block 2');
  t.equal(await scs.rpc('scs_getBlock', [CHAIN, '0x64']), null, 'beyond the head');
  t.equal((await errorOf('scs_getBlock', [CHAIN]))?.code, -32602, 'the block is required');
  const missing = await scs.debug('GetNonce', { SubChainAddr: CHAIN }).catch((e) => e.rpcError);
  t.same(missing, { code: -32602, message: 'missing value for required argument Sender' });
  const positional = await scs.debug('GetScsId', [] as unknown as Record<string, unknown>);
  t.match(positional, /^0x/, 'an empty array is no params');
});

t.test('transactions from the VNODE: via, flags, nonces, the pool', async (t) => {
  const key = DEV[1].key;
  const from = DEV[1].address;
  const code = counter().bytecode;
  const wrongVia = deployTx(key, { chain: CHAIN, nonce: 0n, via: DEV[1].address }, code);
  const viaError = await node.call('mc_sendRawTransaction', [wrongVia.raw]);
  t.same(viaError.error, { code: -32000, message: 'via error' });
  const noVia = rawTx(key, { nonce: 0n, to: hexToBytes(CHAIN), data: hexToBytes(code), gas: 0n, shardingFlag: 3n });
  t.equal((await node.call('mc_sendRawTransaction', [noVia.raw])).error?.message, 'via error');
  const elsewhere = deployTx(key, { chain: '0x' + '98'.repeat(20), nonce: 0n }, code);
  t.match((await node.call('mc_sendRawTransaction', [elsewhere.raw])).error?.message, /unknown app chain/);
  const short = rawTx(key, { nonce: 0n, to: hexToBytes(CHAIN), data: hexToBytes('0x1234'), gas: 0n, shardingFlag: 1n, via: hexToBytes(DEV[0].address) });
  t.match((await node.call('mc_sendRawTransaction', [short.raw])).error?.message, /20-byte Dapp address/);

  // A nonce gap: nonce 1 waits (queued) until nonce 0 arrives.
  const later = transferTx(key, { chain: CHAIN, nonce: 1n, value: 1n }, DEV[2].address);
  t.equal(await node.rpc('mc_sendRawTransaction', [later.raw]), later.hash);
  const pool = await scs.rpc('scs_getTxpool', [CHAIN]);
  t.same(pool.pending, {});
  const queued = pool.queued[toChecksumAddress(hexToBytes(from))];
  t.same(Object.keys(queued), ['1'], 'sender checksummed, nonce in decimal');
  t.equal(queued['1'].transactionHash, later.hash);
  t.equal(queued['1'].blockNumber, null);
  t.same(await scs.debug('GetTxpoolCount', { SubChainAddr: CHAIN }), { pending: 0, queued: 1 });
  t.equal(Object.keys((await scs.debug('GetTxpool', { SubChainAddr: CHAIN })).queued).length, 1);
  const waiting = await scs.rpc('scs_getTransactionByHash', [CHAIN, later.hash]);
  t.equal(waiting.blockHash, null);
  t.equal(waiting.nonce, '0x1');
  t.equal(await scs.rpc('scs_getReceiptByHash', [CHAIN, later.hash]), null, 'no receipt while waiting');
  t.equal((await node.call('mc_sendRawTransaction', [later.raw])).error?.message, `already known: ${later.hash}`);

  const deploy = deployTx(key, { chain: CHAIN, nonce: 0n }, code);
  const deployed = await sendApp(node, scs, CHAIN, deploy);
  t.equal(deployed.contractAddress, bytesToHex(contractAddress(hexToBytes(from), 0n)));
  const transfer = await waitFor(() => scs.rpc('scs_getReceiptByHash', [CHAIN, later.hash]), 'the queued transfer');
  t.equal(transfer.failed, true, 'no tokens to send');
  t.equal(await scs.rpc('scs_getNonce', [CHAIN, from]), 2);
  t.same(await scs.debug('GetTxpoolCount', { SubChainAddr: CHAIN }), { pending: 0, queued: 0 });
  const low = await node.call('mc_sendRawTransaction', [transferTx(key, { chain: CHAIN, nonce: 1n, value: 1n }, DEV[2].address).raw]);
  t.same(low.error, { code: -32000, message: 'nonce too low: next nonce 2, tx nonce 1' });
  t.equal(await node.rpc('mc_getTransactionCount', [from, 'latest']), '0x0', 'the main-chain nonce is untouched');
});

t.test('transaction and receipt shapes in both variants', async (t) => {
  const tx = deployTx(DEV[0].key, { chain: CHAIN, nonce: 0n }, counter().bytecode);
  await sendApp(node, scs, CHAIN, tx);
  const full = await scs.rpc('scs_getTransactionByNonce', [CHAIN, DEV[0].address, '0x0']);
  t.same(Object.keys(full).sort(), [
    'blockHash', 'blockNumber', 'contractAddress', 'failed', 'from', 'gas', 'gasPrice', 'hash', 'input', 'logs', 'logsBloom', 'nonce',
    'r', 's', 'shardingFlag', 'status', 'to', 'transactionHash', 'transactionIndex', 'v', 'value', 'via',
  ]);
  t.equal(full.shardingFlag, '0x3');
  t.equal(full.to, CHAIN);
  t.equal(full.via, DEV[0].address);
  t.equal(full.transactionIndex, '0x0');
  t.same(await scs.rpc('scs_getTransactionByNonce', [CHAIN, DEV[0].address, 0]), full, 'nonce as a JSON number');
  const debugTx = await scs.debug('GetTransactionByHash', { SubChainAddr: CHAIN, Hash: tx.hash });
  t.equal(debugTx.blockNumber, Number(full.blockNumber), 'rpcdebug integers are numbers');
  t.equal(debugTx.shardingFlag, 3);
  const text = await scs.debugText('GetTransactionByHash', { subchainaddr: CHAIN, hash: tx.hash });
  t.match(text, new RegExp(`"r":${BigInt(full.r)}[,}]`), 'r written exactly, unquoted');
  const receipt = await scs.debug('GetReceiptByNonce', { SubChainAddr: CHAIN, Sender: DEV[0].address, Nonce: '0x0' });
  t.equal(receipt.status, '0x1', 'status is a QUANTITY in rpcdebug too');
  t.equal(debugTx.status, '0x1', 'also in the transaction-with-receipt shape');
  t.equal(debugTx.nonce, 0, 'while nonces stay exact numbers');
  t.equal((await scs.debug('GetReceiptByHash', { SubChainAddr: CHAIN, Hash: tx.hash })).status, '0x1');
  t.equal((await scs.debug('GetTransactionByNonce', { SubChainAddr: CHAIN, Sender: DEV[0].address, Nonce: 0 })).status, '0x1');
  t.equal(full.status, '0x1');
  t.equal(receipt.contractAddress, full.contractAddress);
  t.equal(await scs.rpc('scs_getReceiptByHash', [CHAIN, '0x' + '00'.repeat(32)]), null);
  t.same(await scs.rpc('scs_getReceiptByNonce', [CHAIN, DEV[0].address, '0x0']), await scs.rpc('scs_getReceiptByHash', [CHAIN, tx.hash]));
});

t.test('blocks, block lists, numbers and balances in both variants', async (t) => {
  const height = BigInt(await scs.rpc('scs_getBlockNumber', [CHAIN]));
  t.ok(height >= 2n);
  t.equal(await scs.debug('GetBlockNumber', { SubChainAddr: CHAIN }), Number(height));
  const list = await scs.rpc('scs_getBlockList', [CHAIN, '0x1', '0x' + (height + 5n).toString(16)]);
  t.equal(list.blockList.length, Number(height), 'clamped to the head');
  t.equal(list.startBlk, '0x1');
  t.equal(list.microchainAddress, toChecksumAddress(hexToBytes(CHAIN)), 'checksummed, as the docs show it');
  const b1 = list.blockList[0];
  t.same(Object.keys(b1).sort(), ['extraData', 'hash', 'miner', 'number', 'parentHash', 'receiptsRoot', 'stateRoot', 'timestamp', 'transactions', 'transactionsRoot']);
  t.equal(b1.miner, await scs.rpc('scs_getSCSId'));
  t.equal(list.blockList[1].parentHash, b1.hash);
  t.same(await scs.rpc('scs_getBlock', [CHAIN, '0x1']), b1);
  const dbg = await scs.debug('GetBlock', { SubChainAddr: CHAIN, Number: 1 });
  t.equal(dbg.Hash, b1.hash);
  t.equal(dbg.Header.number, 1);
  t.equal(dbg.Header.parentHash, b1.parentHash);
  t.equal(dbg.Txs[0].transactionHash, b1.transactions[0].transactionHash);
  t.same((await scs.debug('GetBlock', { subchainaddr: CHAIN, number: '0x1' })).Hash, b1.hash, 'member names fold case');
  const blocks = await scs.debug('GetBlocks', { SubChainAddr: CHAIN, Start: 0, End: 2 });
  t.same(blocks.map((b: any) => b.Header.number), [0, 1, 2]);

  // Before the DappBase no one holds tokens; the supply waits for it.
  t.equal(await scs.rpc('scs_getDappState', [CHAIN]), 1, 'the first deploy above made the DappBase');
  const base = (await scs.rpc('scs_getDappList', [CHAIN]))[0];
  t.equal(await scs.rpc('scs_getBalance', [CHAIN, base]), '0x' + BIG_SUPPLY.toString(16));
  const text = await scs.debugText('GetBalance', { SubChainAddr: CHAIN, Sender: base });
  t.match(text, new RegExp(`"result":${BIG_SUPPLY}}$`), 'an exact JSON number beyond 2^53');
  t.equal((await scs.debug('GetSubChainInfo', { SubChainAddr: CHAIN })).Balance, Number(BIG_SUPPLY));
  t.equal(await scs.rpc('scs_getBalance', [CHAIN, base, '0x0']), '0x0', 'at genesis');
  t.equal(await scs.rpc('scs_getBalance', [CHAIN, base, 'not a block']), '0x' + BIG_SUPPLY.toString(16), 'an invalid block means the head');
});

t.test('scs_createAppChain: derived and given addresses, defaults, refusals naming the key', async (t) => {
  const derived = await scs.rpc('scs_createAppChain', [{ flushRound: 3 }]);
  t.match(derived, /^0x[0-9a-f]{40}$/);
  const given = '0x' + 'c2'.repeat(20);
  t.equal(await scs.rpc('scs_createAppChain', [{ address: given, owner: DEV[1].address, exchangeRate: 5, scsList: [DEV[2].address] }]), given);
  t.same(await scs.rpc('scs_getMicroChainList'), [CHAIN, derived, given]);
  const info = await scs.rpc('scs_getMicroChainInfo', [given]);
  t.equal(info.owner.toLowerCase(), DEV[1].address);
  t.same(info.scsList.map((a: string) => a.toLowerCase()), [DEV[2].address]);
  t.equal(await scs.rpc('scs_getBlockNumber', [given]), '0x0');
  t.equal((await scs.rpc('scs_getBlock', [given, 'earliest'])).number, '0x0');
  const again = await errorOf('scs_createAppChain', [{ address: given }]);
  t.same(again, { code: -32000, message: `app chain ${given} already exists` });
  t.same(await errorOf('scs_createAppChain', [{ flushRound: 0 }]), { code: -32602, message: 'invalid argument 0: field "flushRound": must be at least 1' });
  t.same(await errorOf('scs_createAppChain', [{ flushround: 3 }]), {
    code: -32602,
    message: 'invalid argument 0: field "flushround": unknown key (known: address, owner, tokenSupply, exchangeRate, flushRound, blockReward, txReward, viaReward, bondLimit, scsList)',
  });
  t.equal((await errorOf('scs_createAppChain', [{ tokenSupply: 5 }]))?.message, 'invalid argument 0: field "tokenSupply": expected a hex string, got number');
  t.equal((await errorOf('scs_createAppChain', [{ scsList: ['0x12'] }]))?.message, 'invalid argument 0: field "scsList[0]": hex string has length 2, want 40 for 20-byte value');
  // A run-time chain takes transactions at once.
  const receipt = await sendApp(node, scs, given, deployTx(DEV[1].key, { chain: given, nonce: 0n }, counter().bytecode));
  t.equal(receipt.status, '0x1');
  const any = await scs.call('scs_directCall', [{ to: given, dappAddr: receipt.contractAddress, data: callData('get()') }]);
  t.equal(any.result, '0x' + '0'.repeat(64));
});

t.test('scs.blockPeriod adds interval blocks without transactions', async (t) => {
  const ticking = await startNode(testDir(t), ['--mining.mode', 'off', '--scs.blockPeriod', '1', '--appChains', JSON.stringify([{ address: CHAIN }])]);
  t.teardown(() => ticking.stop());
  const tickScs = scsOf(ticking);
  await waitFor(async () => Number(await tickScs.rpc('scs_getBlockNumber', [CHAIN])) >= 2, 'two interval blocks');
  const block = await tickScs.rpc('scs_getBlock', [CHAIN, '0x2']);
  t.same(block.transactions, []);
  t.equal(block.parentHash, (await tickScs.rpc('scs_getBlock', [CHAIN, '0x1'])).hash);
});
