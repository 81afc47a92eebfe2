// Every configuration option, declared once: its codec (type and check), its default (the devnet
// value, written as in a config file), its doc line and the real node's flag names for it.
// Flags (`--section.key`), environment names (`MCNODE_SECTION_KEY`), `--help` and the defaults
// of config/devnet.json are all derived from this table.

import { SECP256K1_N } from '../chain/secp256k1.js';
import { isIP } from 'node:net';
import type { GenesisSpec } from '../blockchain/genesisSpec.js';
import { POW_NAMES, type PowName } from '../consensus/powNames.js';
import { validateMnemonic } from 'ethereum-cryptography/bip39/index.js';
import { wordlist } from 'ethereum-cryptography/bip39/wordlists/english.js';
import {
  BadValue, type Codec, type GenesisAccount, type Json, address, alloc, bigint, bool, bytes, int, list, oneOf,
  duration, optionalAddress, parseJson, seconds, str, textOrHex,
} from './codecs.js';

export { BadValue, type Codec, type GenesisAccount, type Json };

import { HARDFORKS, type Hardfork } from '../chain/hardforks.js';
export { HARDFORKS, type Hardfork };
import { MINING_MODES, type MiningMode } from '../miner/miningMode.js';
export { MINING_MODES, type MiningMode };
export const DIFFICULTY_RULES = ['fixed', 'adjust'] as const;
/** Which tool the node answers as where tools check or differ (docs/coming-from-anvil-hardhat.md#compatibility-modes). */
export const COMPAT_MODES = ['none', 'anvil', 'hardhat'] as const;
export type CompatMode = (typeof COMPAT_MODES)[number];
export type DifficultyRule = (typeof DIFFICULTY_RULES)[number];
/** Namespaces the VNODE can serve over HTTP (`rpc.api`); `eth` and `web3`/`chain3` are accepted as aliases. */
import { NAMESPACES as RPC_NAMESPACES, NAMESPACE_ALIASES, type Namespace as RpcNamespace } from '../rpc/namespaces.js';
export { RPC_NAMESPACES, type RpcNamespace };

/** The main chain's genesis block, decoded (docs/chain-rules.md). */
export interface Genesis extends GenesisSpec {
  /** `config.chainId` of a real-node genesis file, when it has one */
  chainId?: bigint;
  /** `config.classicTxBlock`: first block that takes classic (Ethereum legacy) transactions; undefined = never */
  classicTxBlock?: bigint;
  /** the genesis file's `config` has `ethash: {}`: the chain seals with Ethash */
  ethash?: boolean;
}

