// Fork mode over an Ethereum-dialect upstream: an Anvil process (the @foundry-rs/anvil dev
// dependency) on loopback, behind a counting proxy. The fork detects eth_*, takes Anvil's chain
// id, reads accounts with eth_getAccountInfo, serves Anvil's history in mcnode's shapes and runs
// MOAC transactions on top.

import t from 'tap';
import path from 'node:path';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV, rawTx } from '../../helpers/accounts.js';
import { ANVIL_ACCOUNT, SLOTS_INIT, countingProxy, fillCall, filledSum, startAnvil, sumCall } from '../../helpers/forkUpstream.js';
import { testDir } from '../../helpers/testDir.js';

const X = '0x00000000000000000000000000000000000000aa';
const ANVIL_CHAIN = 31337n;

t.test('a fork of an Anvil upstream (eth_* dialect)', async (t) => {
  const anvil = await startAnvil();
  t.teardown(() => anvil.stop());
  const proxy = await countingProxy(anvil.url);
  t.teardown(() => proxy.close());

  const send = async (tx: Record<string, string>) => {
    const hash = await anvil.rpc('eth_sendTransaction', [{ from: ANVIL_ACCOUNT, ...tx }]);
    return waitFor(() => anvil.rpc('eth_getTransactionReceipt', [hash]), `receipt ${hash}`);
  };
  const deploy = await send({ data: SLOTS_INIT, gas: '0x30d40' });
  const contract: string = deploy.contractAddress;
  const fill = await send({ to: contract, data: fillCall(0, 50), gas: '0x200000' });
  t.equal(fill.status, '0x1');
  await send({ to: X, value: '0x7' });
  const forkBlock = Number(await anvil.rpc('eth_blockNumber'));
  const balance = await anvil.rpc('eth_getBalance', [ANVIL_ACCOUNT, 'latest']);

  proxy.reset();
  const fork: TestNode = await startNode(path.join(testDir(t), 'fork'), ['--fork.url', proxy.url, '--fork.block', String(forkBlock), '--mining.mode', 'instant']);
  t.teardown(() => fork.stop());
  t.ok(proxy.methods.has('eth_blockNumber'), 'eth dialect detected');
  t.notOk([...proxy.methods.keys()].some((m) => m.startsWith('mc_') && m !== 'mc_blockNumber'), 'no mc_* after the probe');
  t.equal(BigInt(await fork.rpc('mc_chainId')), ANVIL_CHAIN, 'Anvil\'s chain id');

  proxy.reset();
  t.equal(await fork.rpc('mc_getBalance', [ANVIL_ACCOUNT, 'latest']), balance);
  t.equal(await fork.rpc('mc_getTransactionCount', [ANVIL_ACCOUNT, 'latest']), '0x3');
  t.same([...proxy.methods.keys()], ['eth_getAccountInfo'], 'one eth_getAccountInfo per account');
  t.equal(proxy.calls, 1);
  t.equal(BigInt(await fork.rpc('mc_call', [{ to: contract, data: sumCall(50) }, 'latest'])), filledSum(50));
  t.equal(await fork.rpc('mc_getCode', [contract, 'latest']), await anvil.rpc('eth_getCode', [contract, 'latest']));

  // Anvil's history in mcnode's shapes.
  const receipt = await fork.rpc('mc_getTransactionReceipt', [deploy.transactionHash]);
  t.match(receipt, { transactionHash: deploy.transactionHash, blockHash: deploy.blockHash, contractAddress: contract, status: '0x1' });
  const block = await fork.rpc('mc_getBlockByNumber', [deploy.blockNumber, true]);
  t.equal(block.hash, deploy.blockHash);
  t.equal(block.transactions[0].hash, deploy.transactionHash);
  const logs = await fork.rpc('mc_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: contract }]);
  t.equal(logs.length, 1);
  t.equal(logs[0].transactionHash, fill.transactionHash);
  const first = await fork.rpc('mc_getBlockByNumber', ['0x' + (forkBlock + 1).toString(16), false]);
  t.equal(first.parentHash, (await anvil.rpc('eth_getBlockByNumber', ['0x' + forkBlock.toString(16), false])).hash, 'local blocks on the fork block');

  // A MOAC transaction on the fork (signed for Anvil's chain id), from a funded dev account.
  const raw = rawTx(DEV[0].key, { nonce: 0n, to: hexToBytes(X), value: 5n, gas: 21_000n }, ANVIL_CHAIN).raw;
  const hash = await fork.rpc('mc_sendRawTransaction', [raw]);
  const mined = await waitFor(() => fork.rpc('mc_getTransactionReceipt', [hash]), 'receipt');
  t.equal(mined.status, '0x1');
  t.equal(await fork.rpc('mc_getBalance', [X, 'latest']), '0xc');
  t.equal(await anvil.rpc('eth_getBalance', [X, 'latest']), '0x7', 'the upstream untouched');
});
