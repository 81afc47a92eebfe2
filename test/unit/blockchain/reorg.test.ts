// The one import path: a child of the head extends the chain; a block on another branch is
// stored beside it (a tie keeps the head); a branch with more total difficulty takes over in
// one batch, with `rewound` before the new branch's `newHead`s, old-branch transactions back in
// the pool, removed logs on log filters, new hashes on block filters; a restart keeps it.

import t, { type Test } from 'tap';
import path from 'node:path';
import { openRig as open, type Rig } from '../../../tools/lib/chainRig.js';
import { Blockchain } from '../../../src/blockchain/blockchain.js';
import { Database } from '../../../src/store/database.js';
import { keys } from '../../../src/store/schema.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { InvalidBlock } from '../../../src/importer/verifyBlock.js';
import { UnknownParent } from '../../../src/importer/blockImporter.js';
import { blockFromParts } from '../../../src/chain/block.js';
import type { Block } from '../../../src/chain/types.js';
import { testDir } from '../../helpers/testDir.js';

const hex = bytesToHex;

async function openRig(t: Test, dir = testDir(t)) {
  const rig = await open(dir);
  t.teardown(() => rig.close());
  return rig;
}
// Init code that emits one LOG0 (empty data) and deploys nothing.
const LOGGER = hexToBytes('0x60006000a0');

/** genesis → A1 → A2 mined locally; A2 holds a transfer and a logging creation of account 0. */
async function twoBlocks(rig: Rig): Promise<{ a1: Block; a2: Block }> {
  await rig.pool.add(rig.tx(1, 0n));
  const a1 = await rig.mine();
  await rig.pool.add(rig.tx(0, 0n));
  await rig.pool.add(rig.tx(0, 1n, { to: null, data: LOGGER, gas: 100_000n, value: 0n }));
  const a2 = await rig.mine();
  return { a1, a2 };
}

t.test('side block, tie, then a heavier branch takes over', async (t) => {
  const rig = await openRig(t);
  const { chain, pool, filters } = rig;
  const { a1, a2 } = await twoBlocks(rig);
  const [transfer, creation] = a2.transactions;
  const logFilter = filters.newLogFilter({ fromBlock: 'latest', toBlock: 'latest', criteria: { addresses: [], topics: [] } });
  const blockFilter = filters.newBlockFilter();

  // B2 on A1 holds another transaction of account 0 at nonce 0: the old branch's nonce-0 transfer cannot come back.
  const rival = rig.tx(0, 0n, { value: 2n });
  const b2 = await rig.buildOn(a1, [rival], 2);
  const order: string[] = [];
  chain.on('rewound', (e) => order.push(`rewound ${e.removed.map((r) => r.block.header.number).join(',')}`));
  chain.on('newHead', (e) => order.push(`newHead ${e.block.header.number}`));

  t.equal(await rig.importer.importBlock(b2), 'side', 'same total difficulty: stored as a side block');
  t.equal(hex(chain.head.hash), hex(a2.hash), 'a tie keeps the head');
  t.equal(hex((await chain.getHashByNumber(2n))!), hex(a2.hash), 'canonical index untouched');
  t.equal(await chain.getTotalDifficulty(b2.hash), await chain.getTotalDifficulty(a2.hash), 'stored with its total difficulty');
  t.ok(await chain.getBlockByHash(b2.hash), 'readable by hash');
  t.equal(await chain.findTransaction(rival.hash), undefined, 'a side block\'s transaction is not looked up');
  t.same(order, [], 'no event for a side block');
  t.equal(await rig.importer.importBlock(b2), 'known', 'a stored block is known');

  const extra = rig.tx(3, 0n);
  const b3 = await rig.buildOn(b2, [extra], 2);
  t.equal(await rig.importer.importBlock(b3), 'reorged');
  t.same(order, ['rewound 2', 'newHead 2', 'newHead 3'], 'rewound first, then the new branch oldest first');
  t.equal(hex(chain.head.hash), hex(b3.hash), 'the heavier branch is the head');
  t.equal(hex((await chain.getHashByNumber(2n))!), hex(b2.hash));
  t.equal(hex((await chain.getHashByNumber(1n))!), hex(a1.hash), 'the common ancestor stays');
  t.equal(await chain.findTransaction(transfer.hash), undefined, 'old-branch lookups gone');
  t.equal(hex((await chain.findTransaction(rival.hash))!.block.hash), hex(b2.hash), 'new-branch lookups in place');
  t.equal(hex((await chain.findTransaction(extra.hash))!.block.hash), hex(b3.hash));

  const account0 = await rig.world.getAccount(chain.head.header.stateRoot, rig.addresses[0]);
  t.equal(account0?.nonce, 1n, 'state of the new head');
  t.equal(pool.get(transfer.hash), undefined, 'the transfer replaced by the new branch does not come back');
  t.ok(pool.get(creation.hash), 'the old-branch creation missing from the new branch is back in the pool');
  t.same(pool.counts(), { pending: 1, queued: 0 });
  t.equal(await rig.db.get(keys.poolJournal(transfer.hash)), undefined, 'its journal entry dropped');
  t.ok(await rig.db.get(keys.poolJournal(creation.hash)), 'the returned one journaled');

  const logs = await filters.changes(logFilter);
  t.equal(logs.kind, 'logs');
  if (logs.kind === 'logs') {
    t.equal(logs.logs.length, 1, 'the old branch\'s log');
    t.equal(logs.logs[0].removed, true, 'flagged removed');
    t.equal(hex(logs.logs[0].at!.blockHash), hex(a2.hash));
    t.equal(hex(logs.logs[0].at!.txHash), hex(creation.hash));
  }
  const hashes = await filters.changes(blockFilter);
  t.same(hashes.kind === 'hashes' && hashes.hashes.map(hex), [hex(b2.hash), hex(b3.hash)], 'block filter: the new branch');

  // The creation applies on the new branch too: mined again, its log is not removed this time.
  const c = await rig.mine();
  t.equal(c.header.number, 4n);
  t.equal(hex(c.transactions[0].hash), hex(creation.hash));
  const again = await filters.changes(logFilter);
  t.same(again.kind === 'logs' && again.logs.map((e) => e.removed ?? false), [false]);
});

