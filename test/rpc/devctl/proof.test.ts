// mc_getProof / eth_getProof checked with an independent Merkle-Patricia walk written here
// (RLP decode, keccak of every node, hex-prefix paths) against each block's stateRoot;
// mc_feeHistory's shape and rewards.

import t, { type Test } from 'tap';
import { RLP } from '@ethereumjs/rlp';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV, GWEI, rawTx } from '../../helpers/accounts.js';
import { contract, encodeCall, word } from '../../helpers/abi.js';
import { keccak256 } from '../../../src/encoding/bytes.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

type Node = Uint8Array | Node[];

const EMPTY_ROOT = bytesToHex(keccak256(RLP.encode(new Uint8Array())));
const nibbles = (bytes: Uint8Array) => [...bytes].flatMap((b) => [b >> 4, b & 15]);

/** The value at `key` (already hashed) under `root`, or null when the proof shows it absent. */
function walk(root: Uint8Array, key: Uint8Array, proof: Uint8Array[]): Uint8Array | null {
  const byHash = new Map(proof.map((n) => [bytesToHex(keccak256(n)), n]));
  const path = nibbles(key);
  let ref: Node = root;
  let i = 0;
  for (;;) {
    let node: Node[];
    if (ref instanceof Uint8Array) {
      // The empty trie (keccak of RLP '') holds nothing.
      if (ref.length === 0 || bytesToHex(ref) === EMPTY_ROOT) return null;
      const raw = byHash.get(bytesToHex(ref));
      if (!raw) throw new Error(`proof lacks node ${bytesToHex(ref)}`);
      node = RLP.decode(raw) as Node[];
    } else {
      node = ref; // a node under 32 bytes sits inline in its parent
    }
    if (node.length === 17) {
      if (i === path.length) return (node[16] as Uint8Array).length ? (node[16] as Uint8Array) : null;
      ref = node[path[i++]];
      if (ref instanceof Uint8Array && ref.length === 0) return null;
      continue;
    }
    const encoded = node[0] as Uint8Array;
    const flag = encoded[0] >> 4;
    const part = nibbles(encoded).slice(flag % 2 === 1 ? 1 : 2);
    if (!part.every((n, k) => path[i + k] === n)) return null;
    i += part.length;
    if (flag >= 2) return i === path.length ? (node[1] as Uint8Array) : null;
    ref = node[1];
  }
}

const big = (b: Uint8Array) => (b.length ? BigInt(bytesToHex(b)) : 0n);

async function checkProof(t: Test, node: TestNode, addr: string, slots: string[], tag: string) {
  const block = await node.rpc('mc_getBlockByNumber', [tag, false]);
  const p = await node.rpc('eth_getProof', [addr, slots, tag]);
  t.equal(p.address, addr);
  const leaf = walk(hexToBytes(block.stateRoot), keccak256(hexToBytes(addr)), p.accountProof.map(hexToBytes));
  if (leaf === null) {
    t.equal(p.balance, '0x0', 'absent account: zero balance');
    t.equal(p.nonce, '0x0');
  } else {
    const [nonce, balance, storageRoot, codeHash] = RLP.decode(leaf) as Uint8Array[];
    t.equal(p.nonce, '0x' + big(nonce).toString(16), 'nonce proven');
    t.equal(p.balance, '0x' + big(balance).toString(16), 'balance proven');
    t.equal(p.storageHash, bytesToHex(storageRoot), 'storage root proven');
    t.equal(p.codeHash, bytesToHex(codeHash), 'code hash proven');
  }
  for (const [i, s] of p.storageProof.entries()) {
    const value = walk(hexToBytes(p.storageHash), keccak256(hexToBytes('0x' + word(slots[i]))), s.proof.map(hexToBytes));
    const proven = value === null ? 0n : big(RLP.decode(value) as Uint8Array);
    t.equal(s.value, '0x' + proven.toString(16), `slot ${slots[i]} proven at ${tag}`);
  }
  return p;
}

t.test('proofs verify against each block\'s stateRoot; feeHistory', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'instant', '--minerthreads', '1']);
  t.teardown(() => node.stop());
  const receiptOf = (h: string) => waitFor(() => node.rpc('mc_getTransactionReceipt', [h]), 'receipt');
  const d = rawTx(DEV[1].key, { nonce: 0n, data: hexToBytes(contract('Store').bytecode + word(7)), gas: 500_000n });
  await node.rpc('mc_sendRawTransaction', [d.raw]);
  const deployed = await receiptOf(d.hash);
  const store = deployed.contractAddress;
  const s = rawTx(DEV[1].key, { nonce: 1n, to: hexToBytes(store), data: hexToBytes(encodeCall('set(uint256)', 5)), gas: 200_000n, gasPrice: 30n * GWEI });
  await node.rpc('mc_sendRawTransaction', [s.raw]);
  await receiptOf(s.hash);

  const mapSlot = bytesToHex(keccak256(hexToBytes('0x' + word(DEV[1].address) + word(1))));
  const now = await checkProof(t, node, store, ['0x0', mapSlot, '0x9'], 'latest');
  t.equal(now.storageProof[0].value, '0x5');
  t.equal(now.storageProof[1].value, '0x5');
  t.equal(now.storageProof[2].value, '0x0');
  const then = await checkProof(t, node, store, ['0x0', mapSlot], deployed.blockNumber);
  t.equal(then.storageProof[0].value, '0x7', 'the value at the deploy block');
  t.equal(then.storageProof[1].value, '0x0');
  const sender = await checkProof(t, node, DEV[1].address, [], 'latest');
  t.equal(sender.nonce, '0x2');
  const absent = await checkProof(t, node, '0x' + '77'.repeat(20), ['0x1'], 'latest');
  t.equal(absent.codeHash, bytesToHex(keccak256(new Uint8Array())), 'the empty code hash');
  await checkProof(t, node, DEV[1].address, [], '0x0');
  t.equal((await node.call('mc_getProof', [store, 'x', 'latest'])).error?.code, -32602);
  t.equal((await node.call('mc_getProof', [store, [], '0x99'])).error?.code, -32000);

  const fees = await node.rpc('eth_feeHistory', ['0x3', 'latest', [10, 90]]);
  t.equal(fees.oldestBlock, '0x0');
  t.same(fees.baseFeePerGas, ['0x0', '0x0', '0x0', '0x0']);
  t.equal(fees.gasUsedRatio.length, 3);
  t.equal(fees.gasUsedRatio[0], 0, 'genesis used no gas');
  t.ok(fees.gasUsedRatio[2] > 0);
  t.same(fees.reward[0], ['0x0', '0x0']);
  t.same(fees.reward[2], ['0x' + (30n * GWEI).toString(16), '0x' + (30n * GWEI).toString(16)]);
  const noReward = await node.rpc('mc_feeHistory', [2, '0x1']);
  t.equal(noReward.oldestBlock, '0x0');
  t.equal(noReward.reward, undefined);
  t.equal((await node.call('mc_feeHistory', ['0x2', 'latest', [50, 10]])).error?.code, -32602);
});
