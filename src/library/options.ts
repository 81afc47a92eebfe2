// startNode's options → the node's Config, through the same schema and codecs as flags and config
// files (src/config/load.ts), so that every config key works in object form and a bad value is
// reported as the command line reports it. What differs from the command line is only the
// defaults a library wants (docs/library.md#options): every port 0, warnings and errors only.

import type { Config } from '../config/schema.js';
import { loadConfig, presetNames } from '../config/load.js';
import { isRecord } from '../config/codecs.js';
import { ConfigError } from '../errors.js';

type Scalar<T> = T extends bigint ? bigint | number | string
  : T extends Uint8Array ? string
  : T extends boolean ? boolean | string
  : T extends number ? number | string
  : T extends string ? string
  : T extends readonly (infer U)[] ? Scalar<U>[] | string
  : never;
type SectionInput<S> = { [K in keyof S]?: Scalar<S[K]> | undefined };

/** The chain section: `{ chainId, networkId, hardfork, pow }`. */
export type ChainSection = SectionInput<Config['chain']>;

/** A genesis in the real node's format: `{ config: { chainId }, nonce, timestamp, gasLimit, difficulty, alloc, … }`. */
export type GenesisObject = Record<string, unknown>;

/** Sections whose name is also a flag (`--rpc`, `--ws`, `--metrics`): `{ metrics: true }` turns one on. */
type FlagSection = 'rpc' | 'ws' | 'metrics';

/** Every config key in object form, as a config file holds it (docs/running-and-config.md#options). */
export type ConfigOptions = {
  [K in Exclude<keyof Config, 'chain' | 'genesis' | 'appChains' | 'datadir'>]?: Config[K] extends string | number
    ? Scalar<Config[K]>
    : SectionInput<Config[K]> | (K extends FlagSection ? boolean : never);
} & {
  genesis?: GenesisObject;
  appChains?: Record<string, unknown>[];
};

export interface LibraryOptions extends ConfigOptions {
  /** the data directory; absent: a temporary directory, removed by stop() */
  datadir?: string;
  /** a preset (`'devnet'`, `'testnet'`), a genesis object, or the config's chain section */
  chain?: string | GenesisObject | ChainSection;
  /** a config file (JSON) or preset name, as `--config`; the other options apply over it */
  config?: string;
  /** a flag name of the command line (`rpcport`, `mine`, `mining.mode`), with its value */
  [flag: string]: unknown;
}

/** Where option values come from, in error messages: `… (expected …; set in the startNode options)`. */
export const OPTIONS_ORIGIN = 'the startNode options';

/** Below the user's options (and over the preset): free ports, so that nodes run side by side. */
const LIBRARY_DEFAULTS = {
  verbosity: 2,
  rpc: { port: 0 },
  ws: { port: 0 },
  scs: { rpcPort: 0 },
  metrics: { port: 0 },
  p2p: { port: 0 },
};

const CHAIN_SECTION_KEYS = ['chainId', 'networkId', 'hardfork', 'pow'];

/** The options that are not config keys: the library's own. */
const OWN_OPTIONS = ['datadir', 'chain', 'config', 'process', 'log'];

/** Builds the node's config; `datadir` is the directory to use (the caller makes a temporary one). Throws ConfigError. */
export function configFromOptions(options: LibraryOptions, datadir: string): Config {
  if (!isRecord(options)) throw new ConfigError('startNode options must be an object');
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) if (!OWN_OPTIONS.includes(key)) values[key] = value;
  const { preset, genesis, chain } = readChain(options.chain);
  if (preset !== undefined && options.config !== undefined) {
    throw new ConfigError(`startNode options: give the preset either as chain ("${preset}") or as config, not both`);
  }
  if (genesis !== undefined) {
    if (values.genesis !== undefined) throw new ConfigError('startNode options: give the genesis either as chain or as genesis, not both');
    values.genesis = genesis;
    // A genesis that names its chain id sets the chain's, unless the options say it otherwise.
    const genesisChainId = isRecord(genesis.config) ? genesis.config.chainId : undefined;
    if (genesisChainId !== undefined) values.chain = { chainId: genesisChainId, ...(isRecord(values.chain) ? values.chain : {}) };
  }
  if (chain !== undefined) values.chain = { ...(isRecord(values.chain) ? values.chain : {}), ...chain };
  return loadConfig({
    configFile: preset ?? options.config,
    values: [
      { object: LIBRARY_DEFAULTS, where: 'the library defaults' },
      { object: { ...values, datadir }, where: OPTIONS_ORIGIN },
    ],
  });
}

/** `chain`: a preset name, a genesis object or the chain section. */
function readChain(chain: LibraryOptions['chain']): { preset?: string; genesis?: GenesisObject; chain?: ChainSection } {
  if (chain === undefined || chain === 'devnet') return {};
  if (typeof chain === 'string') {
    if (!presetNames().includes(chain)) {
      throw new ConfigError(`invalid startNode option chain: ${JSON.stringify(chain)} (expected ${presetNames().join(', ')}, a genesis object or the chain section)`);
    }
    return { preset: chain };
  }
  if (!isRecord(chain)) throw new ConfigError('invalid startNode option chain: expected a preset name, a genesis object or the chain section');
  const keys = Object.keys(chain);
  if (keys.length > 0 && keys.every((k) => CHAIN_SECTION_KEYS.includes(k))) return { chain: chain as ChainSection };
  return { genesis: chain };
}
