import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { loadInvocation, loadConfig, defaultConfig, packageRoot, presetNames } from '../../../src/config/load.js';
import { OPTIONS } from '../../../src/config/schema.js';
import { testDir } from '../../helpers/testDir.js';

const load = (argv: string[], env: NodeJS.ProcessEnv = {}) => loadInvocation(argv, env).config;
const hex = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('hex'));

t.test('defaults are the devnet values', async (t) => {
  const c = defaultConfig();
  t.equal(c.datadir, './data/devnet');
  t.equal(c.verbosity, 3);
  t.same(c.chain, { chainId: 100n, networkId: 100n, hardfork: 'petersburg', pow: 'keccak-pow' });
  t.equal(c.genesis.nonce, 0x42n);
  t.equal(c.genesis.gasLimit, 9_000_000n);
  t.equal(c.genesis.difficulty, 0x200n);
  t.equal(c.genesis.timestamp, 0n);
  t.equal(c.genesis.extraData.length, 0);
  t.equal(hex(c.genesis.mixHash), '00'.repeat(32));
  t.equal(hex(c.genesis.coinbase), '00'.repeat(20));
  t.equal(c.genesis.alloc.size, 0);
  t.equal(c.genesis.chainId, undefined);
  t.equal(c.accounts.mnemonic, 'test test test test test test test test test test test junk');
  t.equal(c.accounts.devCount, 10);
  t.equal(c.accounts.devBalance, 10n ** 24n);
  t.same(c.accounts.keys, []);
  t.same(c.accounts.unlock, []);
  t.equal(c.accounts.password, undefined);
  t.equal(c.accounts.allowInsecureUnlock, false);
  t.equal(c.mining.mode, 'mixed');
  t.equal(c.mining.period, 2);
  t.equal(c.mining.threads, 0);
  t.equal(c.mining.mine, true);
  t.equal(c.mining.moacbase, undefined);
  t.equal(c.mining.gasPrice, 1_000_000_000n);
  t.equal(c.mining.targetGasLimit, 9_000_000n);
  t.equal(c.mining.extraData.length, 0);
  t.equal(c.mining.difficulty, 'fixed');
  t.equal(c.mining.targetBlockTime, 10);
  t.equal(c.mining.minimumDifficulty, 131072n);
  t.same(c.rpc, {
    enabled: true, addr: '127.0.0.1', port: 8545, api: ['libx', 'mc', 'net', 'vnode', 'txpool', 'miner', 'rpc', 'evm', 'anvil', 'hardhat', 'ots', 'erigon', 'trace', 'debug'], corsDomain: [], vhosts: ['localhost'],
    fastCall: true, fastCallVerify: 0, evmTimeout: 5000, gasCap: 50_000_000n,
  });
  t.same(c.ipc, { disabled: false, path: path.resolve('data/devnet/vnode.ipc') }, 'the socket path is absolute');
  t.same(c.scs, { enabled: true, rpcPort: 8548, rpcAddr: '127.0.0.1', blockPeriod: 0 });
  t.same(c.txpool, { globalSlots: 4096, globalQueue: 1024, accountQueue: 64, priceBump: 10, lifetime: 10800 });
  t.same(c.filters, { timeout: 300 });
  t.same(c.vnode, { address: undefined, ip: '127.0.0.1', serviceCfg: ':50062', showToPublic: true, scsService: true });
  t.same(c.metrics, { enabled: false, addr: '127.0.0.1', port: 6060 });
  t.same(c.appChains, []);
});

t.test('config/devnet.json holds exactly the schema defaults', async (t) => {
  const file = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'config', 'devnet.json'), 'utf8'));
  const tree: Record<string, any> = {};
  for (const e of OPTIONS) {
    if (e.section === '') tree[e.key] = e.option.default;
    else (tree[e.section] ??= {})[e.key.slice(e.section.length + 1)] = e.option.default;
  }
  t.same(file, tree);
  t.strictSame(Object.keys(file), Object.keys(tree), 'same sections in schema order');
});

t.test('precedence: flag > env > config file > defaults', async (t) => {
  const dir = testDir(t, { 'c.json': JSON.stringify({ rpc: { port: 1111, vhosts: ['file.host'] }, mining: { mode: 'instant' } }) });
  const file = path.join(dir, 'c.json');
  const env = { MCNODE_RPCPORT: '2222', MCNODE_RPC_VHOSTS: 'env.host', MCNODE_MINING_MODE: 'interval' };
  const flags = ['--rpcport', '3333', '--rpcvhosts', 'flag.host', '--mining.mode', 'remote'];

  let c = load(['--config', file, ...flags], env);
  t.equal(c.rpc.port, 3333);
  t.same(c.rpc.vhosts, ['flag.host']);
  t.equal(c.mining.mode, 'remote');

  c = load(['--config', file], env);
  t.equal(c.rpc.port, 2222);
  t.same(c.rpc.vhosts, ['env.host']);
  t.equal(c.mining.mode, 'interval');

  c = load(['--config', file]);
  t.equal(c.rpc.port, 1111);
  t.same(c.rpc.vhosts, ['file.host']);
  t.equal(c.mining.mode, 'instant');

  c = load([]);
  t.equal(c.rpc.port, 8545);
  t.same(c.rpc.vhosts, ['localhost']);
  t.equal(c.mining.mode, 'mixed');
});

