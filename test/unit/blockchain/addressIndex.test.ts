// The address index (Otterscan's searches): written with each block, internal calls included;
// moved by a reorganisation and by the rewind in the same batch as the canonical index; rebuilt
// for a datadir made before it existed to exactly what the live path writes.

import t, { type Test } from 'tap';
import { openRig as open, type Rig } from '../../../tools/lib/chainRig.js';
import { AddressIndexReader } from '../../../src/blockchain/addressIndex.js';
import { AddressIndexRebuild } from '../../../src/blockchain/addressIndexRebuild.js';
import { ChainTraces } from '../../../src/tracing/chainTraces.js';
import { TouchTracer } from '../../../src/tracing/touchTracer.js';
import { TraceRunner } from '../../../src/tracing/traceRunner.js';
import { TrieNodeStore } from '../../../src/state/trieNodeStore.js';
import { keys } from '../../../src/store/schema.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import type { BatchOp } from '../../../src/store/database.js';
import { RLP } from '@ethereumjs/rlp';
import { bigintToBytes } from '../../../src/encoding/bytes.js';
import { testDir } from '../../helpers/testDir.js';

const hex = bytesToHex;

async function openRig(t: Test, dir = testDir(t)) {
  const rig = await open(dir);
  t.teardown(() => rig.close());
  return rig;
}

/** An account that only an internal call reaches. */
const INNER = hexToBytes('0x' + '5e'.repeat(20));
/** Init code: CALL(gas, INNER, 0, 0, 0, 0, 0), then deploy nothing. */
const CALLER = hexToBytes('0x60006000600060006000' + '73' + '5e'.repeat(20) + '5af100');

/** The index's entries of `address` as `number:index`, newest first. */
async function entries(rig: Rig, address: Uint8Array): Promise<string[]> {
  const { places } = await new AddressIndexReader(rig.db).search(address, 0n, rig.chain.head.header.number, true, 1000);
  return places.map((p) => `${p.number}:${p.index}`);
}

/** Every `o:` and `t:` key in the database. */
async function indexKeys(rig: Rig): Promise<string[]> {
  const out: string[] = [];
  for (const prefix of ['o:', 't:']) {
    const p = new TextEncoder().encode(prefix);
    for await (const [k] of rig.db.entries({ gte: p, lt: Uint8Array.of(p[0], p[1] + 1) })) out.push(hex(k));
  }
  return out;
}

t.test('each block writes its entries: senders, recipients, created contracts, internal calls', async (t) => {
  const rig = await openRig(t);
  const [a0, a1] = rig.addresses;
  const recipient = new Uint8Array(20).fill(0xab);
  await rig.pool.add(rig.tx(0, 0n));
  await rig.mine();
  await rig.pool.add(rig.tx(1, 0n));
  await rig.pool.add(rig.tx(0, 1n, { to: null, data: CALLER, gas: 200_000n, value: 0n }));
  const b2 = await rig.mine();
  t.same(await entries(rig, a0), ['2:1', '1:0']);
  t.same(await entries(rig, a1), ['2:0']);
  t.same(await entries(rig, recipient), ['2:0', '1:0']);
  t.same(await entries(rig, INNER), ['2:1'], 'reached only by an internal call');
  const receipts = await rig.chain.getReceipts(b2.hash);
  t.same(await entries(rig, receipts![1].contractAddress!), ['2:1'], 'the created contract');
  const page = await new AddressIndexReader(rig.db).search(recipient, 0n, 2n, true, 1);
  t.same(page, { places: [{ number: 2n, index: 0 }], more: true }, 'a page stops after the block that fills it');
});