t.test('a restart after a reorganisation keeps the new head; the old branch stays stored', async (t) => {
  const dir = testDir(t);
  const rig = await openRig(t, dir);
  const { a1, a2 } = await twoBlocks(rig);
  const b2 = await rig.buildOn(a1, [], 5);
  const b3 = await rig.buildOn(b2, [], 5);
  t.equal(await rig.importer.importBlock(b2), 'side');
  t.equal(await rig.importer.importBlock(b3), 'reorged');
  await rig.pool.settled();
  await rig.close();

  const db = await Database.open(path.join(dir, 'chaindata'));
  t.teardown(() => db.close());
  const chain = (await Blockchain.open(db))!;
  t.equal(hex(chain.head.hash), hex(b3.hash), 'head after the restart');
  t.equal(hex((await chain.getHashByNumber(2n))!), hex(b2.hash));
  t.ok(await chain.getBlockByHash(a2.hash), 'the old branch is still stored');
  t.equal(await chain.findTransaction(a2.transactions[0].hash), undefined);
});

t.test('a child of the head extends it through the miner; bad blocks write nothing', async (t) => {
  const rig = await openRig(t);
  const { chain, pool } = rig;
  const tx = rig.tx(4, 0n);
  await pool.add(tx);
  const b1 = await rig.buildOn(chain.head, [tx], 3);
  const sealed: Block[] = [];
  rig.miner.on('sealed', (b) => sealed.push(b));
  t.equal(await rig.importer.importBlock(b1), 'extended');
  t.equal(hex(chain.head.hash), hex(b1.hash));
  t.equal(pool.get(tx.hash), undefined, 'the pool forgot the imported block\'s transaction');
  t.equal(await rig.db.get(keys.poolJournal(tx.hash)), undefined, 'and its journal entry');
  t.same(sealed, [], 'an imported block is not reported as sealed here');

  const good = await rig.buildOn(b1, [], 3);
  const badRoot = blockFromParts({ ...good.header, stateRoot: new Uint8Array(32).fill(1) }, good.transactions);
  const refused = await rig.importer.importBlock(badRoot).catch((err: unknown) => err);
  t.ok(refused instanceof InvalidBlock, 'a wrong state root is refused');
  t.match((refused as InvalidBlock).reason, /^state root mismatch/);
  const badPow = blockFromParts({ ...good.header, nonce: new Uint8Array(8).fill(0xee) }, good.transactions);
  await t.rejects(rig.importer.importBlock(badPow), /invalid proof of work/);
  await t.rejects(rig.importer.importBlock(new Uint8Array([0xc0])), /malformed block/);
  t.equal(await chain.hasBlock(badRoot.hash), false, 'nothing stored');
  const orphan = await rig.buildOn(good, [], 3);
  const unknown = await rig.importer.importBlock(orphan).catch((err: unknown) => err);
  t.ok(unknown instanceof UnknownParent, 'a block whose parent is not stored');
  t.equal(hex(chain.head.hash), hex(b1.hash), 'head unchanged');
  t.equal(await rig.importer.importBlock(good), 'extended');
  t.equal(await rig.importer.importBlock(orphan), 'extended', 'once its parent arrived');
});

