import t from 'tap';
import { nextDifficulty, type DifficultyRule } from '../../../src/consensus/difficulty.js';

const adjust: DifficultyRule = { mode: 'adjust', genesisDifficulty: 0x200n, targetBlockTime: 10n, minimumDifficulty: 131072n };

t.test('fixed difficulty is the genesis difficulty', async (t) => {
  const fixed: DifficultyRule = { ...adjust, mode: 'fixed' };
  t.equal(nextDifficulty(fixed, { difficulty: 999n, timestamp: 0n }, 100n), 0x200n);
});

t.test('adjust follows the Homestead rule around the target block time', async (t) => {
  const parent = { difficulty: 2_048_000n, timestamp: 1000n };
  t.equal(nextDifficulty(adjust, parent, 1005n), 2_048_000n + 1000n, 'faster than the target: up by parent/2048');
  t.equal(nextDifficulty(adjust, parent, 1010n), 2_048_000n, 'one target period: unchanged');
  t.equal(nextDifficulty(adjust, parent, 1025n), 2_048_000n - 1000n, 'two periods late: down by parent/2048');
  t.equal(nextDifficulty(adjust, parent, 1000n + 10n * 500n), 2_048_000n - 99n * 1000n, 'the step is capped at -99');
  t.equal(nextDifficulty(adjust, { difficulty: 131072n, timestamp: 0n }, 1000n), 131072n, 'never below the minimum');
  t.equal(nextDifficulty({ ...adjust, targetBlockTime: 2n }, parent, 1003n), 2_048_000n, 'the target block time is configurable');
});
