// Remote mining against real work packages: an independent miner process fetches mc_getWork,
// mines and submits; stale, wrong-mix, unknown and missed-target solutions are refused.

import t from 'tap';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { keccak256 } from '../../../src/encoding/bytes.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { ROOT, startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV, rawTx } from '../../helpers/accounts.js';
import { testDir } from '../../helpers/testDir.js';

const run = promisify(execFile);
const MINER = path.join(ROOT, 'test/helpers/testMiner.mjs');

async function mineExternally(node: TestNode, submit: boolean, start = 0n) {
  const { stdout } = await run(process.execPath, [MINER, node.url, '--start', String(start), ...(submit ? ['--submit'] : [])]);
  return JSON.parse(stdout) as { sealHash: string; nonce: string; mix: string; accepted?: boolean };
}

t.test('remote mode: work packages seal blocks', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'remote']);
  t.teardown(() => node.stop());
  t.equal(await node.rpc('mc_mining'), false, 'no local search in remote mode');

  const [sealHash, seedHash, target] = await node.rpc('mc_getWork');
  t.match(sealHash, /^0x[0-9a-f]{64}$/);
  t.equal(seedHash, '0x' + '00'.repeat(32), 'epoch 0 seed');
  t.equal(BigInt(target), (1n << 256n) / 0x200n, 'target = 2^256 / difficulty');
  t.equal(target.length, 66, 'target is 32 bytes');
  t.same(await node.rpc('mc_getWork'), [sealHash, seedHash, target], 'same package while nothing changes');

  const { raw, hash } = rawTx(DEV[1].key, { nonce: 0n, to: hexToBytes(DEV[2].address), value: 7n, gas: 21_000n });
  await node.rpc('mc_sendRawTransaction', [raw]);
  t.equal(await node.rpc('mc_getTransactionReceipt', [hash]), null, 'nothing seals by itself');
  const [withTx] = await node.rpc('mc_getWork');
  t.not(withTx, sealHash, 'a new package includes the new transaction');

  const solved = await mineExternally(node, true);
  t.equal(solved.sealHash, withTx);
  t.equal(solved.accepted, true);
  const block = await node.rpc('mc_getBlockByNumber', ['0x1', false]);
  t.equal(block.nonce, solved.nonce);
  t.equal(block.mixHash, solved.mix);
  t.same(block.transactions, [hash]);
  // The mix recomputed here: keccak256(sealHash ‖ nonce) meets the target.
  const mix = keccak256(hexToBytes(solved.sealHash + solved.nonce.slice(2)));
  t.equal(bytesToHex(mix), block.mixHash);
  t.ok(BigInt(block.mixHash) <= BigInt(target));
  t.equal((await node.rpc('mc_getTransactionReceipt', [hash])).status, '0x1');

  // A second submission of the same solution: the package is gone (or stale).
  t.equal(await node.rpc('mc_submitWork', [solved.nonce, solved.sealHash, solved.mix]), false);
});

t.test('stale, unknown, wrong-mix and missed-target solutions are refused', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'remote']);
  t.teardown(() => node.stop());
  const first = await mineExternally(node, false);
  // Another package for the same height, sealed first: the first one becomes stale.
  const { raw } = rawTx(DEV[1].key, { nonce: 0n, to: hexToBytes(DEV[2].address), value: 7n, gas: 21_000n });
  await node.rpc('mc_sendRawTransaction', [raw]);
  const second = await mineExternally(node, true);
  t.not(second.sealHash, first.sealHash);
  t.equal(second.accepted, true);
  t.equal(await node.rpc('mc_submitWork', [first.nonce, first.sealHash, first.mix]), false, 'stale');

  const fresh = await mineExternally(node, false);
  t.equal(await node.rpc('mc_submitWork', [fresh.nonce, '0x' + '12'.repeat(32), fresh.mix]), false, 'unknown package');
  t.equal(await node.rpc('mc_submitWork', [fresh.nonce, fresh.sealHash, '0x' + '00'.repeat(32)]), false, 'wrong mix');
  // Find a nonce that misses the target and send its true mix.
  const [sealHash, , target] = await node.rpc('mc_getWork');
  let miss = 0n;
  let missMix = '';
  for (;; miss++) {
    const nonceHex = miss.toString(16).padStart(16, '0');
    const mix = bytesToHex(keccak256(hexToBytes(sealHash + nonceHex)));
    if (BigInt(mix) > BigInt(target)) {
      missMix = mix;
      break;
    }
  }
  const missNonce = '0x' + miss.toString(16).padStart(16, '0');
  t.equal(await node.rpc('mc_submitWork', [missNonce, sealHash, missMix]), false, 'target missed');
  t.equal(await node.rpc('mc_blockNumber'), '0x1', 'nothing was sealed by the refused calls');
  t.equal((await mineExternally(node, true)).accepted, true, 'the valid solution still works');

  const bad = await node.call('mc_submitWork', ['0x01', sealHash, missMix]);
  t.equal(bad.error?.code, -32602, 'a malformed nonce is invalid params, not false');
});

