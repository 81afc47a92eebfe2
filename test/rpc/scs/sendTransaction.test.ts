// mc_sendTransaction with shardingFlag 1–3 and no nonce takes the app-chain nonce (as chain3's
// microchain module and the real tools expect), signs with the unlocked account and routes the
// transaction to the SCS.

import t from 'tap';
import { startNode, waitFor } from '../../helpers/node.js';
import { DEV } from '../../helpers/accounts.js';
import { contractAddress } from '../../../src/chain/transaction.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { dappBaseCode, scsOf } from './scsHelpers.js';
import { testDir } from '../../helpers/testDir.js';

const CHAIN = '0x57b7b8225bcb5d4c6c5abbe2e44fa67998cfa791';
const DECLARED = JSON.stringify([{ address: CHAIN, owner: DEV[0].address, tokenSupply: '0x100', flushRound: 40 }]);

t.test('app-chain nonce and zero gas are filled in', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'instant', '--appChains', DECLARED]);
  t.teardown(() => node.stop());
  const scs = scsOf(node);
  // Spend a main-chain nonce first so the two nonces differ.
  const main = await node.rpc('mc_sendTransaction', [{ from: DEV[0].address, to: DEV[1].address, value: '0x1' }]);
  await waitFor(() => node.rpc('mc_getTransactionReceipt', [main]), 'main receipt');
  t.equal(await node.rpc('mc_getTransactionCount', [DEV[0].address, 'latest']), '0x1');

  const via = await node.rpc('vnode_address');
  const hash = await node.rpc('mc_sendTransaction', [{ from: DEV[0].address, to: CHAIN, data: dappBaseCode(), shardingFlag: '0x3', via }]);
  const receipt = await waitFor(() => scs.rpc('scs_getReceiptByHash', [CHAIN, hash]), 'app-chain receipt');
  t.equal(receipt.status, '0x1');
  t.equal(receipt.contractAddress, bytesToHex(contractAddress(hexToBytes(DEV[0].address), 0n)), 'deployed at app-chain nonce 0');
  const tx = await scs.rpc('scs_getTransactionByHash', [CHAIN, hash]);
  t.equal(Number(tx.nonce), 0);
  t.equal(Number(tx.gas), 0);
  t.equal(await scs.rpc('scs_getNonce', [CHAIN, DEV[0].address]), 1);
  t.equal(await node.rpc('mc_getTransactionCount', [DEV[0].address, 'latest']), '0x1', 'the main-chain nonce is untouched');

  const noTo = await node.call('mc_sendTransaction', [{ from: DEV[0].address, data: '0x00', shardingFlag: '0x1', via }]);
  t.equal(noTo.error?.code, -32000);
  const badVia = await node.call('mc_sendTransaction', [{ from: DEV[0].address, to: CHAIN, data: '0x00', shardingFlag: '0x2', via: '0x' + '11'.repeat(20) }]);
  t.same(badVia.error, { code: -32000, message: 'via error' });
});
