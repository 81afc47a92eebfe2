// Ethash work packages and fixtures, checked by an independent implementation
// (@ethereumjs/ethash): it solves the node's work packages, which the node then accepts, and
// verifies the blocks of fixture builds, which are byte-identical whatever the worker count.

import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from 'ethereum-cryptography/keccak.js';
import { bytesToHex, hexToBytes } from '../../src/encoding/hex.js';
import { bigintToFixed, bytesToBigint } from '../../src/encoding/bytes.js';
import { CACHE_USED, startNode, withCodeCache } from '../helpers/node.js';
import { mcnode } from '../fixtures/chains/prebuilt.js';
import { ETHASH_ARGS, independentlyValid, referenceEthash } from '../helpers/ethashReference.js';
import { testDir } from '../helpers/testDir.js';

const ETHASH = ETHASH_ARGS;
const reference = referenceEthash(0); // ~10-20 s of CPU: started now, awaited when needed

/** The smallest nonce ≥ start whose reference result meets the target. */
async function solve(sealHash: Uint8Array, target: bigint, start = 0n): Promise<{ nonce: Uint8Array; mix: Uint8Array }> {
  const ethash = await reference;
  for (let n = start; ; n++) {
    const nonce = bigintToFixed(n, 8);
    const { mix, hash } = ethash.run(sealHash, nonce);
    if (bytesToBigint(hash) <= target) return { nonce, mix };
  }
}

t.test('work packages: the independent implementation solves them and the node accepts', async (t) => {
  const node = await startNode(testDir(t), [...ETHASH, '--mining.mode', 'remote']);
  t.teardown(() => node.stop());
  const [sealHex, seedHex, targetHex] = await node.rpc('mc_getWork');
  t.equal(seedHex, '0x' + '00'.repeat(32), 'epoch 0 seed hash');
  t.equal(BigInt(targetHex), (1n << 256n) / 4n, 'target = 2^256 / difficulty');
  const sealHash = hexToBytes(sealHex);
  const good = await solve(sealHash, BigInt(targetHex));
  // Wrong mix and a keccak-pow seal are refused before the good solution is sent.
  const wrongMix = good.mix.slice();
  wrongMix[0] ^= 1;
  t.equal(await node.rpc('mc_submitWork', [bytesToHex(good.nonce), sealHex, bytesToHex(wrongMix)]), false, 'wrong mix digest');
  const keccakMix = keccak256(new Uint8Array([...sealHash, ...good.nonce]));
  t.equal(await node.rpc('mc_submitWork', [bytesToHex(good.nonce), sealHex, bytesToHex(keccakMix)]), false, 'a keccak-pow seal');
  t.equal(await node.rpc('mc_submitWork', [bytesToHex(good.nonce), '0x' + '11'.repeat(32), bytesToHex(good.mix)]), false, 'unknown package');
  t.equal(await node.rpc('mc_submitWork', [bytesToHex(good.nonce), sealHex, bytesToHex(good.mix)]), true, 'accepted');
  const block = await node.rpc('mc_getBlockByNumber', ['0x1', false]);
  t.equal(block.nonce, bytesToHex(good.nonce), 'the header keeps the nonce big-endian');
  t.equal(block.mixHash, bytesToHex(good.mix));
  await independentlyValid(t, block);
  t.equal(await node.rpc('mc_submitWork', [bytesToHex(good.nonce), sealHex, bytesToHex(good.mix)]), false, 'stale once sealed');
  t.not((await node.rpc('mc_getWork'))[0], sealHex, 'a new package on the new head');
});

t.test('fixture builds on an Ethash genesis are byte-identical and verify independently', async (t) => {
  const dir = testDir(t);
  // The mcnode command's bundle, from its code cache (as every run after a node's first start).
  await withCodeCache(path.join(dir, 'warm'));
  const script = path.join(dir, 'script.json');
  writeFileSync(script, JSON.stringify({
    genesis: { config: { chainId: 100, ethash: {} }, timestamp: '0x5f5e1000', difficulty: '0x8', alloc: {} },
    keys: ['0xd318c56399426da38a80a354c89780d05ed2650017a63768e1b9cab0957de817'],
    blocks: [{ txs: [{ from: 0, to: '0x' + '22'.repeat(20), value: '0x5' }] }, { txs: [] }, { txs: [] }],
  }));
  const builds = ['1', '2'].map((threads) => {
    const datadir = path.join(dir, threads);
    const run = mcnode('fixture', script, '--datadir', datadir, '--ipcdisable', '--verbosity', '4', '--minerthreads', threads);
    t.equal(run.status, 0, `built with ${threads} thread(s)`, { stderr: run.stderr });
    t.match(run.stderr, CACHE_USED, 'the build ran from the code cache');
    const out = path.join(dir, `${threads}.rlp`);
    t.equal(mcnode('export', out, '--datadir', datadir, '--ipcdisable', '--verbosity', '1').status, 0);
    return { bytes: readFileSync(out), genesis: JSON.parse(readFileSync(path.join(datadir, 'genesis.json'), 'utf8')) };
  });
  t.ok(builds[0].bytes.equals(builds[1].bytes), 'same export bytes');
  t.same(builds[0].genesis.config, { chainId: 100, ethash: {} }, 'the written genesis keeps config.ethash');
  // Each exported block is a [header, txs, uncles] list; verify every header's seal independently.
  let rest = builds[0].bytes as Uint8Array;
  let count = 0;
  while (rest.length > 0) {
    const { data, remainder } = RLP.decode(rest, true) as { data: Uint8Array[][]; remainder: Uint8Array };
    const h = data[0];
    const { mix, hash } = (await reference).run(keccak256(RLP.encode(h.slice(0, 13))), h[14]);
    t.equal(bytesToHex(mix), bytesToHex(h[13]), `fixture block ${bytesToBigint(h[8])}: mix digest`);
    t.ok(bytesToBigint(hash) <= (1n << 256n) / bytesToBigint(h[7]), `fixture block ${bytesToBigint(h[8])}: meets the target`);
    rest = remainder;
    count++;
  }
  t.equal(count, 3, 'three blocks');
});
