import t, { type Test } from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { checkIpcPath, loadInvocation } from '../../../src/config/load.js';
import { testDir } from '../../helpers/testDir.js';

const rejects = (t: Test, argv: string[], message: RegExp, env: NodeJS.ProcessEnv = {}) =>
  t.throws(() => loadInvocation(argv, env), { name: 'ConfigError', message }, argv.join(' ') || JSON.stringify(env));
const withFile = (t: Test, content: unknown) => {
  const dir = testDir(t, { 'c.json': typeof content === 'string' ? content : JSON.stringify(content) });
  return path.join(dir, 'c.json');
};

t.test('bad enum values name the key and the choices', async (t) => {
  rejects(t, ['--mining.mode', 'fast'],
    /^invalid config value for mining\.mode: "fast" \(expected one of instant, interval, mixed, remote, off; set by --mining\.mode\)$/);
  rejects(t, ['--mining.difficulty', 'auto'], /mining\.difficulty: "auto" \(expected one of fixed, adjust/);
  rejects(t, ['--chain.hardfork', 'shanghai'], /chain\.hardfork: "shanghai" \(expected one of chainstart, homestead, .*london/);
  rejects(t, ['--rpcapi', 'mc,eht'], /rpc\.api: "eht" \(expected one of libx, mc, net, admin, txpool, personal, vnode, miner, rpc, evm, anvil, hardhat, debug; set by --rpcapi\)/);
});

t.test('bad numbers name the key', async (t) => {
  rejects(t, ['--rpcport', 'abc'], /invalid config value for rpc\.port: "abc" \(expected an integer from 0 to 65535; set by --rpcport\)/);
  rejects(t, ['--rpcport', '-1'], /rpc\.port: "-1" \(expected an integer from 0 to 65535/);
  rejects(t, ['--rpcport', '65536'], /rpc\.port: "65536" \(expected an integer from 0 to 65535/);
  rejects(t, ['--scsrpcport', '1e3'], /scs\.rpcPort: "1e3"/);
  rejects(t, ['--metrics.port', '70000'], /metrics\.port: "70000"/);
  rejects(t, ['--verbosity', '6'], /verbosity: "6" \(expected an integer from 0 to 5/);
  rejects(t, ['--minerthreads', '1.5'], /mining\.threads: "1\.5"/);
  rejects(t, ['--gasprice', '-5'], /mining\.gasPrice: "-5" \(expected an integer of at least 0 \(decimal or 0x hex\)/);
  rejects(t, ['--gasprice', '0xzz'], /mining\.gasPrice: "0xzz"/);
  rejects(t, ['--targetgaslimit', '100'], /mining\.targetGasLimit: "100" \(expected an integer from 5000 to 2\^64-1/);
  rejects(t, ['--mining.period', '0'], /mining\.period: "0" \(expected a number of seconds > 0/);
  rejects(t, ['--scs.blockperiod', '-1'], /scs\.blockPeriod: "-1" \(expected a number of seconds >= 0/);
  rejects(t, ['--networkid', '0'], /chain\.networkId: "0"/);
  rejects(t, ['--genesis.difficulty', '0'], /genesis\.difficulty: "0"/);
});

t.test('over-cap pool limits name the key', async (t) => {
  rejects(t, ['--txpool.globalslots', '4097'], /txpool\.globalSlots: "4097" \(expected an integer from 1 to 4096/);
  rejects(t, ['--txpool.globalqueue', '1025'], /txpool\.globalQueue: "1025" \(expected an integer from 0 to 1024/);
  rejects(t, ['--txpool.accountqueue', '65'], /txpool\.accountQueue: "65" \(expected an integer from 0 to 64/);
  rejects(t, [], /txpool\.globalSlots: "5000".*set by MCNODE_TXPOOL_GLOBALSLOTS/, { MCNODE_TXPOOL_GLOBALSLOTS: '5000' });
  const file = withFile(t, { txpool: { accountQueue: 100 } });
  rejects(t, ['--config', file], new RegExp(`txpool\\.accountQueue: 100 \\(expected an integer from 0 to 64; set in ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`));
});

t.test('bad addresses and keys name the key', async (t) => {
  rejects(t, ['--moacbase', '0x123'], /mining\.moacbase: "0x123" \(expected a 20-byte hex address or ""; set by --moacbase\)/);
  rejects(t, ['--moacbase', 'zz'.repeat(20)], /mining\.moacbase: "z{40}"/);
  rejects(t, ['--vnode.address', '0x' + '1'.repeat(41)], /vnode\.address:/);
  rejects(t, ['--genesis.coinbase', ''], /genesis\.coinbase: "" \(expected a 20-byte hex address/);
  rejects(t, ['--unlock', `0x${'11'.repeat(20)},0xbad`, '--allow-insecure-unlock'], /accounts\.unlock: "0xbad" \(expected a 20-byte hex address/);
  rejects(t, ['--accounts.keys', '0x' + '00'.repeat(32)], /accounts\.keys: "0x0{64}" \(expected a private key in the secp256k1 range/);
  rejects(t, ['--accounts.keys', '0x1234'], /accounts\.keys: "0x1234" \(expected a 32-byte hex private key/);
  rejects(t, ['--accounts.mnemonic', 'test test test test test test test test test test test test'], /accounts\.mnemonic: .*\(expected a BIP-39/);
});

t.test('other bad values name the key', async (t) => {
  rejects(t, ['--mining.extradata', 'x'.repeat(33)], /mining\.extraData: "x{33}" \(expected text or 0x hex of at most 32 bytes/);
  rejects(t, ['--vnode.servicecfg', 'nohost'], /vnode\.serviceCfg: "nohost" \(expected a \[host\]:port address/);
  rejects(t, ['--rpcaddr', ''], /rpc\.addr: "" \(expected a non-empty string/);
  rejects(t, ['--appchains', '[1]'], /appChains\.0: 1 \(expected an app chain object/);
  rejects(t, ['--appchains', '{"a":1}'], /appChains: "\{\\"a\\":1\}" \(expected an array of app chain objects/);
  rejects(t, ['--genesis.alloc', 'not json'], /genesis\.alloc: "not json"/);
  rejects(t, [], /mining\.mine: "maybe" \(expected true or false; set by MCNODE_MINE\)/, { MCNODE_MINE: 'maybe' });
  const file = withFile(t, { rpc: { enabled: 1 } });
  rejects(t, ['--config', file], /rpc\.enabled: 1 \(expected true or false; set in /);
  rejects(t, ['--config', withFile(t, { mining: 5 })], /invalid config value for mining: 5 \(expected an object of mining\.\* settings/);
});

t.test('unknown names are refused with a suggestion', async (t) => {
  rejects(t, ['--rcpport', '8545'], /^unknown option --rcpport \(did you mean --rpcport\?\)$/);
  rejects(t, ['--mining.mod', 'remote'], /unknown option --mining\.mod \(did you mean --mining\.mode\?\)/);
  rejects(t, ['--completely-different'], /unknown option --completely-different; see --help/);
  rejects(t, [], /unknown environment variable MCNODE_RPCPROT \(did you mean MCNODE_RPCPORT\?\)/, { MCNODE_RPCPROT: '1' });
  rejects(t, ['--config', withFile(t, { rpc: { prot: 1 } })], /unknown config key rpc\.prot in .*c\.json \(did you mean rpc\.port\?\)/);
  rejects(t, ['--config', withFile(t, { chain: { chainid: 1 } })], /unknown config key chain\.chainid in .* \(did you mean chain\.chainId\?\)/);
  rejects(t, ['--config', withFile(t, { minning: {} })], /unknown config key minning in .* \(did you mean mining\?\)/);
  rejects(t, ['--config', withFile(t, { genesis: { gaslimit: '0x1' } })], /unknown config key genesis\.gaslimit .*did you mean genesis\.gasLimit\?/);
});

t.test('config file problems name the file', async (t) => {
  rejects(t, ['--config', withFile(t, '{"rpc": ')], /config file .*c\.json is not valid JSON/);
  rejects(t, ['--config', withFile(t, [1, 2])], /config file .*c\.json must hold a JSON object/);
  rejects(t, ['--config', '/nonexistent/x.json'], /config file not found: \/nonexistent\/x\.json \(give a JSON file or a preset: .*devnet.*testnet/);
  rejects(t, ['--config', 'mainnett'], /config file not found: mainnett/);
  rejects(t, ['--config', testDir(t, {})], /is not a file/);
  rejects(t, ['--config'], /option --config needs a value/);
});

t.test('rules between keys', async (t) => {
  const addr = '0x' + '11'.repeat(20);
  rejects(t, ['--unlock', addr], /accounts\.unlock: .*unless --allow-insecure-unlock is given; set by --unlock/);
  t.equal(loadInvocation(['--unlock', addr, '--allow-insecure-unlock'], {}).config.accounts.unlock.length, 1);
  t.equal(loadInvocation(['--unlock', addr, '--rpc=false'], {}).config.accounts.unlock.length, 1, 'no HTTP, no problem');

  rejects(t, ['--password', '/nonexistent/pw.txt'], /accounts\.password: "\/nonexistent\/pw\.txt" \(expected an existing password file; set by --password\)/);
  const dir = testDir(t, { 'pw.txt': 'secret\n' });
  t.equal(loadInvocation(['--password', path.join(dir, 'pw.txt')], {}).config.accounts.password, path.join(dir, 'pw.txt'));

  rejects(t, ['--scsrpcport', '8545'], /scs\.rpcPort: 8545 \(expected a port different from rpc\.port; set by --scsrpcport\)/);
  t.equal(loadInvocation(['--scsrpcport', '8545', '--rpc=false'], {}).config.scs.rpcPort, 8545);
  t.equal(loadInvocation(['--scsrpcport', '0', '--rpcport', '0'], {}).config.rpc.port, 0, 'port 0 (any free port) may repeat');
  rejects(t, ['--metrics', '--metrics.port', '8548'], /metrics\.port: 8548 \(expected a port different from scs\.rpcPort/);

  const genesisFile = withFile(t, { genesis: { config: { chainId: 101 } } });
  rejects(t, ['--config', genesisFile], /genesis\.config\.chainId: 101 \(expected chain\.chainId \(100\), or no chainId; set in /);
  t.equal(loadInvocation(['--config', genesisFile, '--chain.chainid', '101'], {}).config.genesis.chainId, 101n);

  const long = '/tmp/' + 'd'.repeat(120);
  // Loading accepts it (subcommands open no socket); serving IPC refuses it with a clear message.
  const loaded = loadInvocation(['--datadir', long], {}).config;
  t.throws(() => checkIpcPath(loaded.ipc.path), /ipc\.path: .* \(expected a socket path of at most 107 bytes; it resolves to 135\): use a shorter --ipcpath or --ipcdisable/);
  t.equal(loadInvocation(['--datadir', long, '--ipcdisable'], {}).config.datadir, long);
  t.equal(loadInvocation(['--datadir', long, '--ipcpath', '/tmp/short.ipc'], {}).config.ipc.path, '/tmp/short.ipc');
  t.equal(fs.existsSync(long), false);
});

t.test('two environment names for one key must agree', async (t) => {
  rejects(t, [], /environment variables MCNODE_RPCPORT and MCNODE_RPC_PORT both set rpc\.port, differently/,
    { MCNODE_RPCPORT: '1', MCNODE_RPC_PORT: '2' });
});
