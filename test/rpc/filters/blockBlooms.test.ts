// storedBlooms (chunked reads of canonical hashes and headers) yields exactly what reading whole
// blocks through Blockchain yields, across chunk boundaries and up to the head.

import t from 'tap';
import type { Header } from '../../../src/chain/types.js';
import { EMPTY_TRIE_ROOT, EMPTY_UNCLES_HASH, blockFromParts, logsBloom } from '../../../src/chain/block.js';
import { bigintToFixed } from '../../../src/encoding/bytes.js';
import { bytesToHex } from '../../../src/encoding/hex.js';
import { Database } from '../../../src/store/database.js';
import { Blockchain } from '../../../src/blockchain/blockchain.js';
import { blockBlooms, storedBlooms, type BloomSource } from '../../../src/filters/blockBlooms.js';
import { testDir } from '../../helpers/testDir.js';

const header = (number: bigint, parentHash: Uint8Array): Header => ({
  parentHash, sha3Uncles: EMPTY_UNCLES_HASH, miner: new Uint8Array(20), stateRoot: EMPTY_TRIE_ROOT,
  transactionsRoot: EMPTY_TRIE_ROOT, receiptsRoot: EMPTY_TRIE_ROOT,
  logsBloom: logsBloom([{ address: bigintToFixed(number, 20), topics: [], data: new Uint8Array() }]),
  difficulty: 512n, number, gasLimit: 9_000_000n, gasUsed: 0n, timestamp: number, extraData: new Uint8Array(),
  mixHash: new Uint8Array(32), nonce: new Uint8Array(8),
});

async function collect(source: BloomSource, from: bigint, to: bigint) {
  const out: string[] = [];
  for await (const b of source(from, to)) out.push(`${bytesToHex(b.hash)}/${bytesToHex(b.logsBloom)}`);
  return out;
}

t.test('storedBlooms equals blockBlooms', async (t) => {
  const db = await Database.open(testDir(t));
  t.teardown(() => db.close());
  const chain = await Blockchain.create(db, blockFromParts(header(0n, new Uint8Array(32)), []), []);
  for (let n = 1n; n <= 600n; n++) await chain.commitBlock(blockFromParts(header(n, chain.head.hash), []), [], []);
  const stored = storedBlooms(db);
  const slow = blockBlooms(chain);
  for (const [from, to] of [[0n, 600n], [255n, 257n], [1n, 1n], [300n, 599n], [512n, 600n]] as const) {
    const got = await collect(stored, from, to);
    t.equal(got.length, Number(to - from + 1n), `${from}..${to} count`);
    t.same(got, await collect(slow, from, to), `${from}..${to} same hashes and blooms`);
  }
  t.ok((await collect(stored, 599n, 600n))[1].startsWith(bytesToHex(chain.head.hash)), 'ends at the head');
  t.same(await collect(stored, 601n, 700n), [], 'nothing past the head');
});