t.test('the last of repeated flags wins, whatever name it uses', async (t) => {
  t.equal(load(['--rpcport', '1', '--rpc.port', '2']).rpc.port, 2);
  t.equal(load(['--rpc.port', '2', '--rpcport', '1']).rpc.port, 1);
});

t.test('a partial config file is merged over the defaults; arrays replace', async (t) => {
  const dir = testDir(t, {
    'p.json': JSON.stringify({
      mining: { mode: 'remote' },
      rpc: { api: ['mc'] },
      genesis: { alloc: { ['ab'.repeat(20)]: { balance: '5' } } },
      datadir: '/tmp/somewhere',
    }),
  });
  const c = load(['--config', path.join(dir, 'p.json')]);
  t.equal(c.mining.mode, 'remote');
  t.equal(c.mining.period, 2, 'other keys of the section keep their defaults');
  t.same(c.rpc.api, ['mc'], 'the array replaces the default, it is not merged');
  t.same(c.rpc.vhosts, ['localhost']);
  t.equal(c.genesis.gasLimit, 9_000_000n, 'genesis fields not in the file keep their defaults');
  t.equal(c.genesis.alloc.get('0x' + 'ab'.repeat(20))?.balance, 5n);
  t.equal(c.datadir, '/tmp/somewhere');
  t.equal(c.ipc.path, '/tmp/somewhere/vnode.ipc', 'a relative ipc path is resolved against the data directory');
  t.equal(c.chain.chainId, 100n);
});

t.test('an absolute ipc path is kept', async (t) => {
  t.equal(load(['--ipcpath', '/tmp/x.ipc']).ipc.path, '/tmp/x.ipc');
  t.equal(load(['--ipcpath', 'other.ipc', '--datadir', '/d']).ipc.path, '/d/other.ipc');
  t.equal(load(['--ipcpath', 'sub/x.ipc', '--datadir', 'rel']).ipc.path, path.resolve('rel/sub/x.ipc'));
});

t.test('presets', async (t) => {
  t.same(presetNames().filter((n) => n === 'devnet' || n === 'testnet'), ['devnet', 'testnet']);
  const test = load(['--config', 'testnet']);
  t.equal(test.chain.chainId, 101n);
  t.equal(test.chain.networkId, 101n);
  t.equal(test.mining.mode, 'interval');
  t.equal(test.mining.period, 10);
  t.equal(test.mining.difficulty, 'adjust');
  t.equal(test.chain.pow, 'ethash', 'the testnet seals with Ethash');
  t.equal(test.genesis.difficulty, 0x1000n, 'light mining on two cores seals it in seconds');
  t.equal(test.mining.minimumDifficulty, 0x1000n);
  t.equal(test.accounts.devCount, 10);
  t.equal(test.datadir, './data/testnet');
  t.equal(test.rpc.port, 8545, 'unset keys come from the devnet defaults');

  const dev = load(['--config', 'devnet']);
  t.equal(dev.chain.chainId, 100n);
  t.equal(dev.chain.pow, 'keccak-pow', 'the devnet keeps the fast keccak-pow');
  t.equal(dev.datadir, './data/devnet');
  t.same(dev.rpc, defaultConfig().rpc);

  t.equal(load([], { MCNODE_CONFIG: 'testnet' }).chain.chainId, 101n, 'MCNODE_CONFIG selects the file');
  t.equal(load(['--config', 'devnet'], { MCNODE_CONFIG: 'testnet' }).chain.chainId, 100n, '--config beats MCNODE_CONFIG');
  t.equal(load(['--config', 'testnet', '--chain.chainid', '7']).chain.chainId, 7n, 'flags beat the preset');
});

t.test('an existing file named like a preset wins over the preset', async (t) => {
  const dir = testDir(t, { testnet: JSON.stringify({ chain: { chainId: 55 } }) });
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    // the relative default datadir would put the socket under this long test path
    t.equal(load(['--config', 'testnet', '--ipcdisable']).chain.chainId, 55n);
  } finally {
    process.chdir(cwd);
  }
});

