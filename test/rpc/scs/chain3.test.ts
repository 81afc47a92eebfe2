// The real MOAC client (chain3 0.1.23) against the SCS, on both paths: `chain3.scs.*` with an
// SCS provider, and `chain3.microchain(...)` Dapp objects that read through scs_directCall and
// write through mc_sendTransaction (shardingFlag 1, `dappAddr`, app-chain nonce).

import t, { type Test } from 'tap';
import Chain3 from 'chain3';
import { startNode, waitFor } from '../../helpers/node.js';
import { DEV } from '../../helpers/accounts.js';
import { contract } from '../../helpers/abi.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { contractAddress } from '../../../src/chain/transaction.js';
import { testDir } from '../../helpers/testDir.js';

const CHAIN = '0x' + 'e1'.repeat(20);
const SUPPLY = 10n ** 24n;
const base = contract('DappBase');
const dapp = contract('Counter');
const dappBase = bytesToHex(contractAddress(hexToBytes(DEV[0].address), 0n));
const counter = bytesToHex(contractAddress(hexToBytes(DEV[0].address), 1n));

/** chain3's MicroFunction prints every call; keep the test output readable. */
function quietly<T>(fn: () => T): T {
  const log = console.log;
  console.log = () => undefined;
  try {
    return fn();
  } finally {
    console.log = log;
  }
}

t.test('chain3.scs and chain3.microchain on both SCS paths', async (t) => {
  const declared = [{ address: CHAIN, tokenSupply: '0x' + SUPPLY.toString(16), flushRound: 2 }];
  const node = await startNode(testDir(t), ['--mining.mode', 'instant', '--appChains', JSON.stringify(declared)]);
  t.teardown(() => node.stop());
  const chain3 = new Chain3(new Chain3.providers.HttpProvider(node.url));
  const via = chain3.vnode.address;
  t.equal(via, DEV[0].address);
  t.equal(chain3.vnode.scsService, true);

  // Deploy the DappBase and the Dapp with raw transactions signed by chain3, then register the Dapp.
  const sign = (nonce: number, shardingFlag: number, data: string) =>
    chain3.signTransaction({ nonce: chain3.toHex(nonce), gasPrice: '0x0', gasLimit: '0x0', to: CHAIN, value: '0x0', data, chainId: 100, shardingFlag, via }, DEV[0].key);
  const deployHash = chain3.mc.sendRawTransaction(sign(0, 3, base.bytecode));
  chain3.mc.sendRawTransaction(sign(1, 3, dapp.bytecode));
  const registerData = chain3.mc.contract(base.abi).at(dappBase).registerDapp.getData(counter, DEV[0].address, JSON.stringify(dapp.abi));
  const registerHash = chain3.mc.sendRawTransaction(sign(2, 1, dappBase + registerData.slice(2)));
  // A deposit from DEV[1] on the main chain, through the node's unlocked account.
  chain3.mc.sendTransaction({ from: DEV[1].address, to: CHAIN, value: chain3.toSha(1, 'mc'), data: '0x6bbded70', gas: 50_000 });

  for (const path of ['', '/rpc']) {
    t.test(`SCS provider at ${path || '/'}`, async (t) => {
      chain3.setScsProvider(new Chain3.providers.HttpProvider(node.scsUrl + path));
      const scs = chain3.scs;
      const receipt = await waitFor(async () => scs.getReceiptByHash(CHAIN, registerHash), 'register receipt');
      t.equal(receipt.failed, false);
      t.same(scs.getDappAddrList(CHAIN), [dappBase, counter]);
      t.equal(scs.getBalance(CHAIN, dappBase).toString(10), SUPPLY.toString());
      // chain3's synchronous calls each cost a child process: the full list runs on `/` only.
      if (path === '') await directMethods(t, scs, deployHash);
      // A Dapp object: reads go to the SCS (scs_directCall), writes to the VNODE (mc_sendTransaction).
      const mc = chain3.microchain(base.abi);
      mc.setVnodeAddress(via);
      const counterDapp = quietly(() => mc.getDapp(CHAIN, dapp.abi, counter));
      const before = Number(quietly(() => counterDapp.get.call()).toString(10));
      const hash = quietly(() => counterDapp.increment.sendTransaction(2));
      const sent = await waitFor(async () => scs.getReceiptByHash(CHAIN, hash), 'increment receipt');
      t.equal(sent.failed, false);
      t.equal(Number(quietly(() => counterDapp.get.call()).toString(10)), before + 2);
      const [mine, who, label, positive] = quietly(() => counterDapp.info.call(DEV[0].address));
      t.equal(mine.toString(10), String(before + 2));
      t.equal(who, DEV[0].address);
      t.equal(label, 'counter');
      t.equal(positive, true);
    });
  }
});

/** Every chain3.scs method once, with what its output formatter makes of our answer. */
async function directMethods(t: Test, scs: any, deployHash: string): Promise<void> {
  t.equal(scs.listening, true);
  t.match(scs.getSCSId(), /^0x[0-9a-f]{40}$/);
  t.match(scs.getDatadir(), /^\//);
  t.equal(scs.protocolVersion(), '0x1');
  t.same(scs.getMicroChainList(), [CHAIN]);
  t.same(scs.getAppChainList(), [CHAIN]);
  const info = scs.getMicroChainInfo(CHAIN);
  t.equal(info.owner.toLowerCase(), DEV[0].address);
  t.equal(info.balance, '0x' + SUPPLY.toString(16));
  t.equal(scs.getDappState(CHAIN), 1);
  t.equal(scs.getNonce(CHAIN, DEV[0].address) >= 3, true);
  const height = scs.getBlockNumber(CHAIN);
  t.equal(typeof height, 'number');
  const block1 = scs.getBlock(CHAIN, 1);
  t.equal(block1.number, 1, 'outputBlockFormatter made it a number');
  t.equal(block1.transactions[0].transactionHash, deployHash);
  const list = scs.getBlockList(CHAIN, 0, 1);
  t.same(list.blockList.map((b: { number: string }) => b.number), ['0x0', '0x1']);
  const tx = scs.getTransactionByHash(CHAIN, deployHash);
  t.equal(tx.blockNumber, 1);
  t.equal(tx.nonce, 0);
  t.equal(scs.getTransactionByNonce(CHAIN, DEV[0].address, 0).transactionHash, deployHash);
  t.equal(scs.getReceiptByHash(CHAIN, deployHash).contractAddress, dappBase);
  t.equal(scs.getReceiptByNonce(CHAIN, DEV[0].address, 0).contractAddress, dappBase);
  const exchange = await waitFor(async () => {
    const e = scs.getExchangeByAddress(CHAIN, DEV[1].address);
    return e.DepositRecordCount + e.DepositingRecordCount > 0 && e;
  }, 'the deposit record');
  t.equal(exchange.sender, DEV[1].address);
  const all = scs.getExchangeInfo(CHAIN);
  t.equal(all.microchain, CHAIN);
  t.same(scs.getTxpool(CHAIN), { pending: {}, queued: {} });
}
