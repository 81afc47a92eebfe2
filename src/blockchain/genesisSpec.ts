// The genesis spec's shape alone, without the code that builds a genesis block (genesis.ts):
// the config's types (and so the library's published declarations) need it and nothing else.

export interface GenesisAlloc {
  balance: bigint;
  code?: Uint8Array;
  storage?: Map<bigint, bigint>;
  nonce?: bigint;
}

export interface GenesisSpec {
  nonce: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  gasLimit: bigint;
  difficulty: bigint;
  mixHash: Uint8Array;
  coinbase: Uint8Array;
  /** lower-case 0x address → allocation */
  alloc: Map<string, GenesisAlloc>;
  /** `config.devControls`: dev-control system transactions are valid on this chain (default true, the devnet's) */
  devControls?: boolean;
}
