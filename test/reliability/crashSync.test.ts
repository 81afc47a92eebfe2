// kill -9 of a node in the middle of a sync: blocks land in groups (one batch each), so after
// the restart the head is the end of a group, every canonical block below it links to its
// parent, nothing above it is indexed, and the sync resumes from there to the peer's head
// (whose state root re-checks the state the crash left).

import t from 'tap';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mcnode } from '../fixtures/chains/prebuilt.js';
import { startNetNode, head, waitPeers, type NetNode } from '../helpers/network.js';
import { waitFor } from '../helpers/node.js';
import { testDir } from '../helpers/testDir.js';

const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/chains/long.json');
const EXPECT = { number: 2000n, hash: '0x8963d2becfc30c4f0b495cf94c7f352e807c482e95b201da216658b5d28d9d5b' };
const GROUP = 64n;

t.test('a sync killed with SIGKILL restarts on one consistent head and completes', async (t) => {
  const dir = testDir(t, { a: {}, b: {} });
  const build = mcnode('fixture', SCRIPT, '--datadir', dir + '/a', '--ipcdisable', '--verbosity', '1', '--minerthreads', '1');
  t.equal(build.status, 0, `fixture built ${build.stderr}`);
  const init = mcnode('init', dir + '/a/genesis.json', '--datadir', dir + '/b', '--ipcdisable', '--verbosity', '1');
  t.equal(init.status, 0, `fresh node initialised ${init.stderr}`);
  const nodes: NetNode[] = [];
  t.teardown(async () => {
    for (const n of nodes) await n.stop();
  });
  const a = await startNetNode(dir + '/a', ['--mining.mode', 'off']);
  nodes.push(a);
  const b = await startNetNode(dir + '/b', ['--mining.mode', 'off']);
  await b.rpc('admin_addPeer', [a.enode]);
  await waitFor(async () => (await head(b)).number >= 100n, 'B has synced some blocks', 60_000);
  await b.stop('SIGKILL');

  const b2 = await startNetNode(dir + '/b', ['--mining.mode', 'off']);
  nodes.push(b2);
  const h = await head(b2);
  t.ok(h.number >= 100n, `restarted at #${h.number}`);
  if (h.number < EXPECT.number) t.equal(h.number % GROUP, 0n, 'the head is the end of a group of 64 (a sync batch is 192 blocks from #1)');
  t.equal(await b2.rpc('mc_getBlockByNumber', ['0x' + (h.number + 1n).toString(16), false]), null, 'nothing indexed above the head');
  // The newest blocks link to their parents through the canonical index.
  let child = await b2.rpc('mc_getBlockByNumber', ['latest', false]);
  for (let n = h.number - 1n; n >= 0n && n >= h.number - 2n * GROUP; n--) {
    const parent = await b2.rpc('mc_getBlockByNumber', ['0x' + n.toString(16), false]);
    if (parent?.hash !== child.parentHash) {
      t.fail(`block #${n + 1n} does not link to the canonical #${n}`);
      break;
    }
    child = parent;
  }
  t.ok(await b2.rpc('mc_getBalance', ['0x' + '00'.repeat(19) + '01', 'latest']), 'state readable at the head');

  await b2.rpc('admin_addPeer', [a.enode]);
  await waitPeers(b2, 1, 'B dials A again');
  await waitFor(async () => (await head(b2)).number === EXPECT.number, 'B reaches #2000', 60_000);
  t.same(await head(b2), EXPECT, 'the same head as the fixture: every block after the crash verified on the state it left');
});