/** The loaded configuration: typed values only (bigint, Uint8Array), no hex strings. */
export interface Config {
  datadir: string;
  verbosity: number;
  /** answer as Anvil or Hardhat where tools check (client version) or differ (interval mining unit) */
  compat: CompatMode;
  chain: { chainId: bigint; networkId: bigint; hardfork: Hardfork; pow: PowName };
  genesis: Genesis;
  accounts: {
    mnemonic: string;
    devCount: number;
    devBalance: bigint;
    /** extra private keys (32 bytes each) funded in genesis and unlocked */
    keys: Uint8Array[];
    /** keystore accounts to unlock at start-up */
    unlock: Uint8Array[];
    /** path of a password file, one password per line */
    password: string | undefined;
    allowInsecureUnlock: boolean;
    /** new keystore files use scrypt n=4096, p=6 instead of n=262144, p=1 */
    lightKdf: boolean;
    /** every address without a key sends as if impersonated (devControls chains) */
    autoImpersonate: boolean;
  };
  mining: {
    mode: MiningMode;
    /** seconds */
    period: number;
    /** 0 = one per CPU */
    threads: number;
    mine: boolean;
    /** undefined = the first dev account */
    moacbase: Uint8Array | undefined;
    gasPrice: bigint;
    targetGasLimit: bigint;
    extraData: Uint8Array;
    difficulty: DifficultyRule;
    targetBlockTime: number;
    minimumDifficulty: bigint;
  };
  rpc: {
    enabled: boolean; addr: string; port: number; api: RpcNamespace[]; corsDomain: string[]; vhosts: string[];
    /** run mc_call / mc_estimateGas on the call interpreter (execution/fastCall) where it implements the rules */
    fastCall: boolean;
    /** re-run one interpreter call in N on the library EVM and compare (0 = never) */
    fastCallVerify: number;
    /** milliseconds a call, estimate or trace may run (0 = no limit) */
    evmTimeout: number;
    /** most gas a call or estimate may use (0 = no cap) */
    gasCap: bigint;
  };
  /** every HTTP endpoint (--rpc, --ws, SCS): the fast path in front of node:http (docs/design/http-fast-path.md) */
  http: { fastPath: boolean };
  /** `path` is made absolute by the loader: relative to `datadir` (itself relative to the working directory) */
  ipc: { disabled: boolean; path: string };
  /** the separate WebSocket endpoint (the HTTP port takes WebSocket upgrades anyway) */
  ws: { enabled: boolean; addr: string; port: number; api: RpcNamespace[]; origins: string[] };
  scs: { enabled: boolean; rpcPort: number; rpcAddr: string; blockPeriod: number };
  txpool: { globalSlots: number; globalQueue: number; accountQueue: number; priceBump: number; lifetime: number };
  filters: { timeout: number };
  vnode: { address: Uint8Array | undefined; ip: string; serviceCfg: string; showToPublic: boolean; scsService: boolean };
  metrics: { enabled: boolean; addr: string; port: number };
  /** peer-to-peer networking (docs/network.md); maxPeers 0 turns it off */
  p2p: { port: number; addr: string; maxPeers: number; bootnodes: string[]; nat: string; noDiscover: boolean };
  /** kept as given; the SCS code normalises them (docs/scs.md#declaring-app-chains) */
  appChains: Record<string, unknown>[];
  /** Anvil-format state files: written at shutdown, loaded at start (docs/coming-from-anvil-hardhat.md#state-files) */
  state: { dump: string | undefined; load: string | undefined };
  /** dagdir: where the full dataset is generated and kept for mining (docs/mining-and-ethash.md#the-full-dataset); undefined = light cache only */
  ethash: { dagdir: string | undefined };
  /** the web explorer on the HTTP endpoint (docs/explorer.md) */
  explorer: { enabled: boolean; signatures: string[] };
  /** console.log calls of contracts printed in the log (docs/explorer.md#consolelog) */
  console: { log: boolean };
  /** fork mode (docs/fork-mode.md): a private copy of an upstream node at a block; url undefined = no fork */
  fork: {
    url: string | undefined;
    /** undefined: the upstream's head minus 5; negative: that many below its head */
    block: bigint | undefined;
    /** `Name: value` lines sent to the upstream */
    header: string[];
    retries: number;
    /** milliseconds per upstream request */
    timeout: number;
    /** undefined: <datadir>/forkcache */
    cache: string | undefined;
  };
  /** dotted keys a config file, the environment or a flag set (the others hold their defaults) */
  given?: ReadonlySet<string>;
}

export interface Option<T> extends Codec<T> {
  /** the devnet default, as written in a config file */
  readonly default: Json;
  readonly doc: string;
  /** the real node's flag names for this key (without dashes) */
  readonly aliases: readonly string[];
}

type Section<T> = { readonly [K in keyof T]-?: Option<T[K]> };
/** The genesis section's `chainId`, `devControls`, `classicTxBlock` and `ethash` come from the genesis file's `config` member, not from options. */
export type Schema = {
  readonly [K in keyof Omit<Config, 'given'>]-?: K extends 'genesis'
    ? Section<Omit<Genesis, 'chainId' | 'devControls' | 'classicTxBlock' | 'ethash'>>
    : Config[K] extends string | number | unknown[] ? Option<Config[K]> : Section<Config[K]>;
};

const opt = <T>(codec: Codec<T>, dflt: Json, doc: string, aliases: string[] = []): Option<T> =>
  ({ ...codec, default: dflt, doc, aliases });

