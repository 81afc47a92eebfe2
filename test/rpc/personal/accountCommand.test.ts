// `mcnode account new|list|import` and `--unlock` / `--password` at start-up.

import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, startNode } from '../../helpers/node.js';
import { decryptKey } from '../../../src/accounts/keystore.js';
import { privateKeyToAddress } from '../../../src/accounts/keys.js';
import { bytesToHex } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

// --ipcdisable: the loader checks the socket path length even for subcommands, and test dirs are deep.
function cli(args: string[], input?: string) {
  return spawnSync(process.execPath, [CLI, ...args, ...(args[0] === 'account' ? ['--ipcdisable'] : [])], { encoding: 'utf8', input, timeout: 60_000 });
}
const addressOf = (stdout: string) => '0x' + /Address: \{([0-9a-f]{40})\}/.exec(stdout)![1];

t.test('account new / list / import', async (t) => {
  const datadir = testDir(t, { 'pw.txt': 'first\nsecond\n', 'key.txt': '0x' + '11'.repeat(32) + '\n', 'bad.txt': 'nope' });
  const pw = path.join(datadir, 'pw.txt');

  // Standard scrypt parameters unless --lightkdf; the password from one line of stdin.
  const created = cli(['account', 'new', '--datadir', datadir], 'from stdin\nignored\n');
  t.equal(created.status, 0, created.stderr);
  const a = addressOf(created.stdout);
  const fileA = fs.readdirSync(path.join(datadir, 'keystore')).find((f) => f.endsWith(a.slice(2)))!;
  const jsonA = JSON.parse(fs.readFileSync(path.join(datadir, 'keystore', fileA), 'utf8'));
  t.same(jsonA.crypto.kdfparams.n, 262144);
  t.same([jsonA.crypto.kdfparams.r, jsonA.crypto.kdfparams.p], [8, 1]);
  t.equal(bytesToHex(privateKeyToAddress(await decryptKey(jsonA, 'from stdin'))), a, 'the stdin line is the password');

  const second = cli(['account', 'new', '--datadir', datadir, '--password', pw, '--lightkdf']);
  t.equal(second.status, 0, second.stderr);
  const b = addressOf(second.stdout);

  const imported = cli(['account', 'import', path.join(datadir, 'key.txt'), '--datadir', datadir, '--password', pw, '--lightkdf']);
  t.equal(imported.status, 0, imported.stderr);
  const c = addressOf(imported.stdout);
  t.equal(c, bytesToHex(privateKeyToAddress(new Uint8Array(32).fill(0x11))));
  const fileC = fs.readdirSync(path.join(datadir, 'keystore')).find((f) => f.endsWith(c.slice(2)))!;
  const jsonC = JSON.parse(fs.readFileSync(path.join(datadir, 'keystore', fileC), 'utf8'));
  t.equal(bytesToHex(await decryptKey(jsonC, 'first')), '0x' + '11'.repeat(32), 'the first line of --password');

  const again = cli(['account', 'import', path.join(datadir, 'key.txt'), '--datadir', datadir, '--password', pw]);
  t.equal(again.status, 1);
  t.match(again.stderr, /account already exists/);
  const bad = cli(['account', 'import', path.join(datadir, 'bad.txt'), '--datadir', datadir, '--password', pw]);
  t.equal(bad.status, 1);
  t.match(bad.stderr, /does not hold a hex private key/);

  const list = cli(['account', 'list', '--datadir', datadir]);
  t.equal(list.status, 0);
  const lines = list.stdout.trim().split('\n');
  t.equal(lines.length, 3);
  t.match(lines[0], /^Account #0: \{[0-9a-f]{40}\} keystore:\/\/\/.*\/keystore\/UTC--/);
  t.same(lines.map((l) => '0x' + /\{([0-9a-f]{40})\}/.exec(l)![1]), [a, b, c], 'oldest first');
  t.equal(cli(['account', 'list', '--datadir', path.join(datadir, 'empty')]).stdout, '', 'no keystore: nothing listed');
});

t.test('unlock at start', async (t) => {
  const datadir = testDir(t, { 'pw.txt': 'one\ntwo\n', 'wrong.txt': 'nope\n' });
  const pw = path.join(datadir, 'pw.txt');
  const made = cli(['account', 'new', '--datadir', datadir, '--password', pw, '--lightkdf']);
  t.equal(made.status, 0, made.stderr);
  const a = addressOf(made.stdout);

  const refused = cli(['--datadir', datadir, '--rpcport', '0', '--ipcdisable', '--unlock', a, '--password', pw]);
  t.equal(refused.status, 1);
  t.match(refused.stderr, /allow-insecure-unlock/, 'not while HTTP is served');
  const wrong = cli(['--datadir', datadir, '--rpc=false', '--ipcdisable', '--unlock', a, '--password', path.join(datadir, 'wrong.txt')]);
  t.equal(wrong.status, 1);
  t.match(wrong.stderr, /could not decrypt key with given password/);
  const noPassword = cli(['--datadir', datadir, '--rpc=false', '--ipcdisable', '--unlock', a]);
  t.equal(noPassword.status, 1);
  t.match(noPassword.stderr, /--password/);

  const node = await startNode(datadir, ['--rpc=false', '--unlock', a, '--password', pw, '--mining.mode', 'off']);
  t.equal(node.url, '', 'no HTTP endpoint');
  const accounts = (await node.ipcCall('mc_accounts')).result;
  t.equal(accounts[accounts.length - 1], a, 'keystore account after the dev accounts');
  t.match((await node.ipcCall('mc_sign', [a, '0x01'])).result, /^0x[0-9a-f]{130}$/, 'unlocked at start');
  t.equal(await node.stop(), 0);

  const insecure = await startNode(datadir, ['--allow-insecure-unlock', '--unlock', a, '--password', pw, '--mining.mode', 'off']);
  t.teardown(() => insecure.stop());
  t.match(await insecure.rpc('mc_sign', [a, '0x01']), /^0x[0-9a-f]{130}$/, 'with --allow-insecure-unlock, over HTTP too');
});
