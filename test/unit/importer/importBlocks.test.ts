// Importing a run of received blocks (what sync does): children of the head are verified in a
// row and committed in groups, one batch a group. The imported chain must be the source's
// block for block (every root re-checked), BLOCKHASH inside a group must see the blocks not yet
// written, and a bad block in the middle commits the good ones before it and nothing of itself.

import t, { type Test } from 'tap';
import { openRig as open, type Rig } from '../../../tools/lib/chainRig.js';
import { encodeBlock, encodeBlockFromRaw, encodeHeader } from '../../../src/chain/block.js';
import type { Block } from '../../../src/chain/types.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { MAX_IMPORT_GROUP, type ReceivedBlock } from '../../../src/importer/blockImporter.js';
import { InvalidBlock } from '../../../src/importer/verifyBlock.js';
import { testDir } from '../../helpers/testDir.js';

async function openRig(t: Test, dir: string): Promise<Rig> {
  const rig = await open(dir);
  t.teardown(() => rig.close());
  return rig;
}

const received = (block: Block): ReceivedBlock => ({
  header: block.header,
  hash: block.hash,
  rawTxs: block.transactions.map((tx) => tx.raw),
  encoded: encodeBlock(block.header, block.transactions),
});

async function canonical(rig: Rig): Promise<Block[]> {
  const out: Block[] = [];
  for (let n = 1n; n <= rig.chain.head.header.number; n++) out.push((await rig.chain.getBlockByNumber(n))!);
  return out;
}

// Runtime: store BLOCKHASH(NUMBER - 1) at slot 0; the init code returns those 10 bytes.
const RUNTIME = '43600190034060005500';
const INIT = hexToBytes(`0x69${RUNTIME}600052600a6016f3`);

t.test('a run longer than a group: every block extended, same head, BLOCKHASH sees uncommitted blocks', async (t) => {
  const a = await openRig(t, testDir(t, { a: {}, b: {} }) + '/a');
  const b = await openRig(t, t.testdirName + '/b');
  let nonce = 0n;
  await a.pool.add(a.tx(0, nonce++, { to: null, data: INIT, gas: 200_000n }));
  const deployed = await a.mine();
  const contract = (await a.chain.getReceipts(deployed.hash))![0].contractAddress!;
  t.ok(contract, 'contract deployed');
  const count = MAX_IMPORT_GROUP + 10;
  for (let i = 1; i < count; i++) {
    // Every other block calls the contract; the rest are empty.
    if (i % 2 === 0) await a.pool.add(a.tx(0, nonce++, { to: contract, gas: 100_000n }));
    await a.mine();
  }
  const blocks = await canonical(a);
  t.equal(blocks.length, count);
  const heads: bigint[] = [];
  b.chain.on('newHead', ({ block }) => heads.push(block.header.number));
  const outcomes = await b.importer.importBlocks(blocks.map(received));
  t.same(outcomes, blocks.map(() => 'extended'));
  t.same(b.chain.head.hash, a.chain.head.hash, 'the same head');
  t.same(b.chain.head.header.stateRoot, a.chain.head.header.stateRoot, 'the same state');
  t.same(heads, blocks.map((x) => x.header.number), 'newHead announced once per block, in order');
  t.same((await b.chain.getBlockByNumber(5n))!.hash, blocks[4].hash, 'canonical index written');
  t.same(await b.chain.getHashByNumber(BigInt(MAX_IMPORT_GROUP)), blocks[MAX_IMPORT_GROUP - 1].hash, 'the group boundary block');
  t.equal(await b.importer.importBlock(encodeBlock(blocks[3].header, blocks[3].transactions)), 'known');
});

t.test('a bad block in the middle: the good prefix is committed, the bad block and the rest are not', async (t) => {
  const a = await openRig(t, testDir(t, { a: {}, b: {} }) + '/a');
  const b = await openRig(t, t.testdirName + '/b');
  for (let i = 0; i < 10; i++) {
    await a.pool.add(a.tx(1, BigInt(i)));
    await a.mine();
  }
  const blocks = (await canonical(a)).map(received);
  const bad = { ...blocks[5].header, stateRoot: new Uint8Array(32).fill(7) };
  const run = [...blocks];
  run[5] = { header: bad, rawTxs: blocks[5].rawTxs, encoded: encodeBlockFromRaw(encodeHeader(bad), blocks[5].rawTxs) };
  const err = await b.importer.importBlocks(run).catch((e: unknown) => e);
  t.ok(err instanceof InvalidBlock, `refused: ${(err as Error).message}`);
  t.match((err as Error).message, /state root mismatch/);
  t.equal(b.chain.head.header.number, 5n, 'head at the last good block');
  t.same(b.chain.head.hash, blocks[4].hash);
  t.notOk(await b.chain.hasBlock(blocks[5].hash!), 'the good block 6 was not stored either');
  t.equal(await b.chain.getHashByNumber(6n), undefined);
  // The state the good prefix left is whole: the genuine rest imports on it.
  t.same(await b.importer.importBlocks(blocks.slice(5)), blocks.slice(5).map(() => 'extended'));
  t.same(b.chain.head.hash, a.chain.head.hash);
  // A reopened datadir has the same head (the batches were written).
  await b.close();
  const again = await openRig(t, t.testdirName + '/b');
  t.same(again.chain.head.hash, a.chain.head.hash, 'the head survives a restart');
});

t.test('known blocks and side blocks in a run take the single-block path', async (t) => {
  const a = await openRig(t, testDir(t, { a: {}, b: {} }) + '/a');
  const b = await openRig(t, t.testdirName + '/b');
  for (let i = 0; i < 4; i++) await a.mine();
  const blocks = (await canonical(a)).map(received);
  t.same(await b.importer.importBlocks(blocks.slice(0, 2)), ['extended', 'extended']);
  t.same(await b.importer.importBlocks(blocks), ['known', 'known', 'extended', 'extended'], 'stored ones are known');
  t.same(b.chain.head.hash, a.chain.head.hash);
});