const U64 = (1n << 64n) - 1n;
const port = int(0, 65535, '<port>');
const host = str('<host>');
const privateKey: Codec<Uint8Array> = {
  arg: '<key>',
  expected: 'a 32-byte hex private key',
  decode(raw) {
    if (typeof raw !== 'string' || !/^(0x)?[0-9a-f]{64}$/i.test(raw)) throw new BadValue(privateKey.expected);
    const key = bytes(32).decode(raw);
    const n = BigInt('0x' + Buffer.from(key).toString('hex'));
    if (n === 0n || n >= SECP256K1_N) throw new BadValue('a private key in the secp256k1 range');
    return key;
  },
};
const optionalPath: Codec<string | undefined> = {
  arg: '<file>',
  expected: 'a file path or ""',
  decode: (raw) => (raw === '' ? undefined : str('<file>').decode(raw)),
};
const optionalDir: Codec<string | undefined> = {
  arg: '<dir>',
  expected: 'a directory path or ""',
  decode: (raw) => (raw === '' ? undefined : str('<dir>').decode(raw)),
};
const mnemonic: Codec<string> = {
  arg: '<words>',
  expected: 'a BIP-39 English mnemonic (12-24 words with a valid checksum)',
  decode(raw) {
    const words = typeof raw === 'string' ? raw.trim().split(/\s+/).join(' ') : '';
    if (!validateMnemonic(words, wordlist)) throw new BadValue(mnemonic.expected);
    return words;
  },
};
/** `[host]:port`, as the real node's `ServiceCfg`. */
const serviceAddress: Codec<string> = {
  arg: '<[host]:port>',
  expected: 'a [host]:port address',
  decode(raw) {
    const value = typeof raw === 'string' ? raw : '';
    const m = /^[^:\s]*:(\d{1,5})$/.exec(value);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > 65535) throw new BadValue(serviceAddress.expected);
    return value;
  },
};
/** `extip:<ip>` (the address the enode advertises), or `none` / `any` / empty for the listening address. */
const nat: Codec<string> = {
  arg: '<extip:ip>',
  expected: 'extip:<ip>, none or any',
  decode(raw) {
    const value = typeof raw === 'string' ? raw.trim() : undefined;
    if (value === undefined || !(/^(|none|any)$/i.test(value) || isIP(value.replace(/^extip:/i, '')) !== 0 && /^extip:/i.test(value))) {
      throw new BadValue(nat.expected);
    }
    return value;
  },
};
const enodeUrl = str('<enode>');
/** An upstream to fork: http(s)://, ws(s):// or the path of an IPC socket; "" for none. */
const forkUrl: Codec<string | undefined> = {
  arg: '<url>',
  expected: 'an http(s):// or ws(s):// URL, an IPC socket path, or ""',
  decode(raw) {
    if (raw === '') return undefined;
    if (typeof raw !== 'string' || raw.trim() === '' || /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) && !/^(https?|wss?):\/\//i.test(raw)) throw new BadValue(forkUrl.expected);
    return raw.trim();
  },
};
/** A block number, or a negative distance below the upstream's head; "" for the default. */
const forkBlock: Codec<bigint | undefined> = {
  arg: '<n>',
  expected: 'a block number, a negative number (blocks below the upstream\'s head), or ""',
  decode(raw) {
    if (raw === '' || raw === null) return undefined;
    if (typeof raw === 'number' && Number.isSafeInteger(raw)) return BigInt(raw);
    if (typeof raw === 'string' && /^\s*-?[0-9]+\s*$/.test(raw)) return BigInt(raw.trim());
    if (typeof raw === 'string' && /^\s*0x[0-9a-f]+\s*$/i.test(raw)) return BigInt(raw.trim());
    throw new BadValue(forkBlock.expected);
  },
};
/** `Name: value` lines; the flag may be given several times (a list in a config file). */
const forkHeaders: Codec<string[]> = {
  arg: "'Name: value'",
  expected: 'header lines "Name: value"',
  repeatable: true,
  decode(raw) {
    const lines = typeof raw === 'string' ? [raw] : raw;
    if (!Array.isArray(lines) || lines.some((l) => typeof l !== 'string' || !/^[^:\s]+\s*:/.test(l))) throw new BadValue(forkHeaders.expected);
    return lines as string[];
  },
};
const namespaces: Codec<RpcNamespace[]> = {
  arg: '<list>',
  expected: `a comma-separated list of ${RPC_NAMESPACES.join(', ')}`,
  decode(raw) {
    const each = oneOf(RPC_NAMESPACES);
    const names = list({ ...each, decode: (v) => each.decode(typeof v === 'string' ? NAMESPACE_ALIASES.get(v.toLowerCase()) ?? v : v) }).decode(raw);
    return [...new Set(names)];
  },
};
/** Function signatures, `name(type,…)`, comma-separated on the command line (commas inside parentheses stay). */
const signatures: Codec<string[]> = {
  arg: '<list>',
  expected: 'function signatures such as "deposit(address,uint256)", comma-separated',
  decode(raw) {
    const items = typeof raw === 'string' ? raw.split(/,(?![^(]*\))/).map((x) => x.trim()).filter((x) => x !== '') : raw;
    if (!Array.isArray(items)) throw new BadValue(signatures.expected);
    for (const item of items) {
      if (typeof item !== 'string' || !/^[A-Za-z_$][\w$]*\([\w$,\[\]() ]*\)$/.test(item)) throw new BadValue('a function signature such as "deposit(address,uint256)"', { path: '', value: item });
    }
    return items as string[];
  },
};
const appChains: Codec<Record<string, unknown>[]> = {
  arg: '<json>',
  expected: 'an array of app chain objects',
  decode(raw) {
    const items = parseJson(raw);
    if (!Array.isArray(items)) throw new BadValue(appChains.expected);
    items.forEach((item, i) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) {
        throw new BadValue('an app chain object', { path: String(i), value: item });
      }
    });
    return items as Record<string, unknown>[];
  },
};

