// The direct ordered-trie root equals the root a real Merkle Patricia trie gives.
import t from 'tap';
import { createMPT } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { EMPTY_TRIE_ROOT, orderedTrieRoot } from '../../../src/chain/block.js';
import { bytesToHex } from '../../../src/encoding/hex.js';

async function mptRoot(values: Uint8Array[]): Promise<Uint8Array> {
  const trie = await createMPT();
  for (let i = 0; i < values.length; i++) await trie.put(RLP.encode(i), values[i]);
  return trie.root();
}

let seed = 7;
const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const randomBytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(random() * 256));

t.test('matches @ethereumjs/mpt for many list sizes and value lengths', async (t) => {
  t.equal(bytesToHex(orderedTrieRoot([])), bytesToHex(EMPTY_TRIE_ROOT));
  for (const size of [1, 2, 3, 15, 16, 17, 127, 128, 129, 200, 300]) {
    for (const maxLength of [1, 10, 40, 200]) {
      const values = Array.from({ length: size }, () => randomBytes(1 + Math.floor(random() * maxLength)));
      t.equal(bytesToHex(orderedTrieRoot(values)), bytesToHex(await mptRoot(values)), `${size} values up to ${maxLength} bytes`);
    }
  }
});
