// Cases of the corpus mcnode does not pass, each with the reason. A test named here may fail in
// any of its cases; `npm run conformance` fails on any failure not named here, and on a full run
// also on an entry that no longer fails (so the list cannot go stale).

export interface KnownFailure {
  /** `dir/file.json testName` */
  readonly tests: readonly string[];
  readonly reason: string;
}

export const KNOWN_FAILURES: readonly KnownFailure[] = [
  {
    reason:
      'EIP-7610: creating a contract at an address that has storage (no code, nonce 0) is a collision. ' +
      'The EIP (2024) applies to every hardfork retroactively, as no such account exists on mainnet; ' +
      '@ethereumjs/evm implements it for all hardforks, and mcnode with it. This corpus (2019) expects the ' +
      'older rule, where the creation goes ahead over the storage.',
    tests: [
      'stCreate2/RevertInCreateInInitCreate2.json RevertInCreateInInitCreate2',
      'stCreate2/create2collisionStorage.json create2collisionStorage',
      'stExtCodeHash/dynamicAccountOverwriteEmpty.json dynamicAccountOverwriteEmpty',
      'stRevertTest/RevertInCreateInInit.json RevertInCreateInInit',
      'stSStoreTest/InitCollision.json InitCollision',
    ],
  },
];
