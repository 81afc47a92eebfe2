// The client version string, in the real node's format (pinned by test/rpc/golden/transcripts/01-libx-net.txt):
// Moac/v<version>-<meta>/<os>-<arch>/<runtime>.

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
function readVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      return (require(rel) as { version: string }).version;
    } catch {
      // compiled and source layouts sit at different depths
    }
  }
  return '0.0.0';
}

export const VERSION = readVersion();

export function clientVersion(): string {
  return `Mcnode/v${VERSION}-stable/${process.platform}-${process.arch}/node${process.versions.node}`;
}

/** What tools check to recognise their own node (Hardhat's network helpers accept only these prefixes). */
const COMPAT_PREFIX = { anvil: 'anvil/', hardhat: 'HardhatNetwork/' } as const;

/** web3_clientVersion under `--compat`: the tool's prefix, then mcnode's own version. */
export function compatClientVersion(compat: 'none' | keyof typeof COMPAT_PREFIX): string {
  return compat === 'none' ? clientVersion() : COMPAT_PREFIX[compat] + clientVersion();
}
