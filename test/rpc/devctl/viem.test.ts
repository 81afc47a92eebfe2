// viem's test client in `anvil` and `hardhat` modes drives the developer controls of a real node:
// setters, impersonation, mining, time, snapshots, dropTransaction. Then the chain the setters
// changed is exported and imported into a fresh datadir, reaching the same head; a testnet-preset
// node refuses the setters.

import t from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { createPublicClient, createTestClient, http, type Address, type Hex } from 'viem';
import { CLI, startNode } from '../../helpers/node.js';
import { DEV } from '../../helpers/accounts.js';
import { contract } from '../../helpers/abi.js';
import { testDir } from '../../helpers/testDir.js';

const run = promisify(execFile);
const flags = ['--mining.mode', 'instant', '--minerthreads', '1'];

for (const mode of ['anvil', 'hardhat'] as const) {
  t.test(`viem test client, ${mode} mode`, async (t) => {
    const base = testDir(t);
    const datadir = path.join(base, 'node');
    const node = await startNode(datadir, flags);
    t.teardown(() => node.stop());
    const test = createTestClient({ mode, transport: http(node.url) });
    const pub = createPublicClient({ transport: http(node.url), cacheTime: 0 });
    const who = '0x' + '42'.repeat(20) as Address;

    // setters: each one is a block, visible at latest at once
    const h0 = await pub.getBlockNumber();
    await test.setBalance({ address: who, value: 10n ** 21n });
    t.equal(await pub.getBalance({ address: who }), 10n ** 21n);
    t.equal(await pub.getBlockNumber(), h0 + 1n, 'one block per setter');
    const code = contract('Store').deployed as Hex;
    await test.setCode({ address: who, bytecode: code });
    t.equal(await pub.getCode({ address: who }), code);
    await test.setNonce({ address: who, nonce: 7 });
    t.equal(await pub.getTransactionCount({ address: who }), 7);
    await test.setStorageAt({ address: who, index: 0, value: ('0x' + '00'.repeat(31) + '69') as Hex });
    t.equal(await pub.getStorageAt({ address: who, slot: '0x0' }), '0x' + '00'.repeat(31) + '69');
    const block = await pub.getBlock({ blockTag: 'latest', includeTransactions: true });
    const sys = block.transactions[0] as { from: string; to: string };
    t.equal(block.transactions.length, 1, 'the setter block holds one system transaction');
    t.equal(sys.from, '0x0000000000000000000000000000000000000064');
    await test.setCoinbase({ address: DEV[2].address as Address });
    await test.mine({ blocks: 1 });
    t.equal((await pub.getBlock()).miner, DEV[2].address, 'new blocks pay the new coinbase');

    // impersonation: a send from an account without a key
    const rich = '0x' + '43'.repeat(20) as Address;
    await test.setBalance({ address: rich, value: 10n ** 20n });
    await test.impersonateAccount({ address: rich });
    const payee = '0x' + '44'.repeat(20) as Address;
    const hash = await test.sendUnsignedTransaction({ from: rich, to: payee, value: 5n });
    const receipt = await pub.waitForTransactionReceipt({ hash, timeout: 15_000 });
    t.equal(receipt.status, 'success');
    t.equal(receipt.from, rich, 'the impersonated sender');
    t.equal(await pub.getBalance({ address: payee }), 5n);
    // mc_sendTransaction from the impersonated account needs no key either
    const viaSend = await node.rpc('mc_sendTransaction', [{ from: rich, to: payee, value: '0x2' }]);
    t.equal((await pub.waitForTransactionReceipt({ hash: viaSend, timeout: 15_000 })).status, 'success');
    t.equal(await pub.getBalance({ address: payee }), 7n);
    await test.stopImpersonatingAccount({ address: rich });
    const refused = await node.call('mc_sendTransaction', [{ from: rich, to: who, value: '0x1' }]);
    t.ok(refused.error, 'after stopImpersonating the key is needed again');

    // mining and time
    t.equal(await test.getAutomine(), true);
    const before = await pub.getBlockNumber();
    await test.mine({ blocks: 3, interval: 10 });
    t.equal(await pub.getBlockNumber(), before + 3n);
    const last = await pub.getBlock();
    const prev = await pub.getBlock({ blockNumber: last.number - 1n });
    t.equal(last.timestamp - prev.timestamp, 10n);
    await test.increaseTime({ seconds: 7200 });
    await test.mine({ blocks: 1 });
    t.ok((await pub.getBlock()).timestamp - last.timestamp >= 7200n);
    const next = (await pub.getBlock()).timestamp + 1000n;
    await test.setNextBlockTimestamp({ timestamp: next });
    await test.mine({ blocks: 1 });
    t.equal((await pub.getBlock()).timestamp, next);

    // snapshots, automine off, dropTransaction
    const id = await test.snapshot();
    const atSnapshot = await pub.getBlockNumber();
    await test.setAutomine(false);
    t.equal(await test.getAutomine(), false);
    const pending = await node.rpc('mc_sendTransaction', [{ from: DEV[0].address, to: who, value: '0x1' }]);
    t.equal(await test.dropTransaction({ hash: pending }), undefined);
    t.equal((await node.rpc('txpool_status')).pending, '0x0', 'dropped from the pool');
    await test.setBalance({ address: who, value: 1n });
    await test.mine({ blocks: 2 });
    t.equal(await pub.getBlockNumber(), atSnapshot + 3n);
    await test.revert({ id });
    t.equal(await pub.getBlockNumber(), atSnapshot, 'revert restores the head');
    t.equal(await pub.getBalance({ address: who }), 10n ** 21n, 'and the state');
    await test.revert({ id });
    t.equal(await pub.getBlockNumber(), atSnapshot, 'the id is reusable');
    await test.setAutomine(true);

    if (mode === 'hardhat') {
      // Hardhat's evm_setIntervalMining takes milliseconds, as mcnode's does.
      await test.setIntervalMining({ interval: 1 });
      const from = await pub.getBlockNumber();
      const deadline = Date.now() + 15_000;
      while ((await pub.getBlockNumber()) < from + 2n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      t.ok((await pub.getBlockNumber()) >= from + 2n, 'interval blocks');
      await test.setIntervalMining({ interval: 0 });
    }

    // the setters' chain exports and re-imports into a fresh datadir to the same head (once)
    if (mode !== 'anvil') return;
    const head = await pub.getBlock();
    await node.stop();
    const file = path.join(base, 'chain.rlp');
    await run(process.execPath, [CLI, '--datadir', datadir, 'export', file], { timeout: 60_000 });
    const fresh = path.join(base, 'fresh');
    await run(process.execPath, [CLI, '--datadir', fresh, 'import', file], { timeout: 60_000 });
    const again = await startNode(fresh, flags);
    t.teardown(() => again.stop());
    const reimported = await again.rpc('mc_getBlockByNumber', ['latest', false]);
    t.equal(reimported.hash, head.hash, 'same head hash after import');
    t.equal(reimported.stateRoot, head.stateRoot);
    t.equal(await again.rpc('mc_getCode', [who, 'latest']), code);
  });
}

t.test('a testnet-preset node refuses the setters', async (t) => {
  const node = await startNode(testDir(t), ['--config', 'testnet', '--mining.mode', 'off']);
  t.teardown(() => node.stop());
  const test = createTestClient({ mode: 'anvil', transport: http(node.url) });
  await t.rejects(test.setBalance({ address: DEV[0].address as Address, value: 1n }), /does not exist|not available|not found/i);
  const reply = await node.ipcCall('hardhat_setCode', [DEV[0].address, '0x00']);
  t.equal(reply.error?.code, -32601);
});