t.test('hash rates, miner_stop / miner_start and modes at run time', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'instant', '--rpcapi', 'mc,net,libx,miner']);
  t.teardown(() => node.stop());
  t.equal(await node.rpc('mc_mining'), true);
  t.equal(await node.rpc('mc_submitHashrate', ['0x500', '0x' + 'ab'.repeat(32)]), true);
  t.ok(BigInt(await node.rpc('mc_hashrate')) >= 0x500n, 'submitted rates count');

  t.equal(await node.rpc('miner_stop'), true);
  t.equal(await node.rpc('mc_mining'), false);
  const { raw, hash } = rawTx(DEV[1].key, { nonce: 0n, to: hexToBytes(DEV[2].address), value: 1n, gas: 21_000n });
  await node.rpc('mc_sendRawTransaction', [raw]);
  await new Promise((r) => setTimeout(r, 300));
  t.equal(await node.rpc('mc_getTransactionReceipt', [hash]), null, 'stays pending while mining is off');
  const pending = await node.rpc('mc_getBlockByNumber', ['pending', false]);
  t.same(pending.transactions, [hash]);
  const [sealHash] = await node.rpc('mc_getWork');
  t.match(sealHash, /^0x[0-9a-f]{64}$/, 'getWork still offers the pending block');

  t.equal(await node.rpc('miner_start', [1]), true);
  const receipt = await waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), 'mined after miner_start');
  t.equal(receipt.status, '0x1');

  t.equal(await node.rpc('miner_setMoacbase', ['0x' + '99'.repeat(20)]), true);
  t.equal(await node.rpc('mc_coinbase'), '0x' + '99'.repeat(20));
  t.equal(await node.rpc('miner_setExtra', ['hello']), true);
  const next = rawTx(DEV[1].key, { nonce: 1n, to: hexToBytes(DEV[2].address), value: 1n, gas: 21_000n });
  await node.rpc('mc_sendRawTransaction', [next.raw]);
  const r2 = await waitFor(() => node.rpc('mc_getTransactionReceipt', [next.hash]), 'receipt');
  const block = await node.rpc('mc_getBlockByHash', [r2.blockHash, false]);
  t.equal(block.miner, '0x' + '99'.repeat(20));
  t.equal(block.extraData, '0x68656c6c6f');
  t.equal(BigInt(await node.rpc('mc_getBalance', ['0x' + '99'.repeat(20), 'latest'])), 2n * 10n ** 18n + 1000n * 20n * 10n ** 9n);

  t.equal(await node.rpc('miner_setMode', ['remote']), true);
  t.equal(await node.rpc('mc_mining'), false);
  const bad = await node.call('miner_setMode', ['turbo']);
  t.equal(bad.error?.code, -32602);
  const tooLong = await node.call('miner_setExtra', ['x'.repeat(33)]);
  t.equal(tooLong.error?.code, -32602);
});

t.test('adjusting difficulty: blocks at MOAC\'s minimum are sealed by the worker pool', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'instant', '--mining.difficulty', 'adjust', '--minerthreads', '2']);
  t.teardown(() => node.stop());
  const { raw, hash } = rawTx(DEV[1].key, { nonce: 0n, to: hexToBytes(DEV[2].address), value: 1n, gas: 21_000n });
  await node.rpc('mc_sendRawTransaction', [raw]);
  const receipt = await waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), 'receipt', 60_000);
  const block = await node.rpc('mc_getBlockByHash', [receipt.blockHash, false]);
  t.equal(BigInt(block.difficulty), 131072n, 'the minimum difficulty');
  t.equal(BigInt(block.totalDifficulty), 0x200n + 131072n);
  const mix = keccak256(hexToBytes(await sealHashOf(node, block) + block.nonce.slice(2)));
  t.equal(bytesToHex(mix), block.mixHash);
  t.ok(BigInt(block.mixHash) <= (1n << 256n) / 131072n, 'the seal meets the target');
});

/** sealHash = keccak(RLP(header without mixHash and nonce)), recomputed from the RPC block. */
async function sealHashOf(_node: TestNode, block: Record<string, string>): Promise<string> {
  const { RLP } = await import('@ethereumjs/rlp');
  const q = (hex: string) => (BigInt(hex) === 0n ? new Uint8Array() : hexToBytes('0x' + BigInt(hex).toString(16).padStart(Math.ceil(BigInt(hex).toString(16).length / 2) * 2, '0')));
  const fields = [
    hexToBytes(block.parentHash), hexToBytes(block.sha3Uncles), hexToBytes(block.miner), hexToBytes(block.stateRoot),
    hexToBytes(block.transactionsRoot), hexToBytes(block.receiptsRoot), hexToBytes(block.logsBloom), q(block.difficulty),
    q(block.number), q(block.gasLimit), q(block.gasUsed), q(block.timestamp), hexToBytes(block.extraData),
  ];
  const sealHash = bytesToHex(keccak256(RLP.encode(fields)));
  // And the block hash over all 15 fields matches the hash the node reports.
  const full = bytesToHex(keccak256(RLP.encode([...fields, hexToBytes(block.mixHash), hexToBytes(block.nonce)])));
  if (full !== block.hash) throw new Error(`block hash mismatch: ${full} vs ${block.hash}`);
  return sealHash;
}

