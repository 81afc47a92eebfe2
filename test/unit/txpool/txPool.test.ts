// The pool class on its own: a fake account state, a real LevelDB and journal file in a temp directory.

import { statSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { signTransaction } from '../../../src/chain/transaction.js';
import type { SignedTx, TxFields } from '../../../src/chain/types.js';
import { randomPrivateKey, privateKeyToAddress } from '../../../src/accounts/keys.js';
import { bytesToHex } from '../../../src/encoding/hex.js';
import { Database } from '../../../src/store/database.js';
import { keys } from '../../../src/store/schema.js';
import { TxPool, type PoolOptions } from '../../../src/txpool/txPool.js';
import { PoolEntries } from '../../../src/store/poolEntries.js';
import { decodeTransaction } from '../../../src/chain/transaction.js';
import { COMPACT_BYTES, journaledInFile } from '../../../src/txpool/poolJournal.js';
import { keccak256 } from '../../../src/encoding/bytes.js';
import { testDir } from '../../helpers/testDir.js';

const CHAIN_ID = 100n;
const GWEI = 1_000_000_000n;
const MC = 10n ** 18n;
const TO = new Uint8Array(20).fill(0xab);

class Account {
  readonly key = randomPrivateKey();
  readonly address = privateKeyToAddress(this.key);
  tx(nonce: bigint, fields: Partial<TxFields> = {}): SignedTx {
    return signTransaction(
      { nonce, syscnt: 0n, gasPrice: 20n * GWEI, gas: 21_000n, to: TO, value: 1n, data: new Uint8Array(), shardingFlag: 0n, via: null, ...fields },
      this.key,
      CHAIN_ID,
    );
  }
}

interface Harness {
  pool: TxPool;
  db: Database;
  /** the datadir: LevelDB in chaindata/, the journal file beside it */
  dir: string;
  state: Map<string, { nonce: bigint; balance: bigint }>;
  events: { pending: string[]; dropped: string[] };
}

const journalFile = (dir: string) => path.join(dir, 'txpool.journal');

async function harness(t: Test, overrides: Partial<PoolOptions> = {}, dir = testDir(t)): Promise<Harness> {
  const db = await Database.open(path.join(dir, 'chaindata'));
  t.teardown(() => db.close());
  const state = new Map<string, { nonce: bigint; balance: bigint }>();
  const pool = new TxPool(new PoolEntries(db), {
    minGasPrice: GWEI,
    priceBump: 10n,
    globalSlots: 4096,
    globalQueue: 1024,
    accountQueue: 64,
    blockGasLimit: () => 9_000_000n,
    accountAt: async (address) => state.get(bytesToHex(address)) ?? { nonce: 0n, balance: 1000n * MC },
    journalPath: journalFile(dir),
    ...overrides,
  });
  const events = { pending: [] as string[], dropped: [] as string[] };
  pool.on('pendingTx', (tx) => events.pending.push(`${tx.nonce}`));
  pool.on('dropped', (tx) => events.dropped.push(`${tx.nonce}`));
  return { pool, db, dir, state, events };
}

const nonces = (txs: SignedTx[] | undefined) => (txs ?? []).map((tx) => Number(tx.nonce));
/** Hashes of the journaled transactions: the file's, and LevelDB's entries (those a head switch wrote). */
const journaled = async ({ db, dir }: { db: Database; dir: string }) => {
  const out = new Set(journaledInFile(journalFile(dir)).map((raw) => bytesToHex(keccak256(raw))));
  // keys are 'p:' ‖ hash
  for await (const [key] of db.entries(keys.poolJournalRange)) out.add(bytesToHex(key.subarray(2)));
  return [...out].sort();
};
const refusal = (message: string) => ({ kind: 'txRejected', message });

t.test('pending and queued by nonce; a gap fill promotes and announces the promoted', async (t) => {
  const { pool, events } = await harness(t);
  const a = new Account();
  const key = bytesToHex(a.address);
  await pool.add(a.tx(0n));
  await pool.add(a.tx(2n));
  await pool.add(a.tx(3n));
  t.same(pool.counts(), { pending: 1, queued: 2 });
  t.same(nonces(pool.content().pending.get(key)), [0]);
  t.same(nonces(pool.content().queued.get(key)), [2, 3]);
  t.same(events.pending, ['0'], 'queued transactions are not announced');
  t.equal(pool.pendingNonce(a.address, 0n), 1n);

  await pool.add(a.tx(1n));
  t.same(pool.counts(), { pending: 4, queued: 0 });
  t.same(events.pending, ['0', '1', '2', '3'], 'the gap filler, then the promoted ones in nonce order');
  t.same(nonces(pool.pendingTransactions()), [0, 1, 2, 3]);
  t.equal(pool.pendingNonce(a.address, 0n), 4n);
  t.equal(pool.content().queued.size, 0);
});

t.test('refusals with geth\'s words', async (t) => {
  const { pool, state } = await harness(t);
  const a = new Account();
  state.set(bytesToHex(a.address), { nonce: 5n, balance: 21_000n * 20n * GWEI + 10n });
  await t.rejects(pool.add(a.tx(4n)), refusal('nonce too low'));
  await t.rejects(pool.add(a.tx(5n, { value: 11n })), refusal('insufficient funds for gas * price + value'));
  await t.rejects(pool.add(a.tx(5n, { gas: 999n })), refusal('intrinsic gas too low'), 'a MOAC transfer needs 1000');
  await t.rejects(pool.add(a.tx(5n, { gas: 9_000_001n })), refusal('exceeds block gas limit'));
  await t.rejects(pool.add(a.tx(5n, { gasPrice: GWEI - 1n })), refusal('transaction underpriced'));
  await t.rejects(pool.add(a.tx(5n, { data: new Uint8Array(129 * 1024), gas: 8_000_000n })), refusal('oversized data'));
  const ok = a.tx(5n, { value: 10n });
  await pool.add(ok);
  await t.rejects(pool.add(ok), refusal('already known'));
  t.equal(pool.size, 1);
});

t.test('replacement needs a 10% higher gas price; the old one leaves pool and journal', async (t) => {
  const h = await harness(t);
  const { pool, events } = h;
  const a = new Account();
  const first = a.tx(0n, { gasPrice: 100n * GWEI });
  await pool.add(first);
  await t.rejects(pool.add(a.tx(0n, { gasPrice: 109n * GWEI })), refusal('replacement transaction underpriced'));
  const second = a.tx(0n, { gasPrice: 110n * GWEI });
  await pool.add(second);
  t.equal(pool.get(first.hash), undefined);
  t.equal(pool.get(second.hash), second);
  t.same(pool.counts(), { pending: 1, queued: 0 });
  t.same(await journaled(h), [bytesToHex(second.hash)]);
  t.same(events.dropped, ['0']);
  t.same(events.pending, ['0', '0'], 'the replacement is announced');
});

t.test('a full pending set evicts the cheapest other sender\'s last transaction, only for a better price', async (t) => {
  const h = await harness(t, { globalSlots: 3 });
  const { pool, events } = h;
  const a = new Account();
  const b = new Account();
  const c = new Account();
  await pool.add(a.tx(0n, { gasPrice: 5n * GWEI }));
  await pool.add(a.tx(1n, { gasPrice: 2n * GWEI }));
  await pool.add(b.tx(0n, { gasPrice: 3n * GWEI }));
  await t.rejects(pool.add(c.tx(0n, { gasPrice: 2n * GWEI })), refusal('txpool is full'), 'equal price: no eviction');
  // a's own 2 Gsha transaction is cheaper, but a sender never evicts itself; b's pays 3.
  await t.rejects(pool.add(a.tx(2n, { gasPrice: (5n * GWEI) / 2n })), refusal('txpool is full'), 'no self-eviction');
  const rich = c.tx(0n, { gasPrice: 4n * GWEI });
  await pool.add(rich);
  t.same(pool.counts(), { pending: 3, queued: 0 });
  t.same(nonces(pool.content().pending.get(bytesToHex(a.address))), [0], 'a\'s nonce 1 (2 Gsha) was evicted');
  t.same(events.dropped, ['1']);
  t.equal((await journaled(h)).length, 3);
  t.same(pool.pendingTransactions().map((tx) => tx.gasPrice / GWEI), [5n, 4n, 3n], 'best price first across senders');
});

t.test('queue caps: per account (hard) and global (with eviction)', async (t) => {
  const { pool } = await harness(t, { accountQueue: 2, globalQueue: 3 });
  const a = new Account();
  const b = new Account();
  await pool.add(a.tx(5n, { gasPrice: 2n * GWEI }));
  await pool.add(a.tx(6n, { gasPrice: 2n * GWEI }));
  await t.rejects(pool.add(a.tx(7n, { gasPrice: 90n * GWEI })), refusal('txpool is full'));
  await pool.add(b.tx(5n, { gasPrice: 2n * GWEI }));
  t.same(pool.counts(), { pending: 0, queued: 3 });
  await t.rejects(pool.add(b.tx(6n, { gasPrice: 2n * GWEI })), refusal('txpool is full'), 'no cheaper queued transaction of another sender');
  const c = new Account();
  await t.rejects(pool.add(c.tx(9n, { gasPrice: 2n * GWEI })), refusal('txpool is full'));
  await pool.add(c.tx(9n, { gasPrice: 3n * GWEI }));
  t.same(pool.counts(), { pending: 0, queued: 3 });
  t.same(nonces(pool.content().queued.get(bytesToHex(a.address))), [5], 'the last queued of the cheapest sender went');
});

t.test('pending per account is only bounded by the global limit', async (t) => {
  const { pool } = await harness(t, { globalSlots: 4096 });
  const a = new Account();
  const txs = Array.from({ length: 4096 }, (_, i) => a.tx(BigInt(i)));
  const started = process.hrtime.bigint();
  for (const tx of txs) await pool.add(tx);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  t.comment(`4096 adds from one sender: ${ms.toFixed(0)} ms (${Math.round(4096 / (ms / 1000))} tx/s, journal included)`);
  t.same(pool.counts(), { pending: 4096, queued: 0 });
  t.equal(pool.pendingTransactions().length, 4096);
  await t.rejects(pool.add(a.tx(4096n)), refusal('txpool is full'));
});

t.test('promotion stops at the global cap and resumes when a block frees slots', async (t) => {
  const { pool, state, events } = await harness(t, { globalSlots: 3 });
  const a = new Account();
  await pool.add(a.tx(0n));
  for (const n of [2n, 3n, 4n]) await pool.add(a.tx(n));
  await pool.add(a.tx(1n));
  t.same(pool.counts(), { pending: 3, queued: 2 }, '3 and 4 wait for room');
  t.same(nonces(pool.pendingTransactions()), [0, 1, 2]);
  t.equal(pool.pendingNonce(a.address, 0n), 5n, 'the next nonce counts the contiguous waiting ones');

  const mined = pool.pendingTransactions().slice(0, 2);
  state.set(bytesToHex(a.address), { nonce: 2n, balance: 1000n * MC });
  events.pending.length = 0;
  await pool.onNewHead(mined);
  t.same(pool.counts(), { pending: 3, queued: 0 });
  t.same(nonces(pool.pendingTransactions()), [2, 3, 4]);
  t.same(events.pending, ['3', '4'], 'promoted transactions are announced (instant mining picks them up)');
  t.equal(pool.get(mined[0].hash), undefined, 'mined transactions left the pool');
});

t.test('a new head drops what the sender can no longer pay for', async (t) => {
  const h = await harness(t);
  const { pool, state, events } = h;
  const a = new Account();
  const cost = 21_000n * 20n * GWEI;
  state.set(bytesToHex(a.address), { nonce: 0n, balance: 10n * cost });
  const txs = [0n, 1n, 2n].map((n) => a.tx(n, { value: n === 2n ? 5n * cost : 1n }));
  for (const tx of txs) await pool.add(tx);
  state.set(bytesToHex(a.address), { nonce: 1n, balance: 2n * cost });
  await pool.onNewHead([txs[0]]);
  t.same(nonces(pool.pendingTransactions()), [1]);
  t.same(events.dropped, ['2']);
  // The mined entry leaves the journal in the block's batch (the miner's job), the dropped one here.
  t.same(await journaled(h), [txs[0], txs[1]].map((tx) => bytesToHex(tx.hash)).sort());
});

t.test('drop demotes later nonces to queued and trims the queue to its cap', async (t) => {
  const { pool } = await harness(t, { accountQueue: 1 });
  const a = new Account();
  const txs = [0n, 1n, 2n, 3n].map((n) => a.tx(n));
  for (const tx of txs) await pool.add(tx);
  await pool.drop([txs[1]]);
  t.same(pool.counts(), { pending: 1, queued: 1 });
  t.same(nonces(pool.content().queued.get(bytesToHex(a.address))), [2]);
});

t.test('concurrent adds of one nonce: exactly one wins', async (t) => {
  const { pool } = await harness(t);
  const a = new Account();
  const results = await Promise.allSettled([a.tx(0n, { value: 1n }), a.tx(0n, { value: 2n })].map((tx) => pool.add(tx)));
  t.same(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
  t.match((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason, refusal('replacement transaction underpriced'));
  t.same(pool.counts(), { pending: 1, queued: 0 });
});

t.test('the journal reloads pending and queued transactions and drops stale ones', async (t) => {
  const dir = testDir(t);
  const a = new Account();
  const txs = [0n, 1n, 3n].map((n) => a.tx(n));
  {
    // Not closed: as after a kill -9, the file holds what each add wrote.
    const db = await Database.open(path.join(dir, 'chaindata'));
    const pool = new TxPool(new PoolEntries(db), {
      minGasPrice: GWEI, priceBump: 10n, globalSlots: 10, globalQueue: 10, accountQueue: 10,
      blockGasLimit: () => 9_000_000n, accountAt: async () => ({ nonce: 0n, balance: MC }), journalPath: journalFile(dir),
    });
    for (const tx of txs) await pool.add(tx);
    await db.close();
  }
  const { pool, db } = await harness(t, {}, dir);
  const again = await pool.restore((raw) => decodeTransaction(raw, CHAIN_ID));
  t.same(again, { restored: 3, dropped: 0 });
  t.same(pool.counts(), { pending: 2, queued: 1 });
  await db.close().catch(() => undefined);

  // The sender's nonce moved on while the node was down: nonce 0 is stale.
  const later = await harness(t, {
    accountAt: async () => ({ nonce: 1n, balance: MC }),
  }, dir);
  t.same(await later.pool.restore((raw) => decodeTransaction(raw, CHAIN_ID)), { restored: 2, dropped: 1 });
  t.same(await journaled(later), [txs[1], txs[2]].map((tx) => bytesToHex(tx.hash)).sort());
});

t.test('queued transactions of an idle sender expire after the lifetime', async (t) => {
  const h = await harness(t, { lifetime: 60 });
  const { pool, events } = h;
  t.teardown(() => pool.close());
  const a = new Account();
  const b = new Account();
  await pool.add(a.tx(0n));
  await pool.add(a.tx(2n));
  await pool.add(b.tx(5n));
  const now = Date.now();
  t.equal(await pool.expire(now + 30_000), 0, 'not yet');
  t.equal(await pool.expire(now + 61_000), 2);
  t.same(pool.counts(), { pending: 1, queued: 0 }, 'pending transactions stay');
  t.same(events.dropped.sort(), ['2', '5']);
  t.equal((await journaled(h)).length, 1);
});

t.test('a mined nonce removes the pool\'s transaction at once, even one that replaced the mined one', async (t) => {
  const h = await harness(t);
  const { pool, state, events } = h;
  const a = new Account();
  const mined = a.tx(0n, { gasPrice: 20n * GWEI });
  const replacement = a.tx(0n, { gasPrice: 30n * GWEI });
  await pool.add(mined);
  await pool.add(replacement);
  await pool.add(a.tx(1n));
  pool.forgetMined([mined]);
  t.same(nonces(pool.pendingTransactions()), [1], 'synchronously gone');
  t.same(pool.counts(), { pending: 1, queued: 0 });
  state.set(bytesToHex(a.address), { nonce: 1n, balance: 1000n * MC });
  events.dropped.length = 0;
  await pool.onNewHead([mined]);
  t.same(events.dropped, ['0'], 'the replacement is reported dropped');
  t.notOk((await journaled(h)).includes(bytesToHex(replacement.hash)), 'and leaves the journal');
  t.same(pool.counts(), { pending: 1, queued: 0 });
});

t.test('a built block\'s post-state serves admission while its root is the head\'s, and only then', async (t) => {
  let headRoot = new Uint8Array(32).fill(1);
  const reads: string[] = [];
  const { pool, state } = await harness(t, {
    headRoot: () => headRoot,
    accountAt: async (address) => {
      reads.push(bytesToHex(address));
      return state.get(bytesToHex(address)) ?? { nonce: 0n, balance: 1000n * MC };
    },
  });
  const a = new Account();
  const key = bytesToHex(a.address);
  const tx0 = a.tx(0n);
  await pool.add(tx0);
  t.same(reads, [key], 'first admission reads the head state');
  reads.length = 0;

  // Block with tx0 committed: post-state nonce 1, and a balance the pool could not have guessed.
  headRoot = new Uint8Array(32).fill(2);
  state.set(key, { nonce: 1n, balance: 5n * MC });
  const postReads: string[] = [];
  await pool.onNewHead([tx0], {
    root: headRoot,
    accountAt: async (address) => {
      postReads.push(bytesToHex(address));
      return { nonce: 1n, balance: 5n * MC };
    },
  });
  t.same(postReads, [key], 'the new head reads the sender from the post-state');
  t.same(reads, [], 'and not from the head state');
  await pool.add(a.tx(1n));
  t.same(reads, [], 'admission after the block needs no state read');
  t.same(nonces(pool.content().pending.get(key)), [1]);
  // The post-state's nonce counts: a stale nonce is refused from it.
  await t.rejects(pool.add(a.tx(0n, { gasPrice: 40n * GWEI })), refusal('nonce too low'));
  // Its balance counts too: 5 MC cannot pay for 6 MC.
  await t.rejects(pool.add(a.tx(2n, { value: 6n * MC })), refusal('insufficient funds for gas * price + value'));
  t.same(reads, []);

  // Another head (a rewind, an import) with another root: the post-state no longer counts.
  headRoot = new Uint8Array(32).fill(3);
  state.set(key, { nonce: 1n, balance: 100n * MC });
  await pool.add(a.tx(2n, { value: 6n * MC }));
  t.same(reads, [key], 'read from the head state again');
  t.same(nonces(pool.content().pending.get(key)), [1, 2]);
});

t.test('an acknowledged transaction is in the journal file when add resolves, with no LevelDB write', async (t) => {
  const h = await harness(t);
  const batches: number[] = [];
  const batch = h.db.batch.bind(h.db);
  h.db.batch = (ops) => {
    batches.push(ops.length);
    return batch(ops);
  };
  const a = new Account();
  const tx = a.tx(0n);
  await h.pool.add(tx);
  t.same(journaledInFile(journalFile(h.dir)).map((raw) => bytesToHex(keccak256(raw))), [bytesToHex(tx.hash)]);
  t.same(batches, [], 'no LevelDB batch on the way');
  t.same(h.pool.journalDeletes([tx]), [], 'mining it deletes nothing in LevelDB');
});

t.test('transactions a head switch gave back (journaled in LevelDB) leave LevelDB when mined or dropped', async (t) => {
  const h = await harness(t);
  const a = new Account();
  const [first, second] = [a.tx(0n), a.tx(1n)];
  // What headSwitch.ts writes in its batch for the removed blocks' transactions.
  await h.db.batch([first, second].map((tx) => ({ type: 'put' as const, key: keys.poolJournal(tx.hash), value: tx.raw })));
  await h.pool.returnRemoved([first, second]);
  t.same(h.pool.pendingTransactions().map((tx) => tx.nonce), [0n, 1n]);
  t.same(h.pool.journalDeletes([first]).map((op) => bytesToHex(op.key)), [bytesToHex(keys.poolJournal(first.hash))], 'the mining block deletes the entry');
  await h.pool.drop([second]);
  t.same(await journaled(h), [bytesToHex(first.hash)], 'the dropped one left LevelDB');
  await h.db.batch(h.pool.journalDeletes([first]));
  h.pool.forgetMined([first]);
  t.same(h.pool.journalDeletes([first]), [], 'mined: nothing more to delete');
  t.same(await journaled(h), []);
});

t.test('restore merges the journal file and LevelDB\'s entries; close leaves the pool\'s content in the file', async (t) => {
  const dir = testDir(t);
  const a = new Account();
  const b = new Account();
  const fromFile = [a.tx(0n), a.tx(1n)];
  const fromDb = b.tx(0n);
  {
    const h = await harness(t, {}, dir);
    for (const tx of fromFile) await h.pool.add(tx);
    await h.db.put(keys.poolJournal(fromDb.hash), fromDb.raw);
    await h.db.put(keys.poolJournal(fromFile[0].hash), fromFile[0].raw); // in both: restored once
    await h.db.close();
  }
  const h = await harness(t, {}, dir);
  t.same(await h.pool.restore((raw) => decodeTransaction(raw, CHAIN_ID)), { restored: 3, dropped: 0 });
  t.same(h.pool.counts(), { pending: 3, queued: 0 });
  await h.pool.drop([h.pool.get(fromFile[1].hash)!]);
  h.pool.close();
  t.same(journaledInFile(journalFile(dir)).map((raw) => bytesToHex(keccak256(raw))).sort(), [fromFile[0], fromDb].map((tx) => bytesToHex(tx.hash)).sort());
  h.pool.close(); // twice is harmless
});

t.test('the journal file is rewritten with the pool\'s content once it grows large', async (t) => {
  const h = await harness(t);
  const a = new Account();
  const n = 2600n; // ~120 bytes a record: past COMPACT_BYTES
  for (let nonce = 0n; nonce < n; nonce++) {
    const tx = a.tx(nonce);
    await h.pool.add(tx);
    h.state.set(bytesToHex(a.address), { nonce: nonce + 1n, balance: 1000n * MC });
    await h.pool.onNewHead([tx]);
  }
  const waiting = a.tx(n);
  await h.pool.add(waiting);
  const size = statSync(journalFile(h.dir)).size;
  t.ok(size < COMPACT_BYTES, `rewritten (${size} bytes)`);
  const left = journaledInFile(journalFile(h.dir));
  t.ok(left.length < Number(n) / 2, `${left.length} records left`);
  t.ok(left.some((raw) => bytesToHex(keccak256(raw)) === bytesToHex(waiting.hash)), 'the waiting transaction kept');
  // After a crash, the mined ones still in the file are revalidated away.
  await h.db.close();
  const again = await harness(t, {}, h.dir);
  again.state.set(bytesToHex(a.address), { nonce: n, balance: 1000n * MC });
  t.same(await again.pool.restore((raw) => decodeTransaction(raw, CHAIN_ID)), { restored: 1, dropped: left.length - 1 });
});
