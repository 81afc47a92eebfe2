import t, { type Test } from 'tap';
import { loadInvocation } from '../../../src/config/load.js';
import { ConfigError } from '../../../src/errors.js';

const run = (...argv: string[]) => loadInvocation(argv, {});
const load = (...argv: string[]) => run(...argv).config;
const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');
const rejects = (t: Test, argv: string[], message: RegExp) =>
  t.throws(() => run(...argv), { name: 'ConfigError', message }, argv.join(' '));

t.test('boolean flag forms', async (t) => {
  t.equal(load('--mine').mining.mine, true);
  t.equal(load('--mine', 'true').mining.mine, true);
  t.equal(load('--mine', 'false').mining.mine, false);
  t.equal(load('--mine', 'FALSE').mining.mine, false);
  t.equal(load('--mine=false').mining.mine, false);
  t.equal(load('--mine=true').mining.mine, true);
  t.equal(load('--mine=0').mining.mine, false);
  t.equal(load('--ipcdisable').ipc.disabled, true);
  t.equal(load('--rpc', 'false').rpc.enabled, false);
  t.equal(load('-rpc=false').rpc.enabled, false, 'a single dash works as in the real node');
  t.equal(load('--metrics').metrics.enabled, true);
  t.equal(load('--allow-insecure-unlock').accounts.allowInsecureUnlock, true);
  t.equal(load('--accounts.allowinsecureunlock', 'true').accounts.allowInsecureUnlock, true);
  t.equal(load('--mine', 'false', '--mine').mining.mine, true, 'the last setting wins');

  const inv = run('--ipcdisable', 'init', 'genesis.json');
  t.equal(inv.config.ipc.disabled, true, 'a bare boolean before a command');
  t.equal(inv.command, 'init');
  t.same(inv.args, ['genesis.json']);
  rejects(t, ['--mine', 'maybe'], /invalid config value for mining\.mine: "maybe" \(expected true or false; set by --mine\)/);
  rejects(t, ['--mine=maybe'], /mining\.mine: "maybe"/);
});

t.test('value flag forms', async (t) => {
  t.equal(load('--rpcport', '9000').rpc.port, 9000);
  t.equal(load('--rpcport=9000').rpc.port, 9000);
  t.equal(load('--rpcport', '0x1f90').rpc.port, 8080, 'hex numbers');
  t.equal(load('--gasprice', '0x3b9aca00').mining.gasPrice, 1_000_000_000n);
  t.equal(load('--gasprice', '20000000000').mining.gasPrice, 20_000_000_000n);
  t.equal(load('--mining.period', '0.5').mining.period, 0.5);
  t.equal(load('--mining.extradata', 'hello').mining.extraData.length, 5, 'text extra data');
  t.equal(hex(load('--extradata', '0x0102').mining.extraData), '0x0102', 'hex extra data');
  t.equal(load('--datadir=/tmp/a=b').datadir, '/tmp/a=b', 'only the first = splits');
  t.equal(load('--networkid', '5').chain.networkId, 5n);
  t.equal(load('--minerthreads', '3').mining.threads, 3);
  t.equal(load('--verbosity', '5').verbosity, 5);
  t.equal(load('--chain.hardfork', 'Byzantium').chain.hardfork, 'byzantium', 'enum names are canonicalised');
  const moacbase = '0x' + 'Ab'.repeat(20);
  t.equal(hex(load('--moacbase', moacbase).mining.moacbase!), moacbase.toLowerCase());
  t.equal(hex(load('--moacbase', 'ab'.repeat(20)).mining.moacbase!), '0x' + 'ab'.repeat(20), 'without 0x');
  t.equal(hex(load('--vnode.address', moacbase).vnode.address!), moacbase.toLowerCase());
  rejects(t, ['--rpcport'], /option --rpcport needs a value/);
  rejects(t, ['--rpcport', '--mine'], /option --rpcport needs a value/);
});

t.test('comma lists', async (t) => {
  t.same(load('--rpcapi', 'mc,net , txpool').rpc.api, ['mc', 'net', 'txpool']);
  t.same(load('--rpcapi', 'eth,web3,mc,net').rpc.api, ['mc', 'libx', 'net'], 'geth names map to MOAC ones, once');
  t.same(load('--rpcapi', 'personal,admin').rpc.api, ['personal', 'admin']);
  t.same(load('--rpcvhosts', 'a.example,b.example').rpc.vhosts, ['a.example', 'b.example']);
  t.same(load('--rpcvhosts', '*').rpc.vhosts, ['*']);
  t.same(load('--rpccorsdomain', 'http://localhost:3000,https://x.org').rpc.corsDomain, ['http://localhost:3000', 'https://x.org']);
  t.same(load('--rpcvhosts', '').rpc.vhosts, [], 'an empty list');
  const a = '11'.repeat(20);
  const b = '22'.repeat(20);
  const c = load('--unlock', `0x${a},${b}`, '--allow-insecure-unlock').accounts.unlock;
  t.same(c.map(hex), [`0x${a}`, `0x${b}`]);
  const key = '0x' + '01'.repeat(32);
  t.same(load('--accounts.keys', key).accounts.keys.map(hex), [key]);
});

