// Persistence: a stopped node restarts on the same chain (head, balances, receipts), a second
// process on the same datadir is refused, and a SIGKILL right after sendRawTransaction loses
// no acknowledged transaction.

import t from 'tap';
import { spawnSync } from 'node:child_process';
import { CLI, startNode, waitFor } from '../helpers/node.js';
import { DEV, rawTx } from '../helpers/accounts.js';
import { hexToBytes } from '../../src/encoding/hex.js';
import { testDir } from '../helpers/testDir.js';

t.test('stop and start continue the same chain', async (t) => {
  const datadir = testDir(t);
  const first = await startNode(datadir, ['--mining.mode', 'instant']);
  const { raw, hash } = rawTx(DEV[1].key, { nonce: 0n, to: hexToBytes(DEV[2].address), value: 12345n, gas: 21_000n });
  await first.rpc('mc_sendRawTransaction', [raw]);
  const receipt = await waitFor(() => first.rpc('mc_getTransactionReceipt', [hash]), 'receipt');
  const head = await first.rpc('mc_getBlockByNumber', ['latest', true]);
  const balance = await first.rpc('mc_getBalance', [DEV[2].address, 'latest']);
  t.equal(await first.stop('SIGTERM'), 0, 'clean exit on SIGTERM');

  const second = await startNode(datadir, ['--mining.mode', 'instant']);
  t.teardown(() => second.stop());
  t.same(await second.rpc('mc_getBlockByNumber', ['latest', true]), head, 'same head block');
  t.equal(await second.rpc('mc_getBalance', [DEV[2].address, 'latest']), balance);
  t.same(await second.rpc('mc_getTransactionReceipt', [hash]), receipt);
  t.equal(await second.rpc('mc_getTransactionCount', [DEV[1].address, 'latest']), '0x1');
  // The chain goes on from there.
  const next = rawTx(DEV[1].key, { nonce: 1n, to: hexToBytes(DEV[2].address), value: 1n, gas: 21_000n });
  await second.rpc('mc_sendRawTransaction', [next.raw]);
  const r2 = await waitFor(() => second.rpc('mc_getTransactionReceipt', [next.hash]), 'receipt');
  t.equal(BigInt(r2.blockNumber), BigInt(receipt.blockNumber) + 1n);
});

t.test('a second process on the same datadir is refused', async (t) => {
  const datadir = testDir(t);
  const node = await startNode(datadir, ['--mining.mode', 'off']);
  t.teardown(() => node.stop());
  const second = spawnSync(process.execPath, [CLI, '--datadir', datadir, '--rpcport', '0', '--ipcdisable'], { encoding: 'utf8', timeout: 20_000 });
  t.equal(second.status, 1);
  t.match(second.stderr, /datadir in use/);
  t.equal(await node.rpc('mc_blockNumber'), '0x0', 'the first node still answers');
});

t.test('kill -9 right after the reply loses no acknowledged transaction', async (t) => {
  const datadir = testDir(t);
  // Mining off: the transactions can only survive through the pool journal.
  const node = await startNode(datadir, ['--mining.mode', 'off']);
  const hashes: string[] = [];
  for (let nonce = 0n; nonce < 5n; nonce++) {
    const { raw, hash } = rawTx(DEV[1].key, { nonce, to: hexToBytes(DEV[2].address), value: 1n, gas: 21_000n });
    t.equal(await node.rpc('mc_sendRawTransaction', [raw]), hash);
    hashes.push(hash);
  }
  await node.stop('SIGKILL');
  const again = await startNode(datadir, ['--mining.mode', 'instant']);
  t.teardown(() => again.stop());
  for (const hash of hashes) {
    const receipt = await waitFor(() => again.rpc('mc_getTransactionReceipt', [hash]), `receipt ${hash}`);
    t.equal(receipt.status, '0x1', `${hash} mined after the restart`);
  }
});
