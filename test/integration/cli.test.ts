// The command line as a user meets it: init from a genesis file, version, bad flags.

import t from 'tap';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Wallet } from 'ethers';
import { CLI, startNode } from '../helpers/node.js';
import { testDir } from '../helpers/testDir.js';

const run = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 20_000 });

t.test('init writes the genesis of a real-node genesis file', async (t) => {
  const dir = testDir(t);
  const genesisFile = path.join(dir, 'genesis.json');
  writeFileSync(genesisFile, JSON.stringify({
    config: { chainId: 100 },
    nonce: '0x42',
    timestamp: '0x0',
    extraData: '0x',
    gasLimit: '9000000',
    difficulty: '0x200',
    alloc: { d814f2ac2c4ca49b33066582e4e97ebae02f2ab9: { balance: '1000000000000000000000' } },
  }));
  const datadir = path.join(dir, 'data');
  const first = run('init', genesisFile, '--datadir', datadir);
  t.equal(first.status, 0, first.stderr);
  const hash = /wrote genesis block (0x[0-9a-f]{64})/.exec(first.stdout)?.[1];
  t.ok(hash);
  const again = run('init', genesisFile, '--datadir', datadir);
  t.equal(again.status, 1);
  t.match(again.stderr, /already holds a chain/);

  const node = await startNode(datadir, ['--mining.mode', 'off']);
  t.teardown(() => node.stop());
  t.equal((await node.rpc('mc_getBlockByNumber', ['0x0', false])).hash, hash);
  t.equal(await node.rpc('mc_getBalance', ['0xd814f2ac2c4ca49b33066582e4e97ebae02f2ab9', 'latest']), '0x3635c9adc5dea00000');
  t.equal(await node.rpc('mc_getBalance', ['0xc4c4fb5146a694d58521b4a135564765b6cec4fa', 'latest']), '0x0', 'dev accounts are not funded by an init genesis');
});

t.test('version and bad flags', async (t) => {
  const version = run('version');
  t.equal(version.status, 0);
  t.match(version.stdout, /^mcnode \d+\.\d+\.\d+/);
  const bad = run('--rcpport', '1');
  t.equal(bad.status, 1);
  t.match(bad.stderr, /unknown option --rcpport/);
  const mode = run('--mining.mode', 'fast', '--datadir', testDir(t));
  t.equal(mode.status, 1);
  t.match(mode.stderr, /mining\.mode/);
});

t.test('a datadir keeps the proof of work and classic-transaction rule its genesis fixed', async (t) => {
  const dir = testDir(t);
  const key = '0xd318c56399426da38a80a354c89780d05ed2650017a63768e1b9cab0957de817';
  const wallet = new Wallet(key);
  const genesisFile = path.join(dir, 'genesis.json');
  // Ethash, and no config.classicTxBlock: classic transactions never (the devnet's default is block 0).
  writeFileSync(genesisFile, JSON.stringify({
    config: { chainId: 100, ethash: {} },
    nonce: '0x42', timestamp: '0x0', extraData: '0x', gasLimit: '9000000', difficulty: '0x200',
    alloc: { [wallet.address.slice(2).toLowerCase()]: { balance: '1000000000000000000000' } },
  }));
  const datadir = path.join(dir, 'data');
  const init = run('init', genesisFile, '--datadir', datadir);
  t.equal(init.status, 0, init.stderr);
  t.match(init.stdout, /seals with Ethash; the datadir keeps that rule/);

  // Started with neither the genesis nor --chain.pow: the stored rules apply.
  const node = await startNode(datadir, ['--mining.mode', 'off', '--rpcapi', 'mc,net,admin']);
  t.teardown(() => node.stop());
  const info = await node.rpc('admin_nodeInfo', []);
  t.equal(info.protocols.mc.consensus, 'ethash', 'sealed with Ethash without flags');
  const classic = await wallet.signTransaction({ type: 0, chainId: 100, nonce: 0, gasPrice: 20_000_000_000n, gasLimit: 21_000, to: wallet.address, value: 1 });
  const refused = await node.call('mc_sendRawTransaction', [classic]);
  t.match(refused.error?.message, /classic transactions are not enabled on this chain/, 'the datadir says never, the devnet default says block 0');
  await node.stop();

  // A devnet datadir asked for Ethash later keeps keccak-pow and says so.
  const devnet = path.join(dir, 'devnet');
  const first = await startNode(devnet, ['--mining.mode', 'off']);
  await first.stop();
  const second = await startNode(devnet, ['--mining.mode', 'off', '--rpcapi', 'mc,net,admin', '--chain.pow', 'ethash']);
  t.teardown(() => second.stop());
  t.equal((await second.rpc('admin_nodeInfo', [])).protocols.mc.consensus, 'keccak-pow');
});
