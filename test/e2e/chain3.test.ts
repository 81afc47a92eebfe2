// End to end with the real MOAC client library, chain3 0.1.23, as a user would use it:
// balances, a transfer, a contract deploy with raw transactions signed by chain3, a call.

import t from 'tap';
import Chain3 from 'chain3';
import { startNode, waitFor } from '../helpers/node.js';
import { DEV } from '../helpers/accounts.js';
import { contract, word } from '../helpers/abi.js';
import { testDir } from '../helpers/testDir.js';

t.test('chain3 against a running node', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'instant']);
  t.teardown(() => node.stop());
  const chain3 = new Chain3(new Chain3.providers.HttpProvider(node.url));

  t.equal(chain3.isConnected(), true);
  t.equal(chain3.version.network, '100');
  t.match(chain3.version.node, /^Mcnode\//);
  t.equal(chain3.mc.blockNumber, 0);
  t.equal(chain3.mc.coinbase, DEV[0].address);
  t.same(chain3.mc.accounts.slice(0, 2), [DEV[0].address, DEV[1].address]);
  t.equal(chain3.mc.getBalance(DEV[1].address).toString(10), '1000000000000000000000000');
  t.equal(chain3.mc.gasPrice.toString(10), '20000000000');

  // A transfer signed by chain3 itself (its own MOAC RLP and EIP-155 code).
  const to = '0x' + '5a'.repeat(20);
  const raw = chain3.signTransaction(
    { nonce: '0x0', gasPrice: '0x4a817c800', gasLimit: '0x5208', to, value: chain3.toHex(chain3.toSha(3, 'mc')), data: '0x', chainId: 100, shardingFlag: 0 },
    DEV[1].key,
  );
  const hash = chain3.mc.sendRawTransaction(raw);
  const receipt = await waitFor(async () => chain3.mc.getTransactionReceipt(hash), 'transfer receipt');
  t.equal(receipt.status, '0x1');
  t.equal(receipt.gasUsed, 1000);
  t.equal(chain3.mc.getBalance(to).toString(10), '3000000000000000000');
  const tx = chain3.mc.getTransaction(hash);
  t.equal(tx.from, DEV[1].address);
  t.equal(tx.nonce, 0);
  t.equal(chain3.mc.getTransactionCount(DEV[1].address), 1);

  // Deploy the Store contract with a raw transaction, then read it through a contract object
  // (chain3 0.1 predates `stateMutability`, so view functions are called with `.call()`).
  const store = contract('Store');
  const deployRaw = chain3.signTransaction(
    { nonce: '0x1', gasPrice: '0x4a817c800', gasLimit: '0x7a120', to: '', value: '0x0', data: store.bytecode + word(41), chainId: 100, shardingFlag: 0 },
    DEV[1].key,
  );
  const deployHash = chain3.mc.sendRawTransaction(deployRaw);
  const deployReceipt = await waitFor(async () => chain3.mc.getTransactionReceipt(deployHash), 'deploy receipt');
  t.equal(deployReceipt.status, '0x1');
  const address = deployReceipt.contractAddress;
  t.match(address, /^0x[0-9a-f]{40}$/);
  const instance = chain3.mc.contract(store.abi).at(address);
  t.equal(instance.value.call().toString(10), '41');
  t.equal(instance.add.call(2, 3).toString(10), '5');
  const block = chain3.mc.getBlock(deployReceipt.blockNumber, true);
  t.equal(block.transactions[0].hash, deployHash);
  t.equal(block.number, deployReceipt.blockNumber);
});
