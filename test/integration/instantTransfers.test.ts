// Instant mining under the transfer workload of `npm run bench`: one sender one transaction at a
// time (a block each, the pool admitting each next nonce from the block's post-state), then
// several senders at once (blocks holding several transactions). Nonce order, receipts and
// balances are checked, and the pool refuses what the new head no longer allows.

import t from 'tap';
import { startNode, waitFor, type TestNode } from '../helpers/node.js';
import { GWEI, rawTx } from '../helpers/accounts.js';
import { bytesToHex, hexToBytes } from '../../src/encoding/hex.js';
import { deriveDevKeys, privateKeyToAddress } from '../../src/accounts/keys.js';
import { testDir } from '../helpers/testDir.js';

const TO = hexToBytes('0x00000000000000000000000000000000000dead1');
const PRICE = 20n * GWEI;
// The node's funded dev accounts (default mnemonic, 10 of them; the first is the coinbase).
const DEV = deriveDevKeys('test test test test test test test test test test test junk', 10)
  .map((key) => ({ key: bytesToHex(key), address: bytesToHex(privateKeyToAddress(key)) }));

let node: TestNode;
t.before(async () => {
  node = await startNode(testDir(t), ['--mining.mode', 'instant']);
});
t.teardown(() => node.stop());

const balance = async (address: string) => BigInt(await node.rpc('mc_getBalance', [address, 'latest']));
const receipt = (hash: string) => waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), `receipt of ${hash}`, 20_000);

t.test('one after another: a block per transaction, next nonce admitted, stale ones refused', async (t) => {
  const sender = DEV[3];
  const before = await balance(sender.address);
  const hashes: string[] = [];
  for (let n = 0n; n < 12n; n++) {
    const tx = rawTx(sender.key, { nonce: n, to: TO, value: 1000n + n, gas: 21_000n, gasPrice: PRICE });
    t.equal(await node.rpc('mc_sendRawTransaction', [tx.raw]), tx.hash);
    hashes.push(tx.hash);
    // Every other one waits for its block, so the next send meets the new head.
    if (n % 2n === 0n) await receipt(tx.hash);
  }
  const receipts = await Promise.all(hashes.map(receipt));
  const numbers = receipts.map((r) => BigInt(r.blockNumber));
  // A plain transfer's gas is MOAC's intrinsic gas; every one of them uses the same.
  const gas = BigInt(receipts[0].gasUsed);
  const fee = gas * PRICE;
  t.ok(gas > 0n && gas <= 21_000n);
  t.ok(receipts.every((r) => r.status === '0x1' && BigInt(r.gasUsed) === gas), 'every transfer succeeded, same gas');
  t.ok(numbers.every((b, i) => i === 0 || b >= numbers[i - 1]), 'blocks in nonce order');
  t.equal(BigInt(await node.rpc('mc_getTransactionCount', [sender.address, 'latest'])), 12n);
  const sent = Array.from({ length: 12 }, (_, i) => 1000n + BigInt(i)).reduce((a, b) => a + b, 0n);
  t.equal(await balance(sender.address), before - sent - 12n * fee, 'balance after 12 transfers');

  // The head's nonce is 12: nonce 5 again (another price, another hash) is too low.
  const stale = rawTx(sender.key, { nonce: 5n, to: TO, value: 1n, gas: 21_000n, gasPrice: 2n * PRICE });
  const refused = await node.call('mc_sendRawTransaction', [stale.raw]);
  t.match(refused.error?.message ?? '', /nonce too low/);
  // The pool wants gas limit × price + value up front, from the balance the last block left:
  // one wei more is refused, exactly that is accepted.
  const left = await balance(sender.address);
  const upfront = 21_000n * PRICE;
  const tooMuch = rawTx(sender.key, { nonce: 12n, to: TO, value: left - upfront + 1n, gas: 21_000n, gasPrice: PRICE });
  t.match((await node.call('mc_sendRawTransaction', [tooMuch.raw])).error?.message ?? '', /insufficient funds/);
  const all = rawTx(sender.key, { nonce: 12n, to: TO, value: left - upfront, gas: 21_000n, gasPrice: PRICE });
  t.equal(await node.rpc('mc_sendRawTransaction', [all.raw]), all.hash);
  t.equal((await receipt(all.hash)).status, '0x1');
  t.equal(await balance(sender.address), upfront - fee, 'the unused gas is all that is left');
});

t.test('several senders at once: blocks of several transactions, each sender in nonce order', async (t) => {
  const senders = [DEV[4], DEV[5], DEV[6], DEV[7]];
  const lanes = senders.map(async (s) => {
    const hashes: string[] = [];
    for (let n = 0n; n < 6n; n++) {
      const tx = rawTx(s.key, { nonce: n, to: TO, value: 1n, gas: 21_000n, gasPrice: PRICE });
      t.equal(await node.rpc('mc_sendRawTransaction', [tx.raw]), tx.hash);
      hashes.push(tx.hash);
    }
    return hashes;
  });
  const bySender = await Promise.all(lanes);
  const blocks = new Map<string, { index: bigint; hash: string }[]>();
  for (const hashes of bySender) {
    const receipts = await Promise.all(hashes.map(receipt));
    t.ok(receipts.every((r) => r.status === '0x1'));
    // Within a sender: strictly increasing (block, index) in nonce order.
    const at = receipts.map((r) => BigInt(r.blockNumber) * 10_000n + BigInt(r.transactionIndex));
    t.ok(at.every((p, i) => i === 0 || p > at[i - 1]), 'nonce order kept');
    for (const r of receipts) {
      const list = blocks.get(r.blockHash) ?? [];
      list.push({ index: BigInt(r.transactionIndex), hash: r.transactionHash });
      blocks.set(r.blockHash, list);
    }
  }
  // Each block's receipts: cumulative gas grows by one transfer's gas per transaction, matching the block.
  const gas = BigInt((await receipt(bySender[0][0])).gasUsed);
  for (const [hash, txs] of blocks) {
    const block = await node.rpc('mc_getBlockByHash', [hash, false]);
    t.equal(BigInt(block.gasUsed), gas * BigInt(block.transactions.length), `block ${block.number} gas`);
    for (const { index, hash: txHash } of txs) {
      const r = await node.rpc('mc_getTransactionReceipt', [txHash]);
      t.equal(BigInt(r.cumulativeGasUsed), gas * (index + 1n));
      t.equal(block.transactions[Number(index)], txHash);
    }
  }
  for (const s of senders) t.equal(BigInt(await node.rpc('mc_getTransactionCount', [s.address, 'latest'])), 6n);
  t.comment(`${senders.length * 6} transactions in ${blocks.size} blocks`);
});
