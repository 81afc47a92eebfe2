// The proofs of work a chain can seal with (README "Proof of work and mining"); no imports, so
// that the config schema can name them without loading the PoW code.

export const POW_NAMES = ['keccak-pow', 'ethash'] as const;
export type PowName = (typeof POW_NAMES)[number];
