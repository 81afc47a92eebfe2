// mc/63 message bodies: canonical integers, header hashing from the exact encoding, bounds of
// requests and replies, and the per-peer known-hash set.

import t from 'tap';
import { RLP } from '@ethereumjs/rlp';
import { encodeHeader, headerHash } from '../../../src/chain/block.js';
import type { Header } from '../../../src/chain/types.js';
import {
  MAX_HEADERS, decodeBodies, decodeGetHeaders, decodeHeaders, decodeNewBlock, decodeNewBlockHashes,
  encodeGetHeaders, headerItem, uint,
} from '../../../src/p2p/messages.js';
import { BoundedSet } from '../../../src/p2p/peer.js';

const MALFORMED = { name: 'MalformedMessage' };

const header: Header = {
  parentHash: new Uint8Array(32).fill(1), sha3Uncles: new Uint8Array(32).fill(2), miner: new Uint8Array(20).fill(3),
  stateRoot: new Uint8Array(32).fill(4), transactionsRoot: new Uint8Array(32).fill(5), receiptsRoot: new Uint8Array(32).fill(6),
  logsBloom: new Uint8Array(256), difficulty: 512n, number: 7n, gasLimit: 9_000_000n, gasUsed: 0n, timestamp: 1_600_000_000n,
  extraData: new Uint8Array(), mixHash: new Uint8Array(32), nonce: new Uint8Array(8).fill(9),
};

t.test('canonical integers', async (t) => {
  t.equal(uint(new Uint8Array(), 'x'), 0n);
  t.equal(uint(Uint8Array.of(1, 0), 'x'), 256n);
  t.throws(() => uint(Uint8Array.of(0, 1), 'x'), MALFORMED, 'leading zero refused');
  t.throws(() => uint(Uint8Array.of(0), 'x'), MALFORMED, 'zero as 0x00 refused');
  t.throws(() => uint([] as never, 'x'), MALFORMED, 'a list is not an integer');
  t.throws(() => uint(new Uint8Array(33).fill(1), 'x'), MALFORMED, 'over 256 bits');
});

t.test('GetBlockHeaders round trip and bounds', async (t) => {
  const byNumber = decodeGetHeaders(encodeGetHeaders({ origin: 5n, amount: 3, skip: 1, reverse: true }));
  t.same(byNumber, { origin: 5n, amount: 3, skip: 1, reverse: true });
  const hash = new Uint8Array(32).fill(7);
  const byHash = decodeGetHeaders(encodeGetHeaders({ origin: hash, amount: 1000, skip: 0, reverse: false }));
  t.same(byHash.origin, hash);
  t.equal(byHash.amount, MAX_HEADERS, 'a request for more is served at most 192');
  t.throws(() => decodeGetHeaders([new Uint8Array(), new Uint8Array(), new Uint8Array(), Uint8Array.of(2)]), MALFORMED, 'reverse must be 0 or 1');
  t.throws(() => decodeGetHeaders(Uint8Array.of(1)), MALFORMED, 'not a list');
});

t.test('headers hash from their exact encoding; non-canonical ones are refused', async (t) => {
  const [decoded] = decodeHeaders([headerItem(header)]);
  t.same(decoded.hash, headerHash(header));
  t.equal(decoded.header.number, 7n);
  const fields = RLP.decode(encodeHeader(header)) as Uint8Array[];
  const padded = [...fields];
  padded[8] = Uint8Array.of(0, 7); // number with a leading zero
  t.throws(() => decodeHeaders([padded]), MALFORMED);
  t.throws(() => decodeHeaders([fields.slice(0, 14)]), MALFORMED, '14 fields');
  t.throws(() => decodeHeaders(Array.from({ length: MAX_HEADERS + 1 }, () => headerItem(header))), MALFORMED, 'more than 192 headers');
});

t.test('bodies, NewBlock, NewBlockHashes', async (t) => {
  const tx = [Uint8Array.of(1), Uint8Array.of(2)];
  t.same(decodeBodies([[[tx], []]]), [[RLP.encode(tx)]]);
  t.throws(() => decodeBodies([[[tx], [headerItem(header)]]]), MALFORMED, 'uncles refused');
  const nb = decodeNewBlock([[headerItem(header), [tx], []], Uint8Array.of(2, 0)]);
  t.equal(nb.td, 512n);
  t.same(nb.block.header.hash, headerHash(header));
  t.same(nb.block.encoded, RLP.encode([headerItem(header), [tx], []] as never));
  t.throws(() => decodeNewBlock([[Uint8Array.of(1)], Uint8Array.of(5)]), MALFORMED);
  const hashes = decodeNewBlockHashes([[new Uint8Array(32), Uint8Array.of(3)]]);
  t.equal(hashes[0].number, 3n);
  t.throws(() => decodeNewBlockHashes([[new Uint8Array(31), Uint8Array.of(3)]]), MALFORMED, 'short hash');
});

t.test('known-hash sets forget the oldest past their limit', async (t) => {
  const set = new BoundedSet(3);
  for (const k of ['a', 'b', 'c', 'd']) set.add(k);
  t.equal(set.size, 3);
  t.notOk(set.has('a'));
  t.ok(set.has('d'));
  set.add('b'); // touched: now the newest
  set.add('e');
  t.ok(set.has('b'));
  t.notOk(set.has('c'));
});
