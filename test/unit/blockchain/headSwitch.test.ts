// The switch batch on its own: canonical entries above the target deleted, the new branch's
// entries and lookups written, deletions ahead of puts, the removed user transactions (not
// system ones, not those the new branch holds) journaled, the new branch's unjournaled.

import t from 'tap';
import { RLP } from '@ethereumjs/rlp';
import { headSwitchOps } from '../../../src/blockchain/headSwitch.js';
import type { Block, SignedTx } from '../../../src/chain/types.js';
import { bigintToFixed } from '../../../src/encoding/bytes.js';
import { bytesToHex } from '../../../src/encoding/hex.js';
import { keys } from '../../../src/store/schema.js';

const tx = (n: number, syscnt = 0n) => ({ hash: bigintToFixed(BigInt(n), 32), raw: Uint8Array.of(n), syscnt }) as SignedTx;
const block = (number: bigint, id: number, transactions: SignedTx[] = []) =>
  ({ header: { number }, hash: bigintToFixed(BigInt(1000 + id), 32), transactions, size: 0 }) as unknown as Block;
const key = (k: Uint8Array) => bytesToHex(k);

t.test('a reorganisation batch', async (t) => {
  const shared = tx(1);
  const oldOnly = tx(2);
  const system = tx(3, 1n);
  const newOnly = tx(4);
  // Old branch #2..#4 over a common #1; new branch #2..#3 (shorter but heavier): #4 must go.
  const oldHead = block(4n, 4, [oldOnly]);
  const removed = [oldHead, block(3n, 3, [shared, system]), block(2n, 2)];
  const target = block(3n, 13, [newOnly]);
  const added = [block(2n, 12, [shared]), target];
  const ops = headSwitchOps(oldHead, target, removed, added);
  const firstPut = ops.findIndex((o) => o.type === 'put');
  t.ok(ops.slice(firstPut).every((o) => o.type === 'put'), 'every deletion comes before every put');
  const dels = new Set(ops.filter((o) => o.type === 'del').map((o) => key(o.key)));
  const puts = new Map(ops.filter((o) => o.type === 'put').map((o) => [key(o.key), o.type === 'put' ? o.value : undefined]));
  t.ok(dels.has(key(keys.canonical(4n))), 'canonical #4 (above the target) deleted');
  t.notOk(dels.has(key(keys.canonical(3n))), '#3 is overwritten, not deleted');
  t.equal(key(puts.get(key(keys.canonical(3n)))!), key(target.hash));
  t.equal(key(puts.get(key(keys.head))!), key(target.hash), 'head');
  for (const x of [shared, oldOnly, system]) t.ok(dels.has(key(keys.txIndex(x.hash))), 'old lookups deleted');
  t.same(RLP.decode(puts.get(key(keys.txIndex(shared.hash)))!), [added[0].hash, Uint8Array.of()], 'the shared tx points at its new block');
  t.ok(puts.has(key(keys.poolJournal(oldOnly.hash))), 'an old-branch-only transaction journaled');
  t.notOk(puts.has(key(keys.poolJournal(shared.hash))), 'one the new branch holds is not');
  t.notOk(puts.has(key(keys.poolJournal(system.hash))), 'a system transaction never is');
  t.ok(dels.has(key(keys.poolJournal(newOnly.hash))) && dels.has(key(keys.poolJournal(shared.hash))), 'the new branch\'s transactions leave the journal');
  const quiet = headSwitchOps(oldHead, target, removed, added, false);
  t.notOk(quiet.some((o) => o.type === 'put' && key(o.key) === key(keys.poolJournal(oldOnly.hash))), 'journal: false writes no entry');
});
