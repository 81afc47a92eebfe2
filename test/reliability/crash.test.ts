// The CI slice of the kill -9 harness (tools/crashHarness.ts): ten SIGKILLs of a real node at the
// four kinds of moments, each restart checked (acknowledged transactions pending or mined, head,
// receipts and state consistent, an answer within 10 s), then the chains re-executed block by
// block (export, import into a mirror) to the same roots. The full run is `npm run crash`.

import t from 'tap';
import { seedOf } from '../../tools/lib/random.js';
import { CRASH_APP_CHAIN, describeCrash, runCrash } from '../../tools/crash/harness.js';
import { ChainDriver } from '../../tools/crash/chainDriver.js';
import { checkAfterRestart } from '../../tools/crash/checks.js';
import { startNodeProcess } from '../../tools/lib/nodeProcess.js';
import { testDir } from '../helpers/testDir.js';

t.test('ten kills at the four moments lose nothing and leave a consistent chain', async (t) => {
  const seed = seedOf(process.env.CRASH_SEED);
  const result = await runCrash({
    kills: { sealing: 3, afterAck: 3, writeBurst: 2, filterStorm: 2 },
    workdir: testDir(t),
    seed,
    verifyEvery: 100, // once per chain, at the end
    log: (line) => t.comment(line),
  });
  t.comment(describeCrash(result));
  t.same(result.problems, [], `no problem (replay the schedule with CRASH_SEED=${seed})`);
  t.equal(Object.values(result.kinds).reduce((n, k) => n + k.kills, 0), 10, 'ten kills');
  t.equal(result.kinds.afterAck.confirmed, 3, 'every after-acknowledgement kill followed an acknowledgement');
  t.ok(result.kinds.writeBurst.confirmed >= 1, 'a burst was writing blocks when killed');
  t.ok(result.acked > 0 && result.appAcked > 0, `acknowledged ${result.acked} main-chain and ${result.appAcked} app-chain transactions`);
  t.equal(result.replays.length, 2, 'both chains re-executed');
  t.ok(result.replays.every((r) => r.ok), 'every re-execution matched the roots');
  for (const [kind, s] of Object.entries(result.kinds)) t.ok(s.maxAnswerMs < 10_000, `${kind}: restarted node answered within 10 s (${Math.round(s.maxAnswerMs)} ms)`);
});

t.test('the restart checks catch a lost transaction', async (t) => {
  // The harness's own check must be able to fail: a hash the node never saw is reported LOST.
  const node = await startNodeProcess(testDir(t), { args: ['--mining.mode', 'instant', '--appChains', JSON.stringify([{ address: CRASH_APP_CHAIN, flushRound: 100_000 }])] });
  t.teardown(() => node.stop());
  const ep = { http: node.http!, scs: node.scs! };
  const driver = new ChainDriver(CRASH_APP_CHAIN, 2);
  await driver.resync(ep);
  t.ok(await driver.send(ep, driver.senders[0], 'main'), 'a main-chain transaction acknowledged');
  t.ok(await driver.send(ep, driver.senders[1], 'transfer'), 'an app-chain transaction acknowledged');
  t.same((await checkAfterRestart(ep, driver)).problems, [], 'all found');
  const ghost = '0x' + 'ab'.repeat(32);
  driver.acked.add(ghost);
  driver.appAcked.add(ghost);
  t.same((await checkAfterRestart(ep, driver)).problems, [`acknowledged ${ghost} is LOST`, `acknowledged app-chain ${ghost} is LOST`]);
});