export const schema: Schema = {
  datadir: opt(str('<path>'), './data/devnet', 'data directory: chain database, keystore, node key, IPC socket', ['datadir']),
  verbosity: opt(int(0, 5), 3, 'log level: 0 silent, 1 error, 2 warn, 3 info, 4 debug, 5 trace', ['verbosity']),
  compat: opt(oneOf(COMPAT_MODES), 'none', 'answer as anvil or hardhat where tools check: web3_clientVersion prefix (Hardhat\'s network helpers), evm_setIntervalMining in seconds under anvil'),
  chain: {
    chainId: opt(bigint(1n, U64), 100, 'chain id used in transaction signatures (EIP-155 style)'),
    networkId: opt(bigint(1n, U64), 100, 'network id reported by net_version', ['networkid']),
    hardfork: opt(oneOf(HARDFORKS), 'petersburg', `EVM rules: ${HARDFORKS.join(', ')}`),
    pow: opt(oneOf(POW_NAMES), 'keccak-pow', 'proof of work: keccak-pow (fast devnet default) or ethash (real miners); a genesis with config.ethash also selects ethash'),
  },
  genesis: {
    nonce: opt(bigint(0n, U64), '0x42', 'genesis block nonce'),
    timestamp: opt(bigint(0n, U64), '0x0', 'genesis block timestamp (unix seconds)'),
    extraData: opt(bytes(), '0x', 'genesis block extra data (hex)'),
    gasLimit: opt(bigint(5000n, U64), '0x895440', 'genesis block gas limit'),
    difficulty: opt(bigint(1n), '0x200', 'genesis block difficulty (and every block\'s, with mining.difficulty fixed)'),
    mixHash: opt(bytes(32), '0x' + '00'.repeat(32), 'genesis block mix hash'),
    coinbase: opt(address, '0x' + '00'.repeat(20), 'genesis block miner'),
    alloc: opt(alloc, {}, 'pre-funded accounts: {"<address>": {"balance": "…", "code"?, "storage"?, "nonce"?}}'),
  },
  accounts: {
    mnemonic: opt(mnemonic, 'test test test test test test test test test test test junk', 'mnemonic of the dev accounts (path m/44\'/314\'/0\'/0/i)'),
    devCount: opt(int(0, 1000), 10, 'number of dev accounts derived from the mnemonic, funded and unlocked'),
    devBalance: opt(bigint(0n), '1000000000000000000000000', 'genesis balance of each dev account and extra key, in sha'),
    keys: opt(list(privateKey), [], 'extra private keys to fund in genesis and unlock'),
    unlock: opt(list(address), [], 'keystore accounts to unlock at start-up', ['unlock']),
    password: opt(optionalPath, '', 'password file for --unlock, one password per line', ['password']),
    allowInsecureUnlock: opt(bool, false, 'allow unlocking accounts while HTTP RPC is served', ['allow-insecure-unlock']),
    lightKdf: opt(bool, false, 'weaker, faster scrypt (n=4096, p=6) for new keystore files', ['lightkdf']),
    autoImpersonate: opt(bool, false, 'send from any address without its key, as if impersonated (dev-control chains; anvil_autoImpersonateAccount switches it)', ['auto-impersonate']),
  },
  mining: {
    mode: opt(oneOf(MINING_MODES), 'mixed', 'instant: seal per transaction; interval: every period; mixed: instant plus empty blocks after period; remote: mc_getWork/mc_submitWork only; off'),
    period: opt(seconds(false), 2, 'seconds between blocks for interval and mixed modes'),
    threads: opt(int(0, 1024), 0, 'proof-of-work worker threads (0 = one per CPU)', ['minerthreads']),
    mine: opt(bool, true, 'mine at start-up', ['mine']),
    moacbase: opt(optionalAddress, '', 'mining beneficiary (empty = the first dev account)', ['moacbase']),
    gasPrice: opt(bigint(0n), '1000000000', 'minimum gas price accepted into the pool, in sha', ['gasprice']),
    targetGasLimit: opt(bigint(5000n, U64), '9000000', 'gas limit that blocks move toward (by 1/1024 per block)', ['targetgaslimit']),
    extraData: opt(textOrHex(32), '', 'extra data of mined blocks (text, or 0x hex), at most 32 bytes', ['extradata']),
    difficulty: opt(oneOf(DIFFICULTY_RULES), 'fixed', 'fixed: the genesis difficulty; adjust: Homestead rule toward targetBlockTime'),
    targetBlockTime: opt(int(1, 3600), 10, 'seconds per block aimed at by the adjust rule'),
    minimumDifficulty: opt(bigint(1n), '131072', 'lowest difficulty of the adjust rule'),
  },
  rpc: {
    enabled: opt(bool, true, 'serve JSON-RPC over HTTP', ['rpc']),
    addr: opt(host, '127.0.0.1', 'HTTP listening address', ['rpcaddr']),
    port: opt(port, 8545, 'HTTP port (0 = any free port)', ['rpcport']),
    api: opt(namespaces, ['libx', 'mc', 'net', 'vnode', 'txpool', 'miner', 'rpc', 'evm', 'anvil', 'hardhat', 'ots', 'erigon', 'trace', 'debug'], 'namespaces served over HTTP', ['rpcapi']),
    corsDomain: opt(list(str('<origin>')), [], 'browser origins allowed to call (CORS); * for any', ['rpccorsdomain']),
    vhosts: opt(list(str('<host>')), ['localhost'], 'accepted Host header names; * for any (IP literals always pass)', ['rpcvhosts']),
    fastCall: opt(bool, true, 'run mc_call and mc_estimateGas on the call interpreter where it implements the chain\'s rules (false: always the library EVM)'),
    fastCallVerify: opt(int(0, 2 ** 31), 0, 're-run one call interpreter answer in N on the library EVM, answer with the library\'s and log any disagreement (0 = never)', ['rpc.fastcall.verify']),
    evmTimeout: opt(duration(true), '5s', 'time one mc_call, mc_estimateGas or trace may run before it is aborted (0 = no limit)'),
    gasCap: opt(bigint(0n, U64), '50000000', 'most gas one mc_call or mc_estimateGas may use; more is lowered to it (0 = no cap)'),
  },
  http: {
    fastPath: opt(bool, true, 'answer plain JSON-RPC POSTs on the fast path in front of node:http, on every HTTP endpoint (false: node:http answers every request)'),
  },
  ws: {
    enabled: opt(bool, false, 'serve JSON-RPC over WebSocket on its own port (the HTTP port takes WebSocket upgrades anyway)', ['ws']),
    addr: opt(host, '127.0.0.1', 'WebSocket listening address', ['wsaddr']),
    port: opt(port, 8546, 'WebSocket port (0 = any free port)', ['wsport']),
    api: opt(namespaces, ['libx', 'mc', 'net', 'vnode', 'txpool', 'miner', 'rpc', 'ots', 'erigon', 'trace', 'debug'], 'namespaces served over the WebSocket endpoint', ['wsapi']),
    origins: opt(list(str('<origin>')), [], 'browser origins allowed to connect to the WebSocket endpoint; * for any', ['wsorigins']),
  },
  ipc: {
    disabled: opt(bool, false, 'do not serve the IPC socket', ['ipcdisable']),
    path: opt(str('<path>'), 'vnode.ipc', 'IPC socket path, relative to the data directory unless absolute', ['ipcpath']),
  },
  scs: {
    enabled: opt(bool, true, 'serve the SCS (application chain) JSON-RPC endpoint'),
    rpcPort: opt(port, 8548, 'SCS HTTP port (0 = any free port)', ['scsrpcport']),
    rpcAddr: opt(host, '127.0.0.1', 'SCS HTTP listening address', ['scsrpcaddr']),
    blockPeriod: opt(seconds(true), 0, 'seconds between app chain interval blocks (0 = only on demand)'),
  },
  txpool: {
    globalSlots: opt(int(1, 4096), 4096, 'executable transactions held in the pool (at most 4096)'),
    globalQueue: opt(int(0, 1024), 1024, 'future (queued) transactions held in the pool (at most 1024)'),
    accountQueue: opt(int(0, 64), 64, 'queued transactions per account (at most 64)'),
    priceBump: opt(int(0, 10000), 10, 'percent gas price increase needed to replace a transaction'),
    lifetime: opt(int(1, 2 ** 31), 10800, 'seconds a queued transaction is kept'),
  },
  filters: {
    timeout: opt(int(1, 2 ** 31), 300, 'seconds an unpolled filter lives'),
  },
  vnode: {
    address: opt(optionalAddress, '', 'VNODE beneficial address, required as `via` of app chain transactions (empty = the first dev account)'),
    ip: opt(host, '127.0.0.1', 'IP reported by vnode_serviceCfg and vnode_showToPublic'),
    serviceCfg: opt(serviceAddress, ':50062', 'service address reported by vnode_serviceCfg'),
    showToPublic: opt(bool, true, 'value of vnode_showToPublic'),
    scsService: opt(bool, true, 'advertise the SCS service in vnode_scsService (true only while the SCS endpoint runs)'),
  },
  metrics: {
    enabled: opt(bool, false, 'serve metrics over HTTP', ['metrics']),
    addr: opt(host, '127.0.0.1', 'metrics listening address', ['metrics.addr']),
    port: opt(port, 6060, 'metrics port', ['metrics.port']),
  },
  p2p: {
    port: opt(port, 0, 'peer-to-peer (RLPx) listening port (0 = any free port, shown in the banner)', ['port']),
    addr: opt(host, '127.0.0.1', 'peer-to-peer listening address'),
    maxPeers: opt(int(0, 1000), 25, 'most peers connected at once (0 = no networking)', ['maxpeers']),
    bootnodes: opt(list(enodeUrl), [], 'enode URLs dialed at start and kept connected (static peers)', ['bootnodes']),
    nat: opt(nat, '', 'extip:<ip> to advertise that address in the enode (e.g. a container IP)', ['nat']),
    noDiscover: opt(bool, false, 'accepted for compatibility: mcnode has no peer discovery, peers are static', ['nodiscover']),
  },
  fork: {
    url: opt(forkUrl, '', 'fork this upstream node (http(s)://, ws(s):// or an IPC socket path) at --fork.block; a fork datadir remembers it'),
    block: opt(forkBlock, '', 'block to fork: a number, or negative for that many below the upstream\'s head (empty = head minus 5)'),
    header: opt(forkHeaders, [], 'header sent with every upstream request, e.g. \'Authorization: Bearer …\' (repeatable)'),
    retries: opt(int(0, 20), 3, 'retries of a failed upstream request'),
    timeout: opt(int(1, 3_600_000), 30000, 'milliseconds an upstream request may take'),
    cache: opt(optionalDir, '', 'fork cache directory, shareable by forks of the same upstream (empty = <datadir>/forkcache)'),
  },
  appChains: opt(appChains, [], 'app chains created at start-up: an array of scs_createAppChain objects'),
  state: {
    dump: opt(optionalPath, '', 'write the head state to this file at shutdown, in Anvil\'s format (JSON)', ['dump-state']),
    load: opt(optionalPath, '', 'load an Anvil-format state file at start, as one block (dev-control chains)', ['load-state']),
  },
  ethash: {
    dagdir: opt(optionalDir, '', 'Ethash chains: generate the full dataset (~1 GB) in worker threads into this directory, reuse it after restart, and mine with it once ready (empty = light cache only)'),
  },
  explorer: {
    enabled: opt(bool, true, 'serve the web explorer at /explorer on the HTTP endpoint', ['explorer']),
    signatures: opt(signatures, [], 'more function signatures the explorer decodes, e.g. "deposit(address,uint256)"'),
  },
  console: {
    log: opt(bool, true, 'print contracts\' console.log calls in the log (--no-console-log turns it off)', ['console-log']),
  },
};

