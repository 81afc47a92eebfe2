// A node given an unusable --ethash.dagdir keeps running and mining with the light cache: the
// dataset failure is a logged warning, and the blocks it seals still verify (README "Proof of
// work and mining"). Generating a real dataset (~1 GB, minutes) is left to the unit tests' capped one.

import t from 'tap';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startNode, waitFor } from '../helpers/node.js';
import { testDir } from '../helpers/testDir.js';

t.test('an unusable dagdir: a warning, and mining goes on with the light cache', async (t) => {
  const dir = testDir(t);
  const blocker = path.join(dir, 'a-file');
  writeFileSync(blocker, 'not a directory');
  const node = await startNode(path.join(dir, 'node'), [
    '--chain.pow', 'ethash', '--genesis.difficulty', '0x4', '--mining.threads', '1',
    '--mining.mode', 'interval', '--mining.period', '1', '--ethash.dagdir', path.join(blocker, 'dag'),
  ]);
  t.teardown(() => node.stop());
  t.match(node.stdout(), /^pow {5}ethash \(full dataset from --ethash\.dagdir when ready, light cache until then\)$/m, 'the banner says so');
  await waitFor(async () => /Ethash dataset unavailable; mining with the light cache/.test(node.stderr()) || undefined, 'the warning', 30_000);
  t.match(node.stderr(), /WARN +Ethash dataset unavailable; mining with the light cache epoch=0 error=/);
  const head = BigInt(await node.rpc('mc_blockNumber'));
  await waitFor(async () => BigInt(await node.rpc('mc_blockNumber')) >= head + 2n || undefined, 'two more blocks', 60_000);
  t.equal(await node.stop(), 0, 'a clean exit');
});
