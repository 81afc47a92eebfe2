// ethers, viem and web3.js on the in-process provider of startNode() (docs/library.md), no
// socket: ethers' BrowserProvider with the node's unlocked accounts and a locally signed wallet,
// a contract deployed, called, written and its event read; viem's custom() transport with a
// local account and watchBlocks; web3.js with a subscription (EIP-1193 'message' events).

import t from 'tap';
import { BrowserProvider, Contract, ContractFactory, Wallet, type TransactionReceipt } from 'ethers';
import { createPublicClient, createWalletClient, custom, defineChain, parseEther, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Web3 } from 'web3';
import { startNode } from '../../src/library/index.js';
import { contract } from '../helpers/abi.js';

const Counter = contract('Counter');

const within = <T>(p: Promise<T>, what: string, ms = 20_000): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms).unref())]);

t.test('ethers v6: BrowserProvider on node.provider', async (t) => {
  const node = await startNode({ mining: { mode: 'instant' } });
  t.teardown(() => node.stop());
  const provider = new BrowserProvider(node.provider, undefined, { cacheTimeout: -1, pollingInterval: 50 });
  t.teardown(() => provider.destroy());
  t.equal((await provider.getNetwork()).chainId, 100n);
  t.same((await provider.listAccounts()).map((s) => s.address.toLowerCase()), node.accounts.map((a) => a.address));

  // the node's unlocked account signs (mc_sendTransaction)
  const signer = await provider.getSigner(node.accounts[0].address);
  const to = Wallet.createRandom().address;
  const receipt = await within((await signer.sendTransaction({ to, value: 1234n })).wait(), 'transfer');
  t.equal(receipt!.status, 1);
  t.equal(await provider.getBalance(to), 1234n);

  // a locally signed wallet: a classic (legacy) transaction
  const wallet = new Wallet(node.accounts[3].privateKey, provider);
  const factory = new ContractFactory(Counter.abi, Counter.bytecode, wallet);
  const deployed = await within(factory.deploy().then((c) => c.waitForDeployment()), 'deploy');
  const counter = new Contract(await deployed.getAddress(), Counter.abi, wallet);
  t.equal(await counter.count(), 0n);
  const mined: TransactionReceipt | null = await within((await counter.increment(5n)).wait(), 'increment');
  t.equal(mined!.logs.length, 1);
  t.equal(await counter.count(), 5n);
  const [event] = await counter.queryFilter(counter.filters.Incremented(), mined!.blockNumber);
  t.equal((event as { args: unknown[] }).args[1], 5n);
  await t.rejects(counter.fail.staticCall(), /counter says no/, 'a revert reason, through the provider\'s error data');
});

t.test('viem: custom(node.provider)', async (t) => {
  const node = await startNode({ mining: { mode: 'instant' } });
  t.teardown(() => node.stop());
  const chain = defineChain({
    id: node.chainId, name: 'mcnode', nativeCurrency: { name: 'MOAC', symbol: 'MC', decimals: 18 }, rpcUrls: { default: { http: [node.rpcUrl!] } },
  });
  const pub = createPublicClient({ chain, transport: custom(node.provider), pollingInterval: 50 });
  const account = privateKeyToAccount(node.accounts[2].privateKey as Hex);
  const wallet = createWalletClient({ account, chain, transport: custom(node.provider) });
  t.equal(await pub.getChainId(), 100);
  t.equal(await pub.getBalance({ address: account.address }), parseEther('1000000'));

  const blocks: bigint[] = [];
  const unwatch = pub.watchBlockNumber({ onBlockNumber: (n) => blocks.push(n), pollingInterval: 50 });
  t.teardown(unwatch);
  const to = '0x' + '66'.repeat(20) as Hex;
  const hash = await wallet.sendTransaction({ to, value: 99n });
  const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  t.equal(receipt.status, 'success');
  t.equal(await pub.getBalance({ address: to }), 99n);
  await within((async () => {
    while (!blocks.includes(receipt.blockNumber)) await new Promise((r) => setTimeout(r, 25));
  })(), 'watchBlockNumber saw the block');

  const deployHash = await wallet.deployContract({ abi: Counter.abi as Abi, bytecode: Counter.bytecode as Hex });
  const { contractAddress } = await pub.waitForTransactionReceipt({ hash: deployHash, pollingInterval: 50 });
  t.equal(await pub.readContract({ address: contractAddress!, abi: Counter.abi as Abi, functionName: 'label' }), 'counter');
});

t.test('web3.js 4: new Web3(node.provider), with a subscription', async (t) => {
  const node = await startNode({ mining: { mode: 'instant' } });
  t.teardown(() => node.stop());
  const web3 = new Web3(node.provider as never);
  web3.eth.transactionPollingInterval = 50;
  t.equal(await web3.eth.getChainId(), 100n);
  const subscription = await web3.eth.subscribe('newBlockHeaders');
  const header = new Promise<bigint>((resolve) => subscription.on('data', (h) => resolve(BigInt(h.number as bigint))));
  const account = web3.eth.accounts.privateKeyToAccount(node.accounts[4].privateKey);
  const signed = await account.signTransaction({
    to: '0x' + '77'.repeat(20), value: 5n, gas: 21_000n, gasPrice: await web3.eth.getGasPrice(), nonce: 0n, chainId: 100n,
  });
  const receipt = await web3.eth.sendSignedTransaction(signed.rawTransaction);
  t.equal(receipt.status, 1n);
  t.equal(await within(header, 'the newBlockHeaders notification'), BigInt(receipt.blockNumber));
  await subscription.unsubscribe();
});
