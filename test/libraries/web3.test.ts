// web3.js 4 against a running node: chain id, balances, a locally signed legacy transaction
// sent raw and mined, and a contract read.

import t from 'tap';
import { Web3 } from 'web3';
import { startNode } from '../helpers/node.js';
import { DEV } from '../helpers/accounts.js';
import { contract } from '../helpers/abi.js';
import { testDir } from '../helpers/testDir.js';

t.test('web3.js 4: signed legacy transaction', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'instant']);
  t.teardown(() => node.stop());
  const web3 = new Web3(node.url);
  web3.eth.transactionPollingInterval = 100;
  t.equal(await web3.eth.getChainId(), 100n);
  const account = web3.eth.accounts.privateKeyToAccount(DEV[2].key);
  t.equal(await web3.eth.getBalance(account.address), 10n ** 24n);

  const to = '0x' + '55'.repeat(20);
  const signed = await account.signTransaction({
    to, value: 4321n, gas: 21_000n, gasPrice: await web3.eth.getGasPrice(), nonce: await web3.eth.getTransactionCount(account.address), chainId: 100n,
  });
  const receipt = await web3.eth.sendSignedTransaction(signed.rawTransaction);
  t.equal(receipt.status, 1n);
  t.equal(receipt.transactionHash, signed.transactionHash, 'hash as web3 computed it');
  t.equal(await web3.eth.getBalance(to), 4321n);
  const tx = await web3.eth.getTransaction(signed.transactionHash);
  t.equal(tx.from, account.address.toLowerCase());
  t.equal(tx.type, 0n);

  // deploy with a signed transaction too, then read
  const Counter = contract('Counter');
  const c = new web3.eth.Contract(Counter.abi as any);
  const data = c.deploy({ data: Counter.bytecode }).encodeABI();
  const deploy = await account.signTransaction({ data, gas: 1_000_000n, gasPrice: 20_000_000_000n, nonce: 1n, chainId: 100n });
  const deployed = await web3.eth.sendSignedTransaction(deploy.rawTransaction);
  const counter = new web3.eth.Contract(Counter.abi as any, deployed.contractAddress!);
  t.equal(await counter.methods.count().call(), 0n);
  t.equal(await counter.methods.label().call(), 'counter');
});
