// Classic (Ethereum legacy) transactions through a running node: admitted beside MOAC ones,
// mined in one block under the right transaction root, formatted as Ethereum libraries expect,
// pool rules shared, and carried through export / import (refused on a chain without them).

import t from 'tap';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Transaction, Wallet } from 'ethers';
import { orderedTrieRoot } from '../../src/chain/block.js';
import { bytesToHex, hexToBytes } from '../../src/encoding/hex.js';
import { startNode, waitFor } from '../helpers/node.js';
import { CHAIN_ID, DEV, GWEI, rawTx } from '../helpers/accounts.js';
import { mcnode } from '../fixtures/chains/prebuilt.js';
import { testDir } from '../helpers/testDir.js';

const classic = new Wallet(DEV[1].key);
const sign = (fields: Record<string, unknown>) =>
  classic.signTransaction({ type: 0, chainId: CHAIN_ID, gasPrice: 20n * GWEI, gasLimit: 21_000n, to: DEV[2].address, value: 1n, ...fields });

t.test('MOAC and classic transactions in one block; export and import', async (t) => {
  const dir = testDir(t);
  const datadir = path.join(dir, 'a');
  const node = await startNode(datadir, ['--mining.mode', 'off']);
  t.teardown(() => node.stop());

  const moac = rawTx(DEV[0].key, { nonce: 0n, to: hexToBytes(DEV[2].address), value: 5n, gas: 21_000n });
  const transfer = await sign({ nonce: 0 });
  const create = await sign({ nonce: 1, to: null, value: 0n, gasLimit: 100_000n, data: '0x600a600c600039600a6000f3602a60005260206000f3' });
  const raws = [moac.raw, transfer, create];
  const hashes: string[] = [];
  for (const raw of raws) hashes.push(await node.rpc('eth_sendRawTransaction', [raw]));
  t.equal(hashes[0], moac.hash);
  t.equal(hashes[1], Transaction.from(transfer).hash, 'the hash ethers computes');
  t.equal(hashes[2], Transaction.from(create).hash);

  // Pool rules are the MOAC ones: nonce taken, same price is no replacement, a 10 % bump is.
  const same = await node.call('eth_sendRawTransaction', [await sign({ nonce: 0, value: 2n })]);
  t.equal(same.error?.code, -32000);
  t.match(same.error?.message, /replacement transaction underpriced/);
  const typed = await classic.signTransaction({ type: 2, chainId: CHAIN_ID, nonce: 2, gasLimit: 21_000n, to: DEV[2].address, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n });
  t.same((await node.call('eth_sendRawTransaction', [typed])).error, { code: -32000, message: 'transaction type not supported' });

  const pendingTx = await node.rpc('eth_getTransactionByHash', [hashes[1]]);
  t.match(pendingTx, { type: '0x0', syscnt: '0x0', shardingFlag: '0x0', from: DEV[1].address, nonce: '0x0', blockHash: null });

  t.equal(await node.rpc('miner_start', []), true);
  const receipts = [];
  for (const hash of hashes) receipts.push(await waitFor(() => node.rpc('eth_getTransactionReceipt', [hash]), `receipt ${hash}`));
  await node.rpc('miner_stop', []);
  t.equal(new Set(receipts.map((r) => r.blockHash)).size, 1, 'one block');
  for (const r of receipts) t.match(r, { status: '0x1', type: '0x0', effectiveGasPrice: '0x' + (20n * GWEI).toString(16) });
  t.ok(receipts[2].contractAddress, 'classic contract creation');
  t.equal(await node.rpc('eth_getCode', [receipts[2].contractAddress, 'latest']), '0x602a60005260206000f3');

  const block = await node.rpc('eth_getBlockByHash', [receipts[0].blockHash, true]);
  t.notOk('baseFeePerGas' in block, 'no baseFeePerGas');
  t.same(block.transactions.map((tx: { hash: string }) => tx.hash), hashes);
  t.equal(block.transactionsRoot, bytesToHex(orderedTrieRoot(raws.map(hexToBytes))), 'root over the raw MOAC and classic bytes');
  t.match(block.transactions[1], { type: '0x0', syscnt: '0x0', shardingFlag: '0x0', v: '0xeb', to: DEV[2].address.toLowerCase() });
  const balance = await node.rpc('eth_getBalance', [DEV[2].address, 'latest']);
  const head = block.hash;
  await node.stop();

  // export → a fresh datadir of the same (devnet) chain imports it to the same head
  const file = path.join(dir, 'chain.rlp');
  const exp = mcnode('export', file, '--datadir', datadir, '--ipcdisable', '--verbosity', '1');
  t.equal(exp.status, 0, exp.stderr);
  const other = path.join(dir, 'b');
  const imp = mcnode('import', file, '--datadir', other, '--ipcdisable', '--verbosity', '1');
  t.equal(imp.status, 0, imp.stderr);
  t.match(imp.stdout, new RegExp(`head #1 ${head}`));
  const again = await startNode(other, ['--mining.mode', 'off']);
  t.teardown(() => again.stop());
  t.equal(await again.rpc('eth_getBalance', [DEV[2].address, 'latest']), balance);
  t.same(await again.rpc('eth_getTransactionReceipt', [hashes[1]]), receipts[1]);
  await again.stop();

  // a chain whose genesis config names no classicTxBlock refuses the block (and sends)
  const config = path.join(dir, 'noclassic.json');
  writeFileSync(config, JSON.stringify({ genesis: { config: { chainId: 100 } } }));
  const third = path.join(dir, 'c');
  const refused = mcnode('import', file, '--config', config, '--datadir', third, '--ipcdisable', '--verbosity', '1');
  t.not(refused.status, 0);
  t.match(refused.stderr, /transaction 1: transaction type not supported/);
  const plain = await startNode(third, ['--config', config, '--mining.mode', 'off']);
  t.teardown(() => plain.stop());
  t.match((await plain.call('eth_sendRawTransaction', [await sign({ nonce: 0 })])).error, { code: -32000, message: /^transaction type not supported/ });
});

