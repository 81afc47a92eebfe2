// ethers v6 as a dapp developer uses it, against a running node: JsonRpcProvider and
// WebSocketProvider (network, balances, Wallet.sendTransaction + wait, ContractFactory deploy,
// calls, estimateGas, events by polling and by subscription). ethers signs classic transactions.

import t from 'tap';
import { Contract, ContractFactory, JsonRpcProvider, WebSocketProvider, Wallet, parseEther, type Log, type TransactionReceipt } from 'ethers';
import { startNode } from '../helpers/node.js';
import { DEV } from '../helpers/accounts.js';
import { contract } from '../helpers/abi.js';
import { testDir } from '../helpers/testDir.js';

const Counter = contract('Counter');

const within = <T>(p: Promise<T>, what: string, ms = 15_000): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms).unref())]);

t.test('ethers v6 over HTTP and WebSocket', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'instant']);
  t.teardown(() => node.stop());
  // ethers shares identical requests made within 250 ms (cacheTimeout): with instant mining a deploy
  // right after a mined transfer would get the transfer's cached pending nonce (README "Using ethers").
  const http = new JsonRpcProvider(node.url, undefined, { pollingInterval: 100, cacheTimeout: -1 });
  const ws = new WebSocketProvider(node.url.replace('http:', 'ws:'));
  t.teardown(async () => {
    http.destroy();
    await ws.destroy();
  });

  t.equal((await http.getNetwork()).chainId, 100n);
  t.equal((await ws.getNetwork()).chainId, 100n);
  t.equal(await http.getBalance(DEV[2].address), parseEther('1000000'));

  // a transfer, signed by ethers as a classic legacy transaction
  const wallet = new Wallet(DEV[2].key, http);
  const to = Wallet.createRandom().address;
  const sent = await wallet.sendTransaction({ to, value: 12345n });
  t.equal(sent.type, 0, 'ethers chose a legacy transaction (no baseFeePerGas)');
  const receipt = await within(sent.wait(), 'transfer receipt');
  t.equal(receipt!.status, 1);
  t.equal(receipt!.hash, sent.hash);
  t.equal(await http.getBalance(to), 12345n);
  t.equal(await ws.getBalance(to), 12345n);
  const fetched = await http.getTransaction(sent.hash);
  t.equal(fetched!.from, wallet.address);
  t.equal(fetched!.chainId, 100n);

  // deploy, call, estimate, write, read
  const factory = new ContractFactory(Counter.abi, Counter.bytecode, wallet);
  const deployed = await within(factory.deploy().then((c) => c.waitForDeployment()), 'deploy');
  const address = await deployed.getAddress();
  t.equal(await http.getCode(address), Counter.deployed);
  const counter = new Contract(address, Counter.abi, wallet);
  t.equal(await counter.count(), 0n);
  const estimate: bigint = await counter.increment.estimateGas(5n);
  t.ok(estimate > 21_000n && estimate < 200_000n, `estimate ${estimate}`);

  // events: by polling (HTTP filters) and by subscription (WebSocket logs)
  const polled = new Promise<bigint[]>((resolve) => counter.once('Incremented', (by, amount, count) => resolve([amount, count])));
  const wsCounter = new Contract(address, Counter.abi, ws);
  const pushed = new Promise<[string, bigint, Log]>((resolve) =>
    wsCounter.once('Incremented', (by, amount, _count, event) => resolve([by, amount, event.log])),
  );
  await new Promise((r) => setTimeout(r, 300)); // both listeners installed
  const tx = await counter.increment(5n);
  const mined: TransactionReceipt | null = await within(tx.wait(), 'increment receipt');
  t.equal(mined!.logs.length, 1);
  t.equal(await counter.count(), 5n);
  t.same(await within(polled, 'polled event'), [5n, 5n]);
  const [by, amount, log] = await within(pushed, 'subscribed event');
  t.equal(by, wallet.address);
  t.equal(amount, 5n);
  t.equal(log.transactionHash, tx.hash);
  await t.rejects(counter.fail.staticCall(), /counter says no/, 'revert reason');

  // new blocks by WebSocket subscription
  const block = new Promise<number>((resolve) => ws.once('block', resolve));
  await new Promise((r) => setTimeout(r, 200));
  const again = await wallet.sendTransaction({ to, value: 1n });
  const r2 = await within(again.wait(), 'second receipt');
  t.equal(await within(block, 'block event'), r2!.blockNumber);
});
