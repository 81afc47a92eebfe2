import t from 'tap';
import { RLP } from '@ethereumjs/rlp';
import { TruncatedItem, itemLength, readItems } from '../../../src/chainFile/rlpStream.js';

async function collect(chunks: Uint8Array[]): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const item of readItems(chunks)) out.push(item);
  return out;
}

const items = [
  RLP.encode([new Uint8Array(3), [new Uint8Array(60)]]),
  RLP.encode([new Uint8Array(100_000)]), // long length prefix (0xf9 / 0xba)
  RLP.encode([]),
  RLP.encode(new Uint8Array([0x7f])),
];
const stream = Buffer.concat(items);

t.test('itemLength reads every prefix form', async (t) => {
  t.equal(itemLength(Uint8Array.of(0x05)), 1);
  t.equal(itemLength(Uint8Array.of(0x83, 1, 2, 3)), 4);
  t.equal(itemLength(Uint8Array.of(0xc0)), 1);
  t.equal(itemLength(Uint8Array.of(0xb8, 0x40)), 66);
  t.equal(itemLength(Uint8Array.of(0xf9, 0x01, 0x00)), 259);
  t.equal(itemLength(Uint8Array.of(0xf9, 0x01)), undefined, 'prefix not complete');
  t.equal(itemLength(new Uint8Array()), undefined);
  for (const item of items) t.equal(itemLength(item), item.length);
});

t.test('items come out whole however the bytes are chunked', async (t) => {
  for (const size of [1, 2, 7, 64, 4096, stream.length]) {
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < stream.length; i += size) chunks.push(stream.subarray(i, i + size));
    const out = await collect(chunks);
    t.equal(out.length, items.length, `chunks of ${size}`);
    out.forEach((item, i) => t.ok(Buffer.from(item).equals(Buffer.from(items[i]))));
  }
  t.same(await collect([]), []);
});

t.test('a cut inside an item is reported as truncated, after the whole items', async (t) => {
  const cut = stream.subarray(0, items[0].length + 500);
  const seen: number[] = [];
  const err = await (async () => {
    try {
      for await (const item of readItems([cut])) seen.push(item.length);
    } catch (e) {
      return e;
    }
  })();
  t.same(seen, [items[0].length]);
  t.ok(err instanceof TruncatedItem);
  t.equal((err as TruncatedItem).have, 500);
  t.equal((err as TruncatedItem).need, items[1].length);
});
