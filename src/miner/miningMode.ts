// The mining modes, declared once: the config option, the miner and miner_setMode read them.
// A leaf module, so that loading the configuration does not load the miner.

export const MINING_MODES = ['instant', 'interval', 'mixed', 'remote', 'off'] as const;
export type MiningMode = (typeof MINING_MODES)[number];