t.test('eth_call members of Ethereum libraries; a classic transaction survives a restart in the pool', async (t) => {
  const datadir = testDir(t);
  const node = await startNode(datadir, ['--mining.mode', 'off']);
  const call = { from: DEV[1].address, to: DEV[2].address, value: '0x1', data: '0x' };
  t.equal(await node.rpc('eth_call', [{ ...call, type: '0x0', chainId: '0x64', accessList: [] }, 'latest']), '0x');
  t.equal(await node.rpc('eth_estimateGas', [{ ...call, type: '0x0', chainId: '0x64', accessList: [] }]), '0x3e8', 'MOAC intrinsic gas');
  t.same((await node.call('eth_estimateGas', [{ ...call, type: '0x2' }])).error, { code: -32000, message: 'transaction type not supported' });
  t.match((await node.call('eth_call', [{ ...call, accessList: [{ address: DEV[2].address, storageKeys: [] }] }, 'latest'])).error, {
    code: -32000, message: /access lists are not accepted/,
  });
  t.match((await node.call('eth_call', [{ ...call, chainId: 'x' }, 'latest'])).error, { code: -32602, message: /chainId/ });

  const raw = await sign({ nonce: 0 });
  const hash = await node.rpc('eth_sendRawTransaction', [raw]);
  await node.stop('SIGKILL');
  const again = await startNode(datadir, ['--mining.mode', 'off']);
  t.teardown(() => again.stop());
  t.match(await again.rpc('eth_getTransactionByHash', [hash]), { hash, from: DEV[1].address, type: '0x0', blockHash: null });
  t.equal(await again.rpc('miner_start', []), true);
  const receipt = await waitFor(() => again.rpc('eth_getTransactionReceipt', [hash]), 'receipt after restart');
  t.equal(receipt.status, '0x1');
});