t.test('dotted flags match keys case-insensitively', async (t) => {
  t.equal(load('--txpool.globalslots', '100').txpool.globalSlots, 100);
  t.equal(load('--TXPOOL.GLOBALSLOTS', '100').txpool.globalSlots, 100);
  t.equal(load('--txpool.globalSlots', '100').txpool.globalSlots, 100);
  t.equal(load('--Mining.Mode', 'remote').mining.mode, 'remote');
  t.equal(load('--mining.mode', 'REMOTE').mining.mode, 'remote');
  t.equal(load('--filters.timeout=60').filters.timeout, 60);
  t.equal(load('--RPCPORT', '1234').rpc.port, 1234, 'aliases too');
  t.equal(load('--scs.rpcport', '1234').scs.rpcPort, 1234);
  t.equal(load('--metrics.addr', '0.0.0.0').metrics.addr, '0.0.0.0');
  t.equal(load('--vnode.showtopublic', 'false').vnode.showToPublic, false);
  t.same(load('--appchains', '[{"owner":"0x01"}]').appChains, [{ owner: '0x01' }]);
  t.equal(load('--genesis.gaslimit', '8000000').genesis.gasLimit, 8_000_000n);
});

t.test('commands and their arguments', async (t) => {
  const cmd = (...argv: string[]) => {
    const inv = run(...argv);
    return [inv.command, ...inv.args];
  };
  t.same(cmd(), ['run']);
  t.same(cmd('--mine'), ['run']);
  t.same(cmd('init', 'genesis.json'), ['init', 'genesis.json']);
  t.same(cmd('export', 'out.rlp'), ['export', 'out.rlp']);
  t.same(cmd('export', 'out.rlp', '1', '0x10'), ['export', 'out.rlp', '1', '0x10']);
  t.same(cmd('export', '--datadir', '/tmp/x', 'out.rlp', '5'), ['export', 'out.rlp', '5'], 'flags between arguments');
  t.same(cmd('import', 'chain.rlp'), ['import', 'chain.rlp']);
  t.same(cmd('fixture', 'test/fixtures/a.json'), ['fixture', 'test/fixtures/a.json']);
  t.same(cmd('account', 'new'), ['account', 'new']);
  t.same(cmd('account', 'list'), ['account', 'list']);
  t.same(cmd('account', 'import', 'key.txt'), ['account', 'import', 'key.txt']);
  t.same(cmd('account', 'import'), ['account', 'import']);
  t.same(cmd('version'), ['version']);
  t.same(cmd('--version'), ['version']);
  t.same(cmd('help'), ['help']);
  t.same(cmd('help', 'init'), ['help', 'init']);
  t.same(cmd('init', '--', '--odd-name.json'), ['init', '--odd-name.json'], '-- ends the flags');

  rejects(t, ['init'], /wrong arguments for init; usage: mcnode init <genesis\.json>/);
  rejects(t, ['init', 'a', 'b'], /wrong arguments for init/);
  rejects(t, ['export'], /usage: mcnode export <file> \[from\] \[to\]/);
  rejects(t, ['export', 'f', '1', '2', '3'], /wrong arguments for export/);
  rejects(t, ['export', 'f', 'ten'], /invalid block number for export from: "ten"/);
  rejects(t, ['export', 'f', '1', '-5'], /invalid block number for export to: "-5"/);
  rejects(t, ['import'], /wrong arguments for import/);
  rejects(t, ['fixture'], /wrong arguments for fixture/);
  rejects(t, ['account'], /wrong arguments for account/);
  rejects(t, ['account', 'delete'], /unknown account action "delete"/);
  rejects(t, ['account', 'new', 'x'], /wrong arguments for account/);
  rejects(t, ['version', 'x'], /wrong arguments for version/);
  rejects(t, ['help', 'bogus'], /unknown command "bogus"/);
  rejects(t, ['fixtur', 's.json'], /unknown command "fixtur" \(did you mean fixture\?\)/);
  rejects(t, ['run'], /unknown command "run"/);
});

t.test('--help and -h anywhere ask for help', async (t) => {
  for (const argv of [['--help'], ['-h'], ['init', 'g.json', '--help'], ['--rpcport', '1', '-h'], ['--bogus-flag', '--help'], ['--rpcport', 'x', '--help']]) {
    const inv = run(...argv);
    t.equal(inv.command, 'help', argv.join(' '));
  }
  t.same(run('init', 'g.json', '--help').args, ['init'], 'the command is the help topic');
  t.same(run('--help').args, []);
  t.equal(run('init', '--', '--help').command, 'init', 'after --, --help is an argument');
  t.equal(run('--help').config.rpc.port, 8545);
});

t.test('errors are ConfigErrors', async (t) => {
  t.throws(() => run('--nope'), ConfigError);
});

t.test('--no-<flag> sets a boolean false; explorer and console.log switches', async (t) => {
  t.equal(load().console.log, true);
  t.equal(load('--no-console-log').console.log, false);
  t.equal(load('--console-log=false').console.log, false);
  t.equal(load('--no-mine').mining.mine, false, 'any boolean flag');
  t.equal(load('--no-console-log', '--console-log').console.log, true, 'the last setting wins');
  t.equal(load().explorer.enabled, true);
  t.equal(load('--explorer=false').explorer.enabled, false);
  t.same(load('--explorer.signatures', 'deposit(address,uint256),ping()').explorer.signatures, ['deposit(address,uint256)', 'ping()']);
  rejects(t, ['--no-rpcport'], /unknown option --no-rpcport/);
  rejects(t, ['--explorer.signatures', 'not a signature'], /function signature/);
});
