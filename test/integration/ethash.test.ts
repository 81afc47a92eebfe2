// An Ethash chain end to end: an independent implementation (@ethereumjs/ethash) verifies the
// blocks the node seals; a restart reads the caches back from <datadir>/ethash/; import refuses
// a chain sealed with the other PoW, naming the block and the reason.

import t from 'tap';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { startNode, waitFor, type TestNode } from '../helpers/node.js';
import { mcnode } from '../fixtures/chains/prebuilt.js';
import { ETHASH_ARGS, independentlyValid, referenceEthash } from '../helpers/ethashReference.js';
import { testDir } from '../helpers/testDir.js';

const ETHASH = ETHASH_ARGS;
void referenceEthash(0); // ~10-20 s of CPU: started now, awaited when blocks are checked

t.test('local mining: every sealed block verifies independently; a restart reuses the cache', async (t) => {
  const dir = testDir(t);
  const datadir = path.join(dir, 'node');
  let node: TestNode = await startNode(datadir, [...ETHASH, '--mining.mode', 'interval', '--mining.period', '2']);
  t.teardown(() => node.stop());
  t.match(node.stdout(), /^pow {5}ethash \(light cache\)$/m, 'the banner names the PoW');
  t.equal((await node.ipcCall('admin_nodeInfo')).result.protocols.mc.consensus, 'ethash');
  await waitFor(async () => BigInt(await node.rpc('mc_blockNumber')) >= 3n || undefined, 'three Ethash blocks', 60_000);
  for (let n = 1; n <= 3; n++) await independentlyValid(t, await node.rpc('mc_getBlockByNumber', ['0x' + n.toString(16), false]));
  t.match(node.stderr(), /generating Ethash cache epoch=0/);
  t.ok(readdirSync(path.join(datadir, 'ethash')).some((f) => f.startsWith('cache-R23-0-')), 'the epoch-0 cache is on disk');

  await node.stop();
  node = await startNode(datadir, [...ETHASH, '--mining.mode', 'interval', '--mining.period', '2']);
  const head = BigInt(await node.rpc('mc_blockNumber'));
  await waitFor(async () => BigInt(await node.rpc('mc_blockNumber')) > head || undefined, 'a block after the restart', 60_000);
  t.notMatch(node.stderr(), /generating Ethash cache epoch=0/, 'after a restart the epoch-0 cache comes from disk');
  await independentlyValid(t, await node.rpc('mc_getBlockByNumber', ['latest', false]));

  // Import verifies the PoW the receiving chain seals with: this chain fails as keccak-pow.
  await node.stop();
  const file = path.join(dir, 'ethash.rlp');
  const exported = mcnode('export', file, '--datadir', datadir, '--ipcdisable', '--verbosity', '1');
  t.equal(exported.status, 0, 'exported', { stderr: exported.stderr, signal: exported.signal });
  const asKeccak = mcnode('import', file, '--datadir', path.join(dir, 'keccak'), '--ipcdisable', '--genesis.difficulty', '0x4', '--verbosity', '1');
  t.not(asKeccak.status, 0);
  t.match(asKeccak.stderr, /block 1: invalid proof of work \(keccak-pow\): wrong mix digest 0x[0-9a-f]{64}/);
  const asEthash = mcnode('import', file, '--datadir', path.join(dir, 'ethash'), '--ipcdisable', ...ETHASH.slice(0, 4), '--verbosity', '1');
  t.equal(asEthash.status, 0, 'imported on an Ethash chain', { stderr: asEthash.stderr });
  t.match(asEthash.stdout, /imported \d+ blocks/);
});
