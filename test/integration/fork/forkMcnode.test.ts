// Fork mode against a real mcnode upstream on loopback (docs/fork-mode.md), behind a counting
// proxy: lazy state, history in mcnode's shapes, logs merged across the fork block, the dev
// funding block, restart and re-fork asking the upstream nothing, the upstream killed mid-run
// and restarted, metrics, and export/import of the fork with the upstream down.

import t from 'tap';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Wallet } from 'ethers';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { CHAIN_ID, DEV, GWEI, rawTx } from '../../helpers/accounts.js';
import { SLOTS_INIT, countingProxy, fillCall, filledSum, sumCall } from '../../helpers/forkUpstream.js';
import { word } from '../../helpers/abi.js';
import { mcnode } from '../../fixtures/chains/prebuilt.js';
import { testDir } from '../../helpers/testDir.js';

const X = '0x00000000000000000000000000000000000000aa';
const Y = '0x00000000000000000000000000000000000000bb';
const Z = '0x00000000000000000000000000000000000000cc';
const MC = 10n ** 18n;
const hex = (n: bigint | number) => '0x' + BigInt(n).toString(16);

async function mined(node: TestNode, raw: string) {
  const hash = await node.rpc('mc_sendRawTransaction', [raw]);
  return waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), `receipt ${hash}`);
}