/** One option with everything derived from its place in the schema. */
export interface OptionEntry {
  /** dotted key, e.g. `mining.mode` */
  readonly key: string;
  /** `''` for top-level keys */
  readonly section: string;
  readonly option: Option<unknown>;
  /** every accepted flag name (lower-case, without dashes): the dotted key first, then aliases */
  readonly flags: readonly string[];
  /** every accepted environment variable name */
  readonly envNames: readonly string[];
}

const envName = (name: string): string => 'MCNODE_' + name.toUpperCase().replace(/[.-]/g, '_');

function isOption(value: object): value is Option<unknown> {
  return typeof (value as Option<unknown>).decode === 'function';
}

function buildEntries(): OptionEntry[] {
  const entries: OptionEntry[] = [];
  const add = (key: string, section: string, option: Option<unknown>): void => {
    const flags = [...new Set([key.toLowerCase(), ...option.aliases.map((a) => a.toLowerCase())])];
    const envNames = [...new Set(flags.map(envName))];
    entries.push({ key, section, option, flags, envNames });
  };
  for (const [name, node] of Object.entries(schema) as [string, object][]) {
    if (isOption(node)) add(name, '', node);
    else for (const [key, option] of Object.entries(node) as [string, Option<unknown>][]) add(`${name}.${key}`, name, option);
  }
  return entries;
}

/** Every option in schema order. */
export const OPTIONS: readonly OptionEntry[] = buildEntries();

function index(names: (e: OptionEntry) => readonly string[]): Map<string, OptionEntry> {
  const map = new Map<string, OptionEntry>();
  for (const entry of OPTIONS) {
    for (const name of names(entry)) {
      const other = map.get(name);
      // Two keys claiming one flag or variable name would make a setting ambiguous.
      if (other && other !== entry) throw new Error(`config schema: ${name} names both ${other.key} and ${entry.key}`);
      map.set(name, entry);
    }
  }
  return map;
}

const BY_KEY = new Map(OPTIONS.map((e) => [e.key, e]));
const BY_FLAG = index((e) => e.flags);
const BY_ENV = index((e) => e.envNames);

export const optionByKey = (key: string): OptionEntry | undefined => BY_KEY.get(key);
/** Flag names match case-insensitively, without the leading dashes. */
export const optionByFlag = (name: string): OptionEntry | undefined => BY_FLAG.get(name.toLowerCase());
export const optionByEnv = (name: string): OptionEntry | undefined => BY_ENV.get(name);
export const allFlagNames = (): string[] => [...BY_FLAG.keys()];
export const allEnvNames = (): string[] => [...BY_ENV.keys()];
