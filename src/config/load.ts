// Loading the configuration: built-in devnet defaults < config file (`--config`, a path or a
// preset name) < environment (`MCNODE_*`) < flags, or, for the library, defaults < preset <
// an options object (`startNode({ mining: { mode: 'instant' }, rpcport: 0 })`). Raw settings are
// collected per dotted key with where they came from, then every value is decoded by its schema
// codec, so an error names the key, the value, what was expected and who set it. Loading only
// reads files.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';
import { closest, parseArgs, wantsHelp, type Command, type FlagSetting } from './args.js';
import { BadValue, bigint, bool, bytes, decodeAt, isRecord, toBigint, type Codec } from './codecs.js';
import { OPTIONS, allEnvNames, allFlagNames, optionByEnv, optionByFlag, optionByKey, schema, type Config, type Genesis } from './schema.js';

export type { Config, Genesis, Command };

export interface Invocation {
  command: Command;
  args: string[];
  config: Config;
}

/** A raw value for one dotted key, and a phrase saying who set it (`by --rpcport`). */
interface Setting {
  value: unknown;
  origin: string;
}
type Settings = Map<string, Setting>;

/** The config file variable; every other `MCNODE_*` variable names an option. */
export const CONFIG_ENV = 'MCNODE_CONFIG';

/** Parse argv (without the node and script paths) and the environment. Throws ConfigError. */
export function loadInvocation(argv: string[], env: NodeJS.ProcessEnv): Invocation {
  if (wantsHelp(argv)) {
    // Help must work even on a line that is otherwise wrong.
    let topic: string[] = [];
    try {
      const parsed = parseArgs(argv);
      topic = parsed.command === 'help' ? parsed.args : parsed.command === 'run' ? [] : [parsed.command];
    } catch {
      // keep the general help
    }
    return { command: 'help', args: topic, config: defaultConfig() };
  }
  const parsed = parseArgs(argv);
  const config = loadConfig({ flags: parsed.flags, configFile: parsed.config, env });
  return { command: parsed.command, args: parsed.args, config };
}

export interface LoadOptions {
  flags?: readonly FlagSetting[];
  /** a JSON file path or a preset name; defaults to `MCNODE_CONFIG` */
  configFile?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Settings in object form, over the config file and the environment, later layers winning:
   * what a config file holds, plus flag names (`rpcport`, `mining.mode`) at the top level.
   * `where` names a layer in errors.
   */
  values?: readonly { object: Record<string, unknown>; where: string }[];
}

export function loadConfig(options: LoadOptions = {}): Config {
  const env = options.env ?? {};
  const settings: Settings = new Map();
  const configFile = options.configFile ?? (env[CONFIG_ENV] || undefined);
  if (configFile !== undefined) {
    const file = resolveConfigFile(configFile);
    for (const [key, setting] of fileSettings(readJson(file), file)) settings.set(key, setting);
  }
  for (const [key, setting] of envSettings(env)) settings.set(key, setting);
  for (const { object, where } of options.values ?? []) {
    for (const [key, setting] of objectSettings(object, where, true)) settings.set(key, setting);
  }
  const repeated = new Map<string, unknown[]>();
  for (const flag of options.flags ?? []) {
    if (!flag.entry.option.repeatable) {
      settings.set(flag.entry.key, { value: flag.value, origin: flag.origin });
      continue;
    }
    // Every use of a repeatable flag adds a value; together they replace the file's and the environment's.
    const values = repeated.get(flag.entry.key) ?? [];
    values.push(flag.value);
    repeated.set(flag.entry.key, values);
    settings.set(flag.entry.key, { value: values, origin: flag.origin });
  }
  const config = decodeSettings(settings);
  checkConsistency(config, settings);
  config.given = new Set(settings.keys());
  return config;
}

/** The built-in devnet configuration. */
export function defaultConfig(): Config {
  return loadConfig();
}

// ---- sources ----

let root: string | undefined;
/** The package root: compiled code runs from dist/src/config/, sources from src/config/. */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('mcnode: package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return (root = dir);
}

/** Names of the presets shipped in `config/` (devnet, testnet, …). */
export function presetNames(): string[] {
  const dir = path.join(packageRoot(), 'config');
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
}

