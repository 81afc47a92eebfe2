// Instant mining and the event loop: a round first lets requests already waiting be admitted,
// so a transaction that arrives while the round is being scheduled joins its block instead of
// waiting for the next one; later arrivals get the next block without waiting for more.

import t from 'tap';
import { openRig } from '../../../tools/lib/chainRig.js';
import type { Block } from '../../../src/chain/types.js';
import { testDir } from '../../helpers/testDir.js';

t.test('a transaction admitted before the round builds joins its block', async (t) => {
  const rig = await openRig(testDir(t));
  t.teardown(() => rig.close());
  const blocks: Block[] = [];
  rig.miner.on('sealed', (block) => blocks.push(block));
  rig.miner.setMode('instant');
  const [a, b, c] = [rig.tx(1, 0n), rig.tx(2, 0n), rig.tx(1, 1n)];
  // b's request comes off its socket in the next turn of the event loop, before the round
  // that a's admission scheduled starts building.
  const first = rig.pool.add(a);
  setImmediate(() => void rig.pool.add(b));
  await first;
  await waitFor(() => blocks.length >= 1 && rig.pool.size === 0);
  t.same(blocks.map((x) => x.transactions.length), [2], 'a and b share the first block');
  await rig.pool.add(c);
  await waitFor(() => blocks.length >= 2);
  t.same(blocks[1].transactions.map((x) => x.nonce), [1n], 'a later one is mined in a block of its own');
});

async function waitFor(ready: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error('not mined in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
