// viem's public and wallet clients over http() and webSocket() against a running node: send,
// deploy, read and write a contract, watchBlocks, watchContractEvent, getLogs.

import t from 'tap';
import { createPublicClient, createWalletClient, defineChain, http, webSocket, parseEther, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startNode } from '../helpers/node.js';
import { DEV } from '../helpers/accounts.js';
import { contract } from '../helpers/abi.js';
import { testDir } from '../helpers/testDir.js';

const Counter = contract('Counter');
const abi = Counter.abi as Abi;

const within = <T>(p: Promise<T>, what: string, ms = 15_000): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms).unref())]);

t.test('viem over http() and webSocket()', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'instant']);
  t.teardown(() => node.stop());
  const wsUrl = node.url.replace('http:', 'ws:');
  const mcnode = defineChain({
    id: 100,
    name: 'mcnode devnet',
    nativeCurrency: { name: 'MOAC', symbol: 'MC', decimals: 18 },
    rpcUrls: { default: { http: [node.url], webSocket: [wsUrl] } },
  });
  const account = privateKeyToAccount(DEV[2].key as Hex);
  const pub = createPublicClient({ chain: mcnode, transport: http(), pollingInterval: 100 });
  const wsTransport = webSocket();
  const pubWs = createPublicClient({ chain: mcnode, transport: wsTransport });
  const wallet = createWalletClient({ account, chain: mcnode, transport: http() });
  const walletWs = createWalletClient({ account, chain: mcnode, transport: webSocket() });
  t.teardown(async () => {
    await (await pubWs.transport.getRpcClient()).close();
    await (await walletWs.transport.getRpcClient()).close();
  });

  t.equal(await pub.getChainId(), 100);
  t.equal(await pubWs.getChainId(), 100);
  t.equal(await pub.getBalance({ address: account.address }), parseEther('1000000'));

  // watchBlocks over the WebSocket transport subscribes to newHeads
  const blocks: bigint[] = [];
  const unwatchBlocks = pubWs.watchBlocks({ onBlock: (b) => void blocks.push(b.number!) });

  const to = '0x' + '77'.repeat(20) as Hex;
  const hash = await wallet.sendTransaction({ to, value: 1000n });
  const receipt = await within(pub.waitForTransactionReceipt({ hash }), 'transfer receipt');
  t.equal(receipt.status, 'success');
  t.equal(receipt.type, 'legacy');
  t.equal(await pubWs.getBalance({ address: to }), 1000n);

  const deployHash = await walletWs.deployContract({ abi, bytecode: Counter.bytecode as Hex });
  const deployed = await within(pub.waitForTransactionReceipt({ hash: deployHash }), 'deploy receipt');
  const address = deployed.contractAddress!;
  t.ok(address);
  t.equal(await pub.readContract({ address, abi, functionName: 'count' }), 0n);

  const pushed: unknown[] = [];
  const unwatchEvents = pubWs.watchContractEvent({ address, abi, eventName: 'Incremented', onLogs: (logs) => pushed.push(...logs) });
  await new Promise((r) => setTimeout(r, 300));
  const { request } = await pub.simulateContract({ account, address, abi, functionName: 'increment', args: [7n] });
  const writeHash = await wallet.writeContract(request);
  const written = await within(pub.waitForTransactionReceipt({ hash: writeHash }), 'write receipt');
  t.equal(await pubWs.readContract({ address, abi, functionName: 'count' }), 7n);

  const logs = await pub.getLogs({ address, event: abi.find((x: any) => x.name === 'Incremented') as any, fromBlock: 0n });
  t.equal(logs.length, 1);
  t.match(logs[0], { transactionHash: writeHash, args: { by: account.address, amount: 7n, count: 7n } });

  for (let i = 0; i < 100 && pushed.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  t.match(pushed, [{ transactionHash: writeHash, args: { amount: 7n } }], 'watchContractEvent over webSocket');
  for (let i = 0; i < 100 && !blocks.includes(written.blockNumber); i++) await new Promise((r) => setTimeout(r, 50));
  t.ok(blocks.includes(written.blockNumber), 'watchBlocks saw the write\'s block');
  unwatchBlocks();
  unwatchEvents();
});