/** A path wins over a preset of the same name; a preset is a bare name such as `testnet`. */
export function resolveConfigFile(ref: string): string {
  if (fs.existsSync(ref)) {
    if (!fs.statSync(ref).isFile()) throw new ConfigError(`config file ${ref} is not a file`);
    return ref;
  }
  if (/^[a-z0-9_-]+$/i.test(ref) && presetNames().includes(ref)) return path.join(packageRoot(), 'config', `${ref}.json`);
  throw new ConfigError(`config file not found: ${ref} (give a JSON file or a preset: ${presetNames().join(', ')})`);
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`config file ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

/** The genesis `config` member when the settings give none. */
const DEVNET_GENESIS_CONFIG = { classicTxBlock: 0 };
/** Members of a real-node genesis besides the schema's genesis options. */
const GENESIS_EXTRAS = ['config', 'number', 'gasUsed', 'parentHash'];
const SECTIONS = Object.keys(schema).filter((name) => optionByKey(name) === undefined);
const ALL_KEYS = [...OPTIONS.map((e) => e.key), ...SECTIONS, ...GENESIS_EXTRAS.map((k) => `genesis.${k}`)];

function unknownKey(key: string, where: string, candidates: readonly string[] = ALL_KEYS): ConfigError {
  const guess = closest(key, candidates);
  return new ConfigError(`unknown config key ${key} in ${where}${guess === undefined ? '' : ` (did you mean ${guess}?)`}`);
}

/** Flatten a (partial) config file to dotted keys; sections merge key by key, values replace. */
function fileSettings(json: unknown, file: string): Settings {
  if (!isRecord(json)) throw new ConfigError(`config file ${file} must hold a JSON object`);
  return objectSettings(json, file, false);
}

/**
 * Flattens settings in object form to dotted keys. With `flagNames`, a top-level name that is
 * neither a key nor a section may be a flag name (`rpcport`, `mine`, `mining.mode`): the
 * library's options take what the command line takes.
 */
function objectSettings(object: Record<string, unknown>, where: string, flagNames: boolean): Settings {
  const out: Settings = new Map();
  const origin = `in ${where}`;
  for (const [name, value] of Object.entries(object)) {
    if (value === undefined) continue; // an option left out, spelled `{ key: undefined }`
    const flag = flagNames ? optionByFlag(name) : undefined;
    if (optionByKey(name) !== undefined) {
      out.set(name, { value, origin });
    } else if (SECTIONS.includes(name) && (isRecord(value) || flag === undefined)) {
      // `metrics`, `rpc` and `ws` are sections and flags too: `{ metrics: true }` is the flag's.
      if (!isRecord(value)) throw invalid(name, value, `an object of ${name}.* settings`, origin);
      for (const [field, v] of Object.entries(value)) {
        const key = `${name}.${field}`;
        if (optionByKey(key) === undefined && !(name === 'genesis' && GENESIS_EXTRAS.includes(field))) throw unknownKey(key, where);
        if (v !== undefined) out.set(key, { value: v, origin });
      }
    } else if (flag !== undefined) {
      out.set(flag.key, { value, origin });
    } else {
      throw unknownKey(name, where, flagNames ? [...ALL_KEYS, ...allFlagNames()] : ALL_KEYS);
    }
  }
  return out;
}

function envSettings(env: NodeJS.ProcessEnv): Settings {
  const out: Settings = new Map();
  const setBy = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('MCNODE_') || name === CONFIG_ENV || value === undefined) continue;
    const entry = optionByEnv(name);
    if (entry === undefined) {
      const guess = closest(name, [...allEnvNames(), CONFIG_ENV]);
      throw new ConfigError(`unknown environment variable ${name}${guess === undefined ? '' : ` (did you mean ${guess}?)`}`);
    }
    // Variables are unordered: two names for one key must agree.
    const previous = setBy.get(entry.key);
    if (previous !== undefined && env[previous] !== value) {
      throw new ConfigError(`environment variables ${previous} and ${name} both set ${entry.key}, differently`);
    }
    setBy.set(entry.key, name);
    out.set(entry.key, { value, origin: `by ${name}` });
  }
  return out;
}

// ---- decoding ----

function show(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : value === undefined ? 'nothing' : JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value); // a bigint or a cycle, from an options object
  }
  return text.length > 80 ? text.slice(0, 77) + '…' : text;
}

function invalid(key: string, value: unknown, expected: string, origin?: string): ConfigError {
  return new ConfigError(`invalid config value for ${key}: ${show(value)} (expected ${expected}${origin ? `; set ${origin}` : ''})`);
}

function decodeSetting<T>(key: string, setting: Setting | undefined, codec: Codec<T> & { default: unknown }): T {
  const value = setting === undefined ? codec.default : setting.value;
  try {
    return codec.decode(value);
  } catch (err) {
    if (!(err instanceof BadValue)) throw err;
    const where = err.at && err.at.path !== '' ? `${key}.${err.at.path}` : key;
    throw invalid(where, err.at ? err.at.value : value, err.expected, setting?.origin);
  }
}

function decodeSettings(settings: Settings): Config {
  const out: Record<string, unknown> = {};
  for (const entry of OPTIONS) {
    if (entry.section === 'genesis') continue;
    const value = decodeSetting(entry.key, settings.get(entry.key), entry.option);
    if (entry.section === '') out[entry.key] = value;
    else ((out[entry.section] ??= {}) as Record<string, unknown>)[entry.key.slice(entry.section.length + 1)] = value;
  }
  const raw: Record<string, unknown> = {};
  for (const [key, setting] of settings) if (key.startsWith('genesis.')) raw[key.slice(8)] = setting.value;
  // The devnet takes classic transactions from genesis; a genesis `config` given says it itself.
  raw.config ??= DEVNET_GENESIS_CONFIG;
  try {
    out.genesis = decodeGenesis(raw, true);
  } catch (err) {
    if (!(err instanceof BadValue) || !err.at) throw err;
    const field = err.at.path.split('.')[0];
    throw invalid(`genesis.${err.at.path}`, err.at.value, err.expected, settings.get(`genesis.${field}`)?.origin);
  }
  return out as unknown as Config;
}

// ---- genesis (real-node format) ----

const U64 = (1n << 64n) - 1n;
const zero = (what: string): Codec<bigint> => ({
  arg: '',
  expected: `0 (${what})`,
  decode(raw) {
    if (toBigint(raw) !== 0n) throw new BadValue(`0 (${what})`);
    return 0n;
  },
});
const zeroHash: Codec<Uint8Array> = {
  arg: '',
  expected: 'the zero hash (a genesis block has no parent)',
  decode(raw) {
    const hash = bytes(32).decode(raw);
    if (hash.some((b) => b !== 0)) throw new BadValue(zeroHash.expected);
    return hash;
  },
};

/**
 * Missing fields take the devnet defaults; every error carries the field's path. `devDefault`:
 * whether dev controls are on when `config.devControls` is absent (the devnet config: yes; a
 * genesis file, like a real node's: no).
 */
function decodeGenesis(raw: Record<string, unknown>, devDefault: boolean): Genesis {
  const field = <K extends keyof typeof schema.genesis>(k: K): Genesis[K] => {
    const option = schema.genesis[k] as Codec<unknown> & { default: unknown };
    return decodeAt(k, raw[k] ?? option.default, option) as Genesis[K];
  };
  const genesis: Genesis = {
    nonce: field('nonce'), timestamp: field('timestamp'), extraData: field('extraData'), gasLimit: field('gasLimit'),
    difficulty: field('difficulty'), mixHash: field('mixHash'), coinbase: field('coinbase'), alloc: field('alloc'),
  };
  if (raw.number != null) decodeAt('number', raw.number, zero('a genesis block is block 0'));
  if (raw.gasUsed != null) decodeAt('gasUsed', raw.gasUsed, zero('a genesis block runs no transactions'));
  if (raw.parentHash != null) decodeAt('parentHash', raw.parentHash, zeroHash);
  if (raw.config != null) {
    // Fork blocks and other chain rules in `config` are ignored: mcnode takes them from `chain`.
    if (!isRecord(raw.config)) throw new BadValue('an object like {"chainId": 100}', { path: 'config', value: raw.config });
    if (raw.config.chainId != null) genesis.chainId = decodeAt('config.chainId', raw.config.chainId, bigint(1n, U64));
    if (raw.config.classicTxBlock != null) genesis.classicTxBlock = decodeAt('config.classicTxBlock', raw.config.classicTxBlock, bigint(0n, U64));
    if (raw.config.ethash != null) {
      if (!isRecord(raw.config.ethash)) throw new BadValue('an object, like {} (geth\'s convention)', { path: 'config.ethash', value: raw.config.ethash });
      genesis.ethash = true;
    }
  }
  const devControls = isRecord(raw.config) ? raw.config.devControls : undefined;
  genesis.devControls = devControls == null ? devDefault : decodeAt('config.devControls', devControls, bool);
  return genesis;
}

const GENESIS_FIELDS = [...Object.keys(schema.genesis), ...GENESIS_EXTRAS];

/** A real-node genesis file (for `init`): `where` names it in errors. Missing fields take devnet defaults. */
export function parseGenesis(json: unknown, where: string): Genesis {
  if (!isRecord(json)) throw new ConfigError(`invalid genesis in ${where}: expected a JSON object`);
  for (const key of Object.keys(json)) {
    if (!GENESIS_FIELDS.includes(key)) {
      const guess = closest(key, GENESIS_FIELDS);
      throw new ConfigError(`unknown genesis field ${key} in ${where}${guess === undefined ? '' : ` (did you mean ${guess}?)`}`);
    }
  }
  try {
    return decodeGenesis(json, false);
  } catch (err) {
    if (!(err instanceof BadValue) || !err.at) throw err;
    throw new ConfigError(`invalid genesis value for ${err.at.path} in ${where}: ${show(err.at.value)} (expected ${err.expected})`);
  }
}

// ---- rules between keys ----

/** Longest unix socket path (sun_path holds 108 bytes with the terminating zero). */
const MAX_SOCKET_PATH = 107;

function checkConsistency(config: Config, settings: Settings): void {
  const fail = (key: string, value: unknown, expected: string, setBy = key): never => {
    throw invalid(key, value, expected, settings.get(setBy)?.origin);
  };
  const { genesis, chain, accounts, rpc, scs, metrics, ipc } = config;
  if (genesis.chainId !== undefined && genesis.chainId !== chain.chainId) {
    fail('genesis.config.chainId', Number(genesis.chainId), `chain.chainId (${chain.chainId}), or no chainId`, 'genesis.config');
  }
  if (accounts.unlock.length > 0 && rpc.enabled && !accounts.allowInsecureUnlock) {
    fail('accounts.unlock', settings.get('accounts.unlock')?.value, 'no accounts to unlock while HTTP RPC is served (account unlock with HTTP access is forbidden), unless --allow-insecure-unlock is given');
  }
  if (accounts.password !== undefined && !fs.existsSync(accounts.password)) {
    fail('accounts.password', accounts.password, 'an existing password file');
  }
  const ports = [
    { key: 'rpc.port', on: rpc.enabled, port: rpc.port },
    { key: 'scs.rpcPort', on: scs.enabled, port: scs.rpcPort },
    { key: 'metrics.port', on: metrics.enabled, port: metrics.port },
    { key: 'ws.port', on: config.ws.enabled, port: config.ws.port },
  ].filter((p) => p.on && p.port !== 0);
  ports.forEach((p, i) => {
    const clash = ports.slice(0, i).find((q) => q.port === p.port);
    if (clash) fail(p.key, p.port, `a port different from ${clash.key}`);
  });
  // Absolute, so that resolving it again against the datadir changes nothing.
  ipc.path = path.resolve(config.datadir, ipc.path);
}

/** Checked when the node starts serving IPC (not for subcommands, which open no socket). */
export function checkIpcPath(ipcPath: string): void {
  const length = Buffer.byteLength(ipcPath);
  if (length > MAX_SOCKET_PATH) {
    throw new ConfigError(
      `invalid config value for ipc.path: "${ipcPath}" (expected a socket path of at most ${MAX_SOCKET_PATH} bytes; ` +
        `it resolves to ${length}): use a shorter --ipcpath or --ipcdisable`,
    );
  }
}
