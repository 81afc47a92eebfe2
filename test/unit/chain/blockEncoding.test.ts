// A block's size is counted without building its bytes, and a header's encoding is reused: both
// must equal what encoding from scratch gives.
import t from 'tap';
import { RLP } from '@ethereumjs/rlp';
import { blockFromParts, decodeHeader, EMPTY_TRIE_ROOT, EMPTY_UNCLES_HASH, encodeBlock, encodeHeader, sealHash, sealedHeader } from '../../../src/chain/block.js';
import { signTransaction } from '../../../src/chain/transaction.js';
import type { Header, SignedTx } from '../../../src/chain/types.js';
import { bytesToHex } from '../../../src/encoding/hex.js';
import { keccak256 } from '../../../src/encoding/bytes.js';

const header = (extraData: Uint8Array): Header => ({
  parentHash: new Uint8Array(32).fill(1),
  sha3Uncles: EMPTY_UNCLES_HASH,
  miner: new Uint8Array(20).fill(2),
  stateRoot: new Uint8Array(32).fill(3),
  transactionsRoot: EMPTY_TRIE_ROOT,
  receiptsRoot: EMPTY_TRIE_ROOT,
  logsBloom: new Uint8Array(256),
  difficulty: 0x200n,
  number: 77n,
  gasLimit: 8_000_000n,
  gasUsed: 21_000n,
  timestamp: 1_700_000_000n,
  extraData,
  mixHash: new Uint8Array(32).fill(4),
  nonce: new Uint8Array(8).fill(5),
});

const key = new Uint8Array(32).fill(9);
const tx = (nonce: number, dataLength: number): SignedTx => signTransaction({
  nonce: BigInt(nonce), syscnt: 0n, gasPrice: 1n, gas: 100_000n, to: new Uint8Array(20).fill(6), value: 1n,
  data: new Uint8Array(dataLength).fill(7), shardingFlag: 0n, via: null,
}, key, 100n);

t.test('size equals the length of the encoded block, across the RLP length-prefix boundaries', async (t) => {
  // 0 transactions; a body under 56 bytes is impossible with a header, so vary the transactions'
  // total across 55/56, 255/256 and 65535/65536 bytes by their data length.
  const cases: SignedTx[][] = [[]];
  for (const dataLength of [0, 1, 10, 100, 200, 300]) cases.push([tx(0, dataLength)]);
  cases.push(Array.from({ length: 40 }, (_, i) => tx(i, 1000 + i)));
  cases.push(Array.from({ length: 300 }, (_, i) => tx(i, 250)));
  for (const txs of cases) {
    for (const extra of [new Uint8Array(0), new Uint8Array(32).fill(8)]) {
      const h = header(extra);
      const block = blockFromParts(h, txs);
      const encoded = encodeBlock(h, txs);
      t.equal(block.size, encoded.length, `${txs.length} txs of ${txs.reduce((n, x) => n + x.raw.length, 0)} bytes`);
      t.equal(bytesToHex(block.hash), bytesToHex(keccak256(RLP.encode(RLP.decode(encodeHeader(h))))));
    }
  }
});

t.test('a header encoded twice gives the same bytes; a sealed copy gets its own encoding', async (t) => {
  const h = header(new Uint8Array(3));
  const first = encodeHeader(h);
  t.same(decodeHeader(first), h);
  t.equal(bytesToHex(encodeHeader(h)), bytesToHex(first));
  const sealed = { ...h, nonce: new Uint8Array(8).fill(0xaa) };
  const other = encodeHeader(sealed);
  t.not(bytesToHex(other), bytesToHex(first));
  t.same(decodeHeader(other).nonce, sealed.nonce);
});

t.test('a sealed header reuses its seal hash\'s encoding: the same bytes as encoding it afresh', async (t) => {
  // Short and long extra data put the unsealed list on both sides of the 56-byte prefix boundary
  // (it is always longer; the sealed one's prefix may grow by a byte).
  for (const extra of [new Uint8Array(0), new Uint8Array(32).fill(8), new Uint8Array(300).fill(9)]) {
    const unsealed = { ...header(extra), mixHash: new Uint8Array(32), nonce: new Uint8Array(8) };
    const pow = sealHash(unsealed);
    t.equal(bytesToHex(pow), bytesToHex(keccak256(RLP.encode(RLP.decode(encodeHeader(unsealed)).slice(0, 13) as Uint8Array[]))));
    const sealed = sealedHeader(unsealed, Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8), new Uint8Array(32).fill(0xab));
    t.equal(bytesToHex(encodeHeader(sealed)), bytesToHex(encodeHeader({ ...sealed })), `extra data of ${extra.length} bytes`);
    t.same(decodeHeader(encodeHeader(sealed)), { ...sealed });
  }
  // Without a seal hash taken first, the sealed header is encoded from its fields.
  const fresh = sealedHeader(header(new Uint8Array(1)), new Uint8Array(8).fill(1), new Uint8Array(32).fill(2));
  t.equal(bytesToHex(encodeHeader(fresh)), bytesToHex(encodeHeader({ ...fresh })));
});
