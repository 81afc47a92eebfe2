// The proofs of work a chain can seal with (docs/mining-and-ethash.md); no imports, so
// that the config schema can name them without loading the PoW code.

export const POW_NAMES = ['keccak-pow', 'ethash'] as const;
export type PowName = (typeof POW_NAMES)[number];

/** Ethash when configured or when the genesis file's `config` has `ethash: {}`; keccak-pow otherwise. */
export function choosePow(configured: PowName, genesisEthash: boolean | undefined): PowName {
  return configured === 'ethash' || genesisEthash ? 'ethash' : 'keccak-pow';
}
