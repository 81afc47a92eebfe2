// The one rewind: the head goes back to a canonical ancestor in one batch (canonical index,
// transaction lookups, head), `rewound` reports the removed blocks newest first, their
// transactions return to the pool, and a restart finds the rewound head.

import t, { type Test } from 'tap';
import path from 'node:path';
import { openRig as open } from '../../../tools/lib/chainRig.js';
import { Blockchain, type NewHeadEvent } from '../../../src/blockchain/blockchain.js';
import { Database } from '../../../src/store/database.js';
import { keys } from '../../../src/store/schema.js';
import { bytesToHex } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

const hex = bytesToHex;

async function openRig(t: Test, dir = testDir(t)) {
  const rig = await open(dir);
  t.teardown(() => rig.close());
  return rig;
}

t.test('rewindTo moves head, indexes and lookups back; the transactions return to the pool', async (t) => {
  const rig = await openRig(t);
  const { chain, pool } = rig;
  const txs = [rig.tx(0, 0n), rig.tx(0, 1n), rig.tx(1, 0n), rig.tx(0, 2n)];
  await pool.add(txs[0]);
  const b1 = await rig.mine();
  await pool.add(txs[1]);
  await pool.add(txs[2]);
  const b2 = await rig.mine();
  await pool.add(txs[3]);
  const b3 = await rig.mine();
  t.equal(chain.head.header.number, 3n);
  t.equal(pool.size, 0, 'everything mined');

  const events: NewHeadEvent[][] = [];
  chain.on('rewound', (e) => events.push(e.removed));
  const heads: bigint[] = [];
  chain.on('newHead', (e) => heads.push(e.block.header.number));
  const removed = await rig.importer.rewindTo(b1.hash);

  t.same(removed.map((r) => hex(r.block.hash)), [hex(b3.hash), hex(b2.hash)], 'removed newest first');
  t.same(removed.map((r) => r.receipts.length), [1, 2], 'with their receipts');
  t.equal(events.length, 1, 'one rewound event');
  t.same(events[0].map((r) => r.block.header.number), [3n, 2n]);
  t.same(heads, [], 'no newHead for a rewind');
  t.equal(hex(chain.head.hash), hex(b1.hash), 'head is the ancestor');
  t.equal(await chain.getHashByNumber(2n), undefined, 'no canonical block 2');
  t.equal(await chain.getHashByNumber(3n), undefined, 'no canonical block 3');
  t.equal(await rig.db.get(keys.canonical(2n)), undefined, 'index entry deleted on disk');
  t.ok(await chain.findTransaction(txs[0].hash), 'tx of the kept block still found');
  for (const tx of txs.slice(1)) t.equal(await chain.findTransaction(tx.hash), undefined, 'lookup of a removed tx gone');
  t.ok(await chain.getBlockByHash(b3.hash), 'removed blocks stay stored by hash');

  const account = await rig.world.getAccount(chain.head.header.stateRoot, rig.addresses[0]);
  t.equal(account?.nonce, 1n, 'state at latest is the ancestor\'s');
  for (const tx of txs.slice(1)) t.ok(pool.get(tx.hash), `tx ${hex(tx.hash).slice(0, 10)} back in the pool`);
  t.same(pool.counts(), { pending: 3, queued: 0 }, 'all executable again');
  for (const tx of txs.slice(1)) t.ok(await rig.db.get(keys.poolJournal(tx.hash)), 'journaled again');

  // Mining goes on from the ancestor and includes them again.
  const again = await rig.mine();
  t.equal(again.header.number, 2n);
  t.equal(again.transactions.length, 3, 'the returned transactions are mined again');
  t.equal(hex((await chain.findTransaction(txs[3].hash))!.block.hash), hex(again.hash));
  t.equal(await rig.db.get(keys.poolJournal(txs[3].hash)), undefined, 'journal entry gone with the block');
});

t.test('rewindTo refuses what is not a canonical ancestor, and a rewind to the head changes nothing', async (t) => {
  const rig = await openRig(t);
  const b1 = await rig.mine();
  await rig.mine();
  await t.rejects(rig.chain.rewindTo(new Uint8Array(32).fill(7)), /unknown block/);
  const side = await rig.buildOn(b1, [], 9);
  t.equal(await rig.importer.importBlock(side), 'side');
  await t.rejects(rig.chain.rewindTo(side.hash), /not on the canonical chain/);
  t.same(await rig.chain.rewindTo(rig.chain.head.hash), [], 'nothing removed');
  t.equal(rig.chain.head.header.number, 2n);
});