t.test('a fork of an mcnode upstream', async (t) => {
  const dir = testDir(t);
  const upDir = path.join(dir, 'up');
  let up = await startNode(upDir, ['--mining.mode', 'instant']);
  t.teardown(() => up.stop());
  const proxy = await countingProxy(up.url);
  t.teardown(() => proxy.close());

  // Upstream history: a contract with 200 slots (two txs, two logs), a classic and a MOAC transfer.
  const deploy = await mined(up, rawTx(DEV[0].key, { nonce: 0n, data: hexToBytes(SLOTS_INIT), gas: 200_000n }).raw);
  const contract: string = deploy.contractAddress;
  const fills = [
    await mined(up, rawTx(DEV[0].key, { nonce: 1n, to: hexToBytes(contract), data: hexToBytes(fillCall(0, 100)), gas: 3_000_000n }).raw),
    await mined(up, rawTx(DEV[0].key, { nonce: 2n, to: hexToBytes(contract), data: hexToBytes(fillCall(100, 200)), gas: 3_000_000n }).raw),
  ];
  const classic = new Wallet(DEV[1].key);
  const sign = (fields: Record<string, unknown>) =>
    classic.signTransaction({ type: 0, chainId: CHAIN_ID, gasPrice: 20n * GWEI, gasLimit: 21_000n, to: X, value: 7n, ...fields });
  const classicReceipt = await mined(up, await sign({ nonce: 0 }));
  await mined(up, rawTx(DEV[0].key, { nonce: 3n, to: hexToBytes(Y), value: 9n, gas: 21_000n }).raw);
  const forkBlock = Number(await up.rpc('mc_blockNumber'));
  const upLogs = await up.rpc('mc_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: contract }]);
  t.equal(upLogs.length, 2);
  const upBlock = await up.rpc('mc_getBlockByNumber', [hex(forkBlock), true]);
  // The upstream moves on after the fork block; the fork does not see it.
  await mined(up, rawTx(DEV[0].key, { nonce: 4n, to: hexToBytes(Y), value: 1n, gas: 21_000n }).raw);

  // Upstream down at start: a clear message, a non-zero exit, no datadir.
  const deadDir = path.join(dir, 'dead');
  const dead = mcnode('--datadir', deadDir, '--fork.url', 'http://127.0.0.1:9', '--fork.retries', '0', '--ipcdisable', '--rpcport', '0', '--scsrpcport', '0');
  t.not(dead.status, 0, 'non-zero exit');
  t.match(dead.stderr, /cannot fork http:\/\/127\.0\.0\.1:9/);
  t.notOk(existsSync(deadDir) && readdirSync(deadDir).length, 'nothing written');

  const forkDir = path.join(dir, 'fork');
  const forkArgs = ['--fork.url', proxy.url, '--fork.block', String(forkBlock), '--mining.mode', 'instant', '--fork.retries', '1', '--fork.timeout', '5000', '--metrics', '--metrics.port', '0'];
  proxy.reset();
  let fork = await startNode(forkDir, forkArgs);
  t.teardown(() => fork.stop());
  // dialect and ids, the fork block, then the accounts the funding block touches (ten dev accounts, 0x…64 and the zero address)
  // (mcnode serves mc_getAccountInfo: one call per account, no balance/nonce/code reads)
  t.ok(proxy.calls > 0 && proxy.calls <= 6 + 12, `start: ${proxy.calls} calls in ${proxy.requests} requests`);
  t.ok(proxy.requests <= 6 + 12, `start: ${proxy.requests} requests`);
  t.equal(proxy.methods.get('mc_getAccountInfo'), 12, 'one account read per account');
  t.notOk(proxy.methods.has('mc_getBalance'), 'no separate balance reads');
  t.ok(proxy.methods.has('mc_blockNumber'), 'mc dialect detected');

  t.equal(await fork.rpc('mc_chainId'), '0x64', 'the upstream\'s chain id');
  t.equal(await fork.rpc('net_version'), await up.rpc('net_version'));
  t.equal(await fork.rpc('net_peerCount'), '0x0', 'p2p off');
  // The first local block funds the dev accounts; its parent is the fork block.
  t.equal(await fork.rpc('mc_blockNumber'), hex(forkBlock + 1));
  const first = await fork.rpc('mc_getBlockByNumber', [hex(forkBlock + 1), false]);
  t.equal(first.parentHash, upBlock.hash);
  t.equal(await fork.rpc('mc_getBalance', [DEV[2].address, 'latest']), hex(1_000_000n * MC));
  t.equal(await fork.rpc('mc_getTransactionCount', [DEV[0].address, 'latest']), '0x4', 'nonce from the upstream at the fork block');

  t.test('lazy state: fetched once, then cached', async (t) => {
    proxy.reset();
    t.equal(await fork.rpc('mc_getBalance', [Y, 'latest']), '0x9', 'the fork block\'s value, not the upstream head\'s');
    t.ok(proxy.calls >= 1 && proxy.calls <= 3, `one account: ${proxy.calls} calls`);
    proxy.reset();
    t.equal(await fork.rpc('mc_getBalance', [Y, 'latest']), '0x9');
    t.equal(await fork.rpc('mc_getBalance', [Y, hex(forkBlock)]), '0x9', 'at the fork block');
    t.equal(proxy.calls, 0, 'asked nothing twice');

    // A cold call touching 200 slots: at most one upstream call per account and per slot.
    proxy.reset();
    t.equal(BigInt(await fork.rpc('mc_call', [{ to: contract, data: sumCall(200) }, 'latest'])), filledSum(200));
    t.ok(proxy.calls > 0 && proxy.calls <= 203, `cold call: ${proxy.calls} upstream calls in ${proxy.requests} requests`);
    t.equal(await fork.rpc('mc_getCode', [contract, 'latest']), await up.rpc('mc_getCode', [contract, 'latest']));
    t.equal(await fork.rpc('mc_getStorageAt', [contract, '0xc7', 'latest']), '0x' + word(200));
    proxy.reset();
    t.equal(BigInt(await fork.rpc('mc_call', [{ to: contract, data: sumCall(200) }, 'latest'])), filledSum(200));
    t.equal(proxy.calls, 0, 'warm call asks nothing');
  });

  t.test('history at and below the fork block, in mcnode\'s shapes, cached', async (t) => {
    t.same(await fork.rpc('mc_getBlockByNumber', [hex(forkBlock), true]), upBlock);
    t.same(await fork.rpc('mc_getTransactionReceipt', [deploy.transactionHash]), deploy);
    t.same(await fork.rpc('mc_getTransactionReceipt', [classicReceipt.transactionHash]), classicReceipt);
    t.same(await fork.rpc('mc_getTransactionByHash', [fills[0].transactionHash]), await up.rpc('mc_getTransactionByHash', [fills[0].transactionHash]));
    t.same(await fork.rpc('mc_getBlockByHash', [upBlock.hash, false]), await up.rpc('mc_getBlockByHash', [upBlock.hash, false]));
    proxy.reset();
    t.same(await fork.rpc('mc_getBlockByNumber', [hex(forkBlock), true]), upBlock);
    t.same(await fork.rpc('mc_getTransactionReceipt', [deploy.transactionHash]), deploy);
    t.equal(proxy.calls, 0, 'cached');
    t.equal(await fork.rpc('mc_getBlockByNumber', [hex(forkBlock + 2), false]), null, 'the upstream\'s later blocks are not the fork\'s');
  });

  t.test('MOAC and classic transactions on the fork; logs merged across the fork block', async (t) => {
    const local = await mined(fork, rawTx(DEV[0].key, { nonce: 4n, to: hexToBytes(contract), data: hexToBytes(fillCall(200, 210)), gas: 1_000_000n }).raw);
    t.equal(local.status, '0x1');
    t.equal(BigInt(local.blockNumber), BigInt(forkBlock + 2));
    const transfer = await mined(fork, await sign({ nonce: 1, value: 1n }));
    t.equal(transfer.status, '0x1');
    t.equal(await fork.rpc('mc_getBalance', [X, 'latest']), '0x8');
    t.equal(BigInt(await fork.rpc('mc_call', [{ to: contract, data: sumCall(210) }, 'latest'])), filledSum(210));
    const logs = await fork.rpc('mc_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: contract }]);
    t.same(logs.slice(0, 2), upLogs, 'the upstream\'s logs as it serves them');
    t.equal(logs.length, 3);
    t.match(logs[2], { blockHash: local.blockHash, topics: ['0x' + word(210)] });
    const refused = await fork.call('mc_getProof', [contract, [], 'latest']);
    t.match(refused.error?.message, /proofs are not served in fork mode/);
  });

  t.test('metrics count upstream requests, cache hits and misses', async (t) => {
    const url = /^metrics\s+(http:\/\/\S+\/metrics)$/m.exec(fork.stdout())?.[1];
    const text = await (await fetch(url!)).text();
    const value = (name: string) => Number(new RegExp(`^mcnode_${name} (\\d+)$`, 'm').exec(text)?.[1]);
    t.ok(value('fork_upstream_requests_total') > 0);
    t.ok(value('fork_cache_hits_total') > 0);
    t.ok(value('fork_cache_misses_total') > 0);
  });

  t.test('the upstream killed mid-run and restarted', async (t) => {
    await up.stop();
    const missing = await fork.call('mc_getBalance', [Z, 'latest']);
    t.equal(missing.error?.code, -32000);
    t.match(missing.error?.message, /^fork upstream unavailable: /);
    const slot = await fork.call('mc_getStorageAt', [contract, '0x1f4', 'latest']);
    t.match(slot.error, { code: -32000, message: /^fork upstream unavailable: / }, 'an uncached slot');
    // cached and local still served; blocks are still sealed
    t.equal(await fork.rpc('mc_getBalance', [Y, 'latest']), '0x9');
    t.same(await fork.rpc('mc_getTransactionReceipt', [deploy.transactionHash]), deploy);
    const moved = await mined(fork, rawTx(DEV[2].key, { nonce: 0n, to: hexToBytes(Y), value: 2n, gas: 21_000n }).raw);
    t.equal(moved.status, '0x1');
    t.equal(await fork.rpc('mc_getBalance', [Y, 'latest']), '0xb');

    up = await startNode(upDir, ['--mining.mode', 'off']);
    proxy.target = up.url;
    t.equal(await fork.rpc('mc_getBalance', [Z, 'latest']), '0x0', 'answered once the upstream is back');
    t.equal(await fork.rpc('mc_getStorageAt', [contract, '0x1f4', 'latest']), '0x' + word(0), 'nothing wrong was cached');
  });

  let head: string;
  t.test('restart and re-fork of the same block ask the upstream nothing already fetched', async (t) => {
    head = (await fork.rpc('mc_getBlockByNumber', ['latest', false])).hash;
    await fork.stop();
    proxy.reset();
    fork = await startNode(forkDir, forkArgs);
    t.equal((await fork.rpc('mc_getBlockByNumber', ['latest', false])).hash, head, 'the fork continues');
    t.equal(await fork.rpc('mc_getBalance', [Y, 'latest']), '0xb');
    t.equal(BigInt(await fork.rpc('mc_call', [{ to: contract, data: sumCall(210) }, 'latest'])), filledSum(210));
    t.same(await fork.rpc('mc_getTransactionReceipt', [deploy.transactionHash]), deploy);
    t.equal((await fork.rpc('mc_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: contract }])).length, 3);
    t.equal(proxy.calls, 0, `restart asked nothing (${[...proxy.methods.keys()].join(', ')})`);

    t.equal(await fork.rpc('anvil_reset', [{ forking: { jsonRpcUrl: proxy.url, blockNumber: forkBlock } }]), null);
    t.equal(await fork.rpc('mc_blockNumber'), hex(forkBlock + 1), 'back to the fork block plus the funding block');
    t.equal(await fork.rpc('mc_getBalance', [Y, 'latest']), '0x9', 'local changes gone');
    t.equal(BigInt(await fork.rpc('mc_call', [{ to: contract, data: sumCall(200) }, 'latest'])), filledSum(200));
    t.equal(proxy.calls, 0, `re-fork of the same block asked nothing (${[...proxy.methods.keys()].join(', ')})`);
    t.equal(await fork.rpc('mc_getBalance', [DEV[2].address, 'latest']), hex(1_000_000n * MC), 'dev accounts funded again');

    // anvil_reset() without forking: back to the fork block again, after a local block.
    await mined(fork, rawTx(DEV[2].key, { nonce: 0n, to: hexToBytes(Y), value: 2n, gas: 21_000n }).raw);
    t.equal(await fork.rpc('mc_getBalance', [Y, 'latest']), '0xb');
    t.equal(await fork.rpc('anvil_reset', []), null);
    t.equal(await fork.rpc('mc_getBalance', [Y, 'latest']), '0x9');
    const local = await mined(fork, rawTx(DEV[0].key, { nonce: 4n, to: hexToBytes(contract), data: hexToBytes(fillCall(200, 210)), gas: 1_000_000n }).raw);
    t.equal(local.status, '0x1');
    head = (await fork.rpc('mc_getBlockByNumber', ['latest', false])).hash;
    await fork.stop();
  });

  // Known fault (since merging main at f679ab4): the funding block sealed by anvil_reset() after
  // local blocks in the same process re-executes on import to another state root (balances and
  // nonces agree; the difference is elsewhere in the fork trie). Passed before that merge.
  t.test('export and import of the fork with the upstream down', { todo: 'state root mismatch on import after anvil_reset (see comment)' }, async (t) => {
    await up.stop();
    const file = path.join(dir, 'fork.rlp');
    const exp = mcnode('export', file, '--datadir', forkDir, '--ipcdisable', '--verbosity', '1');
    t.equal(exp.status, 0, exp.stderr);
    const otherDir = path.join(dir, 'imported');
    const imp = mcnode('import', file, '--datadir', otherDir, '--ipcdisable', '--verbosity', '1');
    t.equal(imp.status, 0, imp.stderr);
    t.match(imp.stdout, head);
    const other = await startNode(otherDir, ['--mining.mode', 'off']);
    t.teardown(() => other.stop());
    t.equal((await other.rpc('mc_getBlockByNumber', ['latest', false])).hash, head, 'the same chain');
    t.equal(await other.rpc('mc_getBalance', [Y, 'latest']), '0x9');
    t.equal(BigInt(await other.rpc('mc_call', [{ to: contract, data: sumCall(210) }, 'latest'])), filledSum(210));
    await other.stop();
  });
});
