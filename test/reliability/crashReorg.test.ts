// kill -9 in the middle of a reorganisation (tools/crash/reorgKill.ts): a heavier branch from a
// rival node is imported with admin_importChain and the node is killed while the import runs.
// After each restart the head is one consistent chain (wholly the old branch or wholly the
// rival's above the fork, linked), nothing acknowledged is lost, and at the end the chain
// re-executes block by block to the same roots.

import t from 'tap';
import { seedOf } from '../../tools/lib/random.js';
import { describeCrash, runCrash } from '../../tools/crash/harness.js';
import { testDir } from '../helpers/testDir.js';

t.test('kills during reorganisations leave one consistent head', async (t) => {
  const seed = seedOf(process.env.CRASH_SEED);
  const result = await runCrash({
    kills: { afterAck: 1, reorg: 2 },
    workdir: testDir(t),
    seed,
    verifyEvery: 100, // once, at the end
    log: (line) => t.comment(line),
  });
  t.comment(describeCrash(result));
  t.same(result.problems, [], `no problem (replay the schedule with CRASH_SEED=${seed})`);
  t.equal(result.kinds.reorg.kills, 2, 'two kills during reorganisations');
  t.ok(result.kinds.reorg.confirmed >= 1, `at least one kill cut an import off (${result.kinds.reorg.confirmed} of 2)`);
  t.equal(result.replays.length, 1, 're-executed');
  t.ok(result.replays.every((r) => r.ok), 'the re-execution matched the roots');
});