t.test('a restart after a rewind opens the rewound head and reloads the returned transactions', async (t) => {
  const dir = testDir(t);
  const rig = await openRig(t, dir);
  await rig.pool.add(rig.tx(2, 0n));
  await rig.mine();
  await rig.pool.add(rig.tx(2, 1n));
  await rig.mine();
  const tx3 = rig.tx(2, 2n);
  await rig.pool.add(tx3);
  await rig.mine();
  await rig.chain.rewindTo(rig.chain.genesis.hash);
  await rig.pool.settled();
  await rig.close();

  const db = await Database.open(path.join(dir, 'chaindata'));
  t.teardown(() => db.close());
  const reopened = (await Blockchain.open(db))!;
  t.equal(reopened.head.header.number, 0n, 'head is the genesis after the restart');
  t.equal(await reopened.getHashByNumber(1n), undefined);
  t.equal(await reopened.findTransaction(tx3.hash), undefined);
  await db.close();

  const again = await openRig(t, dir);
  t.same(again.pool.counts(), { pending: 3, queued: 0 }, 'the journal brought the three transactions back');
  t.ok(again.pool.get(tx3.hash));
});

t.test('a rewind, and a block imported from outside, stop the local search', async (t) => {
  const rig = await openRig(t);
  const b1 = await rig.mine();
  await rig.mine();
  // A search that never finds: only a head change ends it.
  let aborted = false;
  const { Miner } = await import('../../../src/miner/miner.js');
  const miner = new Miner(rig.chain, rig.pool, rig.builder, rig.nodes, (_h, _d, signal) => new Promise((resolve) => {
    signal.addEventListener('abort', () => {
      aborted = true;
      resolve(undefined);
    });
  }), { mode: 'off', period: 1, coinbase: new Uint8Array(20), extraData: new Uint8Array(), targetGasLimit: 9_000_000n, difficulty: { mode: 'fixed', genesisDifficulty: 512n, targetBlockTime: 5n, minimumDifficulty: 1n } });
  t.teardown(() => miner.stop());
  const round = miner.mineBlocks(1);
  await new Promise((r) => setTimeout(r, 50));
  await rig.chain.rewindTo(b1.hash);
  t.same(await round, [], 'the round ended without a block');
  t.equal(aborted, true, 'the rewind aborted the search');

  aborted = false;
  const next = miner.mineBlocks(1);
  await new Promise((r) => setTimeout(r, 50));
  t.equal(aborted, false, 'a new search runs');
  t.equal(await rig.importer.importBlock(await rig.buildOn(rig.chain.head, [], 8)), 'extended');
  t.same(await next, [], 'that round ended without a block too');
  t.equal(aborted, true, 'the imported head aborted the search');
});

t.test('a head whose state is missing is rewound at open to the newest block with state', async (t) => {
  const dir = testDir(t);
  const rig = await openRig(t, dir);
  await rig.pool.add(rig.tx(5, 0n));
  const b1 = await rig.mine();
  const lost = rig.tx(5, 1n);
  await rig.pool.add(lost);
  const b2 = await rig.mine();
  await rig.close();
  // Damage: the top node of the head's state trie is gone.
  const db = await Database.open(path.join(dir, 'chaindata'));
  await db.del(keys.trieNode(b2.header.stateRoot));
  await db.close();

  const again = await openRig(t, dir);
  t.equal(hex(again.chain.head.hash), hex(b1.hash), 'opened at block 1');
  t.equal(await again.chain.getHashByNumber(2n), undefined);
  await again.pool.settled();
  t.ok(await again.db.get(keys.poolJournal(lost.hash)), 'block 2\'s transaction is journaled again');
  t.ok(again.pool.get(lost.hash), 'and pending in the pool');
});

t.test('returnTransactions: false keeps the removed transactions out; the sender\'s later ones wait', async (t) => {
  const rig = await openRig(t);
  const { chain, pool } = rig;
  await pool.add(rig.tx(8, 0n));
  const b1 = await rig.mine();
  const gone = rig.tx(8, 1n);
  await pool.add(gone);
  await rig.mine();
  const later = rig.tx(8, 2n);
  await pool.add(later);
  t.same(pool.counts(), { pending: 1, queued: 0 });
  const events: boolean[] = [];
  chain.on('rewound', (e) => events.push(e.returnTransactions));
  const removed = await rig.importer.rewindTo(b1.hash, { returnTransactions: false });
  t.equal(removed.length, 1);
  t.same(events, [false], 'the event says so');
  t.equal(pool.get(gone.hash), undefined, 'not back in the pool');
  t.equal(await rig.db.get(keys.poolJournal(gone.hash)), undefined, 'nor in the journal');
  t.same(pool.counts(), { pending: 0, queued: 1 }, 'nonce 2 now waits behind the gap at 1');
  t.ok(pool.get(later.hash));
});