t.test('environment variable forms', async (t) => {
  const c = load([], {
    PATH: '/usr/bin',
    HOME: '/root',
    MCNODE_MINING_MODE: 'remote',
    MCNODE_RPC_VHOSTS: 'a.example,b.example',
    MCNODE_RPCPORT: '9545',
    MCNODE_DATADIR: '/tmp/envdata',
    MCNODE_TXPOOL_GLOBALSLOTS: '100',
    MCNODE_ALLOW_INSECURE_UNLOCK: 'true',
    MCNODE_MINE: '0',
    MCNODE_METRICS_PORT: '7070',
    MCNODE_SCSRPCPORT: '0x2000',
  });
  t.equal(c.mining.mode, 'remote');
  t.same(c.rpc.vhosts, ['a.example', 'b.example']);
  t.equal(c.rpc.port, 9545);
  t.equal(c.datadir, '/tmp/envdata');
  t.equal(c.txpool.globalSlots, 100);
  t.equal(c.accounts.allowInsecureUnlock, true);
  t.equal(c.mining.mine, false);
  t.equal(c.metrics.port, 7070);
  t.equal(c.scs.rpcPort, 0x2000);
  t.same(load([], { MCNODE_RPCVHOSTS: '*' }).rpc.vhosts, ['*']);
  t.same(load([], { MCNODE_RPC_PORT: '1234', MCNODE_RPCPORT: '1234' }).rpc.port, 1234, 'two names that agree are fine');
});

t.test('the devnet with dev accounts and both endpoints loads from every source', async (t) => {
  const c = loadConfig({ env: {} });
  t.equal(c.rpc.enabled, true);
  t.equal(c.scs.enabled, true);
});

t.test('loading writes nothing', async (t) => {
  const dir = testDir(t, {});
  const datadir = path.join(dir, 'fresh');
  const inv = loadInvocation(['--datadir', datadir, 'init', path.join(dir, 'genesis.json')], {});
  t.equal(inv.config.datadir, datadir);
  t.equal(fs.existsSync(datadir), false);
  t.same(fs.readdirSync(dir), []);
});

t.test('settings in object form (the library\'s options): keys, sections, flag names, later layers winning', async (t) => {
  const c = loadConfig({
    values: [
      { object: { rpc: { port: 0 }, verbosity: 2 }, where: 'the defaults' },
      { object: { rpcport: 9000, 'mining.mode': 'instant', mine: false, chain: { chainId: 7n }, accounts: { devCount: 3 }, metrics: true }, where: 'the options' },
    ],
  });
  t.equal(c.rpc.port, 9000, 'a flag alias names its key, and the later layer wins');
  t.equal(c.verbosity, 2, 'an earlier layer holds where the later says nothing');
  t.equal(c.mining.mode, 'instant', 'a dotted key at the top level');
  t.equal(c.mining.mine, false);
  t.equal(c.chain.chainId, 7n, 'a bigint');
  t.equal(c.accounts.devCount, 3);
  t.equal(c.metrics.enabled, true, '`metrics` is a section and a flag: a boolean is the flag');
  t.equal(loadConfig({ values: [{ object: { mining: { mode: undefined } }, where: 'x' }] }).mining.mode, 'mixed', 'undefined is left out');
  t.throws(() => loadConfig({ values: [{ object: { minig: {} }, where: 'the options' }] }), { message: 'unknown config key minig in the options (did you mean mining?)' });
  t.throws(() => loadConfig({ values: [{ object: { rpcprot: 1 }, where: 'the options' }] }), { message: 'unknown config key rpcprot in the options (did you mean rpcport?)' });
  t.throws(() => loadConfig({ values: [{ object: { mining: { mode: 'later' } }, where: 'the options' }] }), {
    message: /^invalid config value for mining\.mode: "later" \(expected one of .*; set in the options\)$/,
  });
  t.throws(() => loadConfig({ values: [{ object: { chain: { chainId: -1n } }, where: 'the options' }] }), {
    message: /^invalid config value for chain\.chainId: -1 \(expected an integer from 1 to 2\^64-1 \(decimal or 0x hex\); set in the options\)$/,
  });
  t.throws(() => loadConfig({ values: [{ object: { chain: 5 }, where: 'the options' }] }), /invalid config value for chain: 5 \(expected an object of chain\.\* settings/);
  const over = loadConfig({ configFile: 'testnet', values: [{ object: { rpcport: 1 }, where: 'x' }] });
  t.same([over.rpc.port, over.chain.chainId], [1, 101n], 'over a preset, which keeps the rest');
});

t.test('http.fastPath: on by default; the flag in every boolean form, the env name, the config file', async (t) => {
  t.equal(load([]).http.fastPath, true);
  t.equal(load(['--http.fastpath=false']).http.fastPath, false);
  t.equal(load(['--http.fastpath', 'false']).http.fastPath, false);
  t.equal(load(['--http.fastPath', 'false', '--http.fastpath']).http.fastPath, true, 'bare flag: true; the last wins');
  t.equal(load([], { MCNODE_HTTP_FASTPATH: 'false' }).http.fastPath, false);
  const dir = testDir(t, { 'c.json': JSON.stringify({ http: { fastPath: false } }) });
  t.equal(load(['--config', path.join(dir, 'c.json')]).http.fastPath, false);
});
