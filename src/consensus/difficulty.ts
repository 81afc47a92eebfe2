// Block difficulty: `fixed` (every block has the genesis difficulty) or `adjust` (the Homestead
// rule with a configurable target block time and MOAC's minimum difficulty).

export interface DifficultyRule {
  mode: 'fixed' | 'adjust';
  genesisDifficulty: bigint;
  targetBlockTime: bigint;
  minimumDifficulty: bigint;
}

export function nextDifficulty(rule: DifficultyRule, parent: { difficulty: bigint; timestamp: bigint }, timestamp: bigint): bigint {
  if (rule.mode === 'fixed') return rule.genesisDifficulty;
  const target = rule.targetBlockTime > 0n ? rule.targetBlockTime : 1n;
  let factor = 1n - (timestamp - parent.timestamp) / target;
  if (factor < -99n) factor = -99n;
  const next = parent.difficulty + (parent.difficulty / 2048n) * factor;
  return next < rule.minimumDifficulty ? rule.minimumDifficulty : next;
}