t.test('a transaction on both branches points at its new block and stays out of the pool', async (t) => {
  const rig = await openRig(t);
  const { chain, pool } = rig;
  const shared = rig.tx(6, 0n);
  await pool.add(shared);
  const a1 = await rig.mine();
  const b1 = await rig.buildOn(chain.genesis, [shared], 4);
  const b2 = await rig.buildOn(b1, [], 4);
  t.equal(await rig.importer.importBlock(b1), 'side');
  t.equal(await rig.importer.importBlock(b2), 'reorged');
  t.equal(hex((await chain.findTransaction(shared.hash))!.block.hash), hex(b1.hash), 'lookup moved to the new branch');
  t.equal(pool.get(shared.hash), undefined, 'not returned: the new branch holds it');
  t.equal(await rig.db.get(keys.poolJournal(shared.hash)), undefined, 'no journal entry');
  t.not(hex(a1.hash), hex(b1.hash));
});

t.test('pool transactions queued behind rewound ones become executable again in order', async (t) => {
  const rig = await openRig(t);
  const { chain, pool } = rig;
  await pool.add(rig.tx(7, 0n));
  const b1 = await rig.mine();
  await pool.add(rig.tx(7, 1n));
  await rig.mine();
  const waiting = [rig.tx(7, 2n), rig.tx(7, 4n)];
  for (const tx of waiting) await pool.add(tx);
  t.same(pool.counts(), { pending: 1, queued: 1 });
  await rig.importer.rewindTo(b1.hash);
  t.same(pool.counts(), { pending: 2, queued: 1 }, 'nonce 1 back in front of 2; 4 still waits behind the gap');
  t.same(pool.content().pending.get(hex(rig.addresses[7]))?.map((tx) => tx.nonce), [1n, 2n]);
  t.equal(chain.head.header.number, 1n);
});

t.test('BLOCKHASH on a side branch sees the branch\'s own ancestors', async (t) => {
  const rig = await openRig(t);
  const { chain } = rig;
  const a1 = await rig.mine();
  const a2 = await rig.mine();
  // Init code: SSTORE(0, BLOCKHASH(NUMBER - 1)), deploys nothing; the stored word is the parent's hash.
  const creation = rig.tx(9, 0n, { to: null, data: hexToBytes('0x60014303406000550000'), gas: 100_000n, value: 0n });
  const b2 = await rig.buildOn(a1, [], 6);
  t.equal(await rig.importer.importBlock(b2), 'side');
  const b3 = await rig.buildOn(b2, [creation], 6);
  t.equal(await rig.importer.importBlock(b3), 'reorged');
  const { contractAddress } = (await chain.getReceipts(b3.hash))![0];
  const word = await rig.world.getStorage(chain.head.header.stateRoot, contractAddress!, new Uint8Array(32));
  t.equal(hex(word), hex(b2.hash), 'the side parent\'s hash, not the canonical block 2 of that time');
  t.not(hex(word), hex(a2.hash));
});

t.test('after a rewind, a removed block imported again (e.g. from a peer) takes the head back', async (t) => {
  const rig = await openRig(t);
  const { chain, pool } = rig;
  const b1 = await rig.mine();
  const tx = rig.tx(2, 0n);
  await pool.add(tx);
  const b2 = await rig.mine();
  const b3 = await rig.mine();
  await rig.importer.rewindTo(b1.hash);
  t.ok(pool.get(tx.hash), 'the rewound transaction is pending');
  t.equal(await rig.importer.importBlock(b2), 'reorged', 'heavier than the head: canonical again');
  t.equal(hex(chain.head.hash), hex(b2.hash));
  t.equal(pool.get(tx.hash), undefined, 'mined again by it: out of the pool');
  t.equal(await rig.importer.importBlock(b2), 'known', 'now it is simply known');
  t.equal(await rig.importer.importBlock(b3), 'reorged');
  t.equal(hex(chain.head.hash), hex(b3.hash));
});
