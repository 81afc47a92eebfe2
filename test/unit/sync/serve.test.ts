// Serving GetBlockHeaders and GetBlockBodies from the stored encodings: numbers, hashes, skip
// and reverse walk the canonical chain; a side block by hash is served alone; each header item
// hashes to the block's hash.

import t from 'tap';
import { RLP } from '@ethereumjs/rlp';
import { openRig } from '../../../tools/lib/chainRig.js';
import { serveBodies, serveHeaders } from '../../../src/sync/serve.js';
import { encodeBlock } from '../../../src/chain/block.js';
import { decodeBodies, decodeHeaders } from '../../../src/p2p/messages.js';
import type { Item } from '../../../src/sync/types.js';
import { testDir } from '../../helpers/testDir.js';

const wire = (items: Item[]): Item => RLP.decode(RLP.encode(items as never)) as Item;

t.test('headers by number or hash, skip and reverse; bodies', async (t) => {
  const rig = await openRig(testDir(t));
  t.teardown(() => rig.close());
  for (let i = 0; i < 10; i++) {
    if (i === 2) await rig.pool.add(rig.tx(0, 0n));
    await rig.mine();
  }
  const side = await rig.buildOn((await rig.chain.getBlockByNumber(3n))!, [], 9);
  t.equal(await rig.importer.importBlock(encodeBlock(side.header, side.transactions)), 'side');
  const numbers = async (req: Parameters<typeof serveHeaders>[1]) =>
    decodeHeaders(wire(await serveHeaders(rig.chain, req))).map((h) => Number(h.header.number));

  t.same(await numbers({ origin: 1n, amount: 3, skip: 1, reverse: false }), [1, 3, 5]);
  t.same(await numbers({ origin: 9n, amount: 3, skip: 2, reverse: true }), [9, 6, 3]);
  t.same(await numbers({ origin: 2n, amount: 5, skip: 0, reverse: true }), [2, 1, 0], 'stops at genesis');
  t.same(await numbers({ origin: 8n, amount: 5, skip: 0, reverse: false }), [8, 9, 10], 'stops at the head');
  t.same(await numbers({ origin: 11n, amount: 2, skip: 0, reverse: false }), [], 'above the head: nothing');
  const b4 = (await rig.chain.getBlockByNumber(4n))!;
  t.same(await numbers({ origin: b4.hash, amount: 2, skip: 0, reverse: false }), [4, 5], 'from a canonical hash');
  t.same(await numbers({ origin: side.hash, amount: 3, skip: 0, reverse: false }), [4], 'a side block by hash: alone');
  t.same(await numbers({ origin: side.hash, amount: 1, skip: 0, reverse: false }), [4]);
  const [h] = decodeHeaders(wire(await serveHeaders(rig.chain, { origin: side.hash, amount: 1, skip: 0, reverse: false })));
  t.same(h.hash, side.hash, 'the side block itself, not the canonical #4');
  const served = decodeHeaders(wire(await serveHeaders(rig.chain, { origin: 0n, amount: 11, skip: 0, reverse: false })));
  for (const w of served) t.same(w.hash, await rig.chain.getHashByNumber(w.header.number), `#${w.header.number} hashes to the stored block`);

  const b3 = (await rig.chain.getBlockByNumber(3n))!;
  const bodies = decodeBodies(wire(await serveBodies(rig.chain, [b3.hash, new Uint8Array(32), b4.hash])));
  t.equal(bodies.length, 2, 'an unknown hash is left out');
  t.same(bodies[0], b3.transactions.map((tx) => tx.raw), 'the transfer of block 3, byte for byte');
  t.same(bodies[1], []);
});