t.test('a reorganisation and a rewind move the entries with the canonical chain', async (t) => {
  const rig = await openRig(t);
  const [a0, , a2] = rig.addresses;
  await rig.pool.add(rig.tx(1, 0n));
  const a1Block = await rig.mine();
  await rig.pool.add(rig.tx(0, 0n));
  const a2Block = await rig.mine();
  t.same(await entries(rig, a0), ['2:0']);

  // A heavier branch from block 1: account 2's transfer and a call reaching INNER.
  const b2 = await rig.buildOn(a1Block, [rig.tx(2, 0n, { to: null, data: CALLER, gas: 200_000n, value: 0n })], 2);
  t.equal(await rig.importer.importBlock(b2), 'side');
  t.ok(await rig.db.get(keys.touched(b2.hash)), 'a side block keeps its touched addresses');
  t.same(await entries(rig, INNER), [], 'a side block has no canonical entries');
  const b3 = await rig.buildOn(b2, [rig.tx(2, 1n)], 2);
  t.equal(await rig.importer.importBlock(b3), 'reorged');
  t.same(await entries(rig, a0), [], 'the old branch\'s entries are gone');
  t.same(await entries(rig, a2), ['3:0', '2:0']);
  t.same(await entries(rig, INNER), ['2:0'], 'the new branch\'s internal call is indexed');

  await rig.importer.rewindTo(a1Block.hash);
  t.same(await entries(rig, a2), [], 'the rewind removes them');
  t.same(await entries(rig, INNER), []);
  // The old branch is stored: re-announced after the rewind it outweighs the head again.
  t.equal(await rig.importer.importBlock(a2Block), 'reorged');
  t.same(await entries(rig, a0), ['2:0'], 'its entries come back from its stored touched addresses');
  t.same(await entries(rig, a2), []);
});

t.test('the rebuild for an older datadir writes exactly what the live path wrote', async (t) => {
  const rig = await openRig(t);
  await rig.pool.add(rig.tx(0, 0n, { to: null, data: CALLER, gas: 200_000n, value: 0n }));
  await rig.mine();
  await rig.mine();
  await rig.pool.add(rig.tx(1, 0n));
  await rig.pool.add(rig.tx(0, 1n));
  await rig.mine();
  const live = await indexKeys(rig);
  t.ok(live.length > 6);

  // What a datadir of the version before the index holds: neither key family nor the state key.
  const dels: BatchOp[] = [...live.map((k) => ({ type: 'del' as const, key: hexToBytes(k) })), { type: 'del', key: keys.addressIndexState }];
  await rig.db.batch(dels);
  t.same(await indexKeys(rig), []);

  const runner = new TraceRunner({ world: rig.world, scratchNodes: () => TrieNodeStore.scratchOver(rig.nodes), makeEvm: (sm) => rig.builder.createEvm(sm), rules: rig.rules, gasCap: 50_000_000n });
  const traces = new ChainTraces(rig.chain, runner);
  const lines: string[] = [];
  const rebuild = await AddressIndexRebuild.open({
    db: rig.db, chain: rig.chain, replay: (block) => traces.block(block, () => new TouchTracer()),
    log: (m) => lines.push(m), warn: (m) => lines.push(`warn ${m}`),
  });
  t.same(rebuild.building, { next: 1n, end: 3n }, 'it starts from block 1 up to the head');
  rebuild.start();
  await rebuild.finished();
  t.same(await indexKeys(rig), live, 'the same entries');
  t.equal(rebuild.building, undefined);
  t.match(lines.at(-1), /address index complete/);
  const again = await AddressIndexRebuild.open({ db: rig.db, chain: rig.chain, replay: () => Promise.reject(new Error('no replay')), log: () => {}, warn: () => {} });
  t.equal(again.building, undefined, 'a complete index is not rebuilt at the next start');

  // A rebuild stopped after its progress mark said blocks 1..2 were done: the next start goes on at 3.
  await rig.db.batch([...live.map((k) => ({ type: 'del' as const, key: hexToBytes(k) }))]);
  await rig.db.put(keys.addressIndexState, RLP.encode([bigintToBytes(3n), bigintToBytes(3n)]));
  const replayed: bigint[] = [];
  const resumed = await AddressIndexRebuild.open({
    db: rig.db, chain: rig.chain, replay: (block) => (replayed.push(block.header.number), traces.block(block, () => new TouchTracer())),
    log: () => {}, warn: () => {},
  });
  t.same(resumed.building, { next: 3n, end: 3n }, 'the stored progress');
  resumed.start();
  await resumed.finished();
  t.same(replayed, [3n], 'only the blocks after the mark are replayed');
  t.same(await entries(rig, new Uint8Array(20).fill(0xab)), ['3:1', '3:0'], 'block 3 indexed');
  t.same(await entries(rig, INNER), [], 'block 1 was not (the mark said it was done)');
});
