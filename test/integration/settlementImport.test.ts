// A chain whose app-chain flush paid a withdrawal carries the payout as a settlement system
// transaction: it shows in JSON as one (syscnt 1, from 0x…64, v = r = s = 0), users cannot send
// one, and the chain exports and imports into a fresh node that does not serve the app chain,
// to the same head hash and state root.

import t from 'tap';
import path from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { copyFileSync } from 'node:fs';
import { ROOT, startNode, type TestNode } from '../helpers/node.js';
import { DEV } from '../helpers/accounts.js';
import { mcnode } from '../fixtures/chains/prebuilt.js';
import { contractAddress } from '../../src/chain/transaction.js';
import { decodeBlockTransaction, settlementTx } from '../../src/chain/systemTx.js';
import { decodeBlockParts } from '../../src/chain/block.js';
import { fileChunks, readItems } from '../../src/chainFile/rlpStream.js';
import { bytesToBigint } from '../../src/encoding/bytes.js';
import { bytesToHex, hexToBytes } from '../../src/encoding/hex.js';
import { MC, advanceTo, callTx, dappBaseCode, deployTx, mainBalance, scsOf, sendApp, sendMain } from '../rpc/scs/scsHelpers.js';
import { testDir } from '../helpers/testDir.js';

const CHAIN = '0x57b7b8225bcb5d4c6c5abbe2e44fa67998cfa791';
const RATE = 1000n;
const FLUSH = 4;
const [OWNER, ALICE] = DEV;
const DECLARED = JSON.stringify([{ address: CHAIN, owner: OWNER.address, tokenSupply: '0x' + (10n ** 24n).toString(16), exchangeRate: Number(RATE), flushRound: FLUSH }]);
const dappBase = bytesToHex(contractAddress(hexToBytes(OWNER.address), 0n));
const IMPORTED = /imported (\d+) blocks, head #(\d+) (0x[0-9a-f]{64})/;
const cli = (datadir: string) => ['--datadir', datadir, '--ipcdisable', '--verbosity', '1'];

const dir = testDir(t);
let node: TestNode;
t.teardown(() => node?.stop());

const nextFlush = async (n: TestNode) => (Math.floor(Number(await n.rpc('mc_blockNumber')) / FLUSH) + 1) * FLUSH;

t.test('a flush pays a withdrawal with a settlement system transaction', async (t) => {
  node = await startNode(path.join(dir, 'source'), ['--mining.mode', 'instant', '--appChains', DECLARED]);
  const scs = scsOf(node);
  await sendApp(node, scs, CHAIN, deployTx(OWNER.key, { chain: CHAIN, nonce: 0n }, dappBaseCode()));
  const deposit = await sendMain(node, ALICE.key, { nonce: 0n, to: hexToBytes(CHAIN), value: 2n * MC, data: hexToBytes('0x6bbded70'), gas: 50_000n });
  t.equal(deposit.status, '0x1');
  await advanceTo(node, await nextFlush(node));
  const amount = 500n * MC;
  const redeem = await sendApp(node, scs, CHAIN, callTx(ALICE.key, { chain: CHAIN, nonce: 0n, value: amount }, dappBase, '0x89739c5b'));
  t.equal(redeem.status, '0x1');
  const aliceBefore = await mainBalance(node, ALICE.address);
  const flush = await nextFlush(node);
  await advanceTo(node, flush);
  t.equal(await mainBalance(node, ALICE.address), aliceBefore + amount / RATE, 'paid value / rate on the main chain');

  const block = await node.rpc('mc_getBlockByNumber', ['0x' + flush.toString(16), true]);
  const sys = block.transactions[block.transactions.length - 1];
  t.match(sys, {
    from: '0x0000000000000000000000000000000000000064', to: '0x0000000000000000000000000000000000000065', syscnt: '0x1',
    gas: '0x0', gasPrice: '0x0', value: '0x0', v: '0x0', r: '0x0', s: '0x0', shardingFlag: '0x0', blockNumber: block.number,
  });
  const payouts = (RLP.decode(hexToBytes(sys.input)) as Uint8Array[][]).map(([from, to, value]) => [bytesToHex(from), bytesToHex(to), bytesToBigint(value)]);
  t.same(payouts, [[CHAIN, ALICE.address, amount / RATE]], 'the payout list: [payer, payee, amount]');
  t.same(await node.rpc('mc_getTransactionByHash', [sys.hash]), sys);
  const receipt = await node.rpc('mc_getTransactionReceipt', [sys.hash]);
  t.match(receipt, { from: '0x0000000000000000000000000000000000000064', status: '0x1', gasUsed: '0x0', logs: [] });

  const sent = await node.call('mc_sendRawTransaction', [bytesToHex(settlementTx(9n, [{ from: hexToBytes(CHAIN), to: hexToBytes(ALICE.address), amount: 1n }]).raw)]);
  t.match(sent.error, { message: /syscnt must be 0 for user transactions/ }, 'users cannot send system transactions');
});

t.test('the chain exports and imports into a fresh node without the app chain', async (t) => {
  const head = await node.rpc('mc_getBlockByNumber', ['latest', false]);
  const alice = await mainBalance(node, ALICE.address);
  await node.stop();
  const file = path.join(dir, 'payouts.rlp');
  const exported = mcnode('export', file, ...cli(path.join(dir, 'source')));
  t.equal(exported.status, 0, exported.stderr);
  // Regenerates the committed test/fixtures/chains/payouts.rlp (see the README there).
  if (process.env.WRITE_PAYOUTS_FIXTURE) copyFileSync(file, path.join(ROOT, 'test/fixtures/chains/payouts.rlp'));

  const fresh = path.join(dir, 'fresh');
  const imported = mcnode('import', file, ...cli(fresh));
  t.equal(imported.status, 0, imported.stderr);
  const [, count, number, hash] = IMPORTED.exec(imported.stdout) ?? [];
  t.same([Number(count), Number(number), hash], [Number(head.number), Number(head.number), head.hash], 'the same head');

  node = await startNode(fresh, ['--mining.mode', 'off']);
  t.same(await scsOf(node).rpc('scs_getMicroChainList'), [], 'this node serves no app chain');
  const copy = await node.rpc('mc_getBlockByNumber', ['latest', false]);
  t.equal(copy.hash, head.hash);
  t.equal(copy.stateRoot, head.stateRoot, 'the same state root');
  t.equal(await mainBalance(node, ALICE.address), alice);
});

t.test('the committed payout chain (test/fixtures/chains/payouts.rlp) imports into a fresh devnet datadir', async (t) => {
  const file = path.join(ROOT, 'test/fixtures/chains/payouts.rlp');
  const blocks: ReturnType<typeof decodeBlockParts>[] = [];
  for await (const item of readItems(fileChunks(file))) blocks.push(decodeBlockParts(item));
  const settlements = blocks.flatMap((b) => b.rawTxs.map((raw) => decodeBlockTransaction(raw, 100n)).filter((tx) => tx.syscnt === 1n));
  t.equal(settlements.length, 1, 'one flush paid a withdrawal');
  const run = mcnode('import', file, ...cli(testDir(t)));
  t.equal(run.status, 0, run.stderr);
  t.match(run.stdout, new RegExp(`imported ${blocks.length} blocks, head #${blocks.length} `));
});
