// What an operator meets first: `--help` lists every flag of the config schema with its default,
// the subcommands are there, and the start-up banner shows dev accounts only when there are some.

import t from 'tap';
import { spawnSync } from 'node:child_process';
import { CLI, startNode } from '../helpers/node.js';
import { OPTIONS } from '../../src/config/schema.js';
import { COMMANDS } from '../../src/config/args.js';
import { testDir } from '../helpers/testDir.js';

t.test('mcnode --help lists every flag with its default, and every command', async (t) => {
  const help = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8', timeout: 20_000 });
  t.equal(help.status, 0);
  const lines = help.stdout.split('\n');
  for (const entry of OPTIONS) {
    const at = lines.findIndex((l) => l.startsWith('  --') && l.split(/[ ,]+/).includes(`--${entry.key}`));
    t.ok(at >= 0, `--${entry.key}`);
    let block = lines[at];
    for (let i = at + 1; i < lines.length && lines[i].startsWith('      '); i++) block += ' ' + lines[i].trim();
    t.match(block, /\(default: [^)]*\)/, `--${entry.key} shows its default`);
  }
  for (const flag of ['--metrics', '--metrics.addr', '--metrics.port', '--verbosity', '--minerthreads']) t.ok(help.stdout.includes(flag), flag);
  for (const spec of Object.values(COMMANDS)) t.ok(help.stdout.includes(`mcnode ${spec.usage}`), spec.usage);
});

t.test('the banner lists dev accounts only when there are some', async (t) => {
  const dir = testDir(t);
  const none = await startNode(`${dir}/none`, ['--mining.mode', 'off', '--accounts.devCount', '0']);
  await none.stop();
  t.notMatch(none.stdout(), /Dev accounts|WARNING/);
  t.notMatch(none.stdout(), /^metrics /m, 'no metrics line without --metrics');
  t.match(none.stdout(), /^genesis 0x[0-9a-f]{64}$/m);
  t.match(none.stdout(), /^chain id 100, network id 100/m);
  const dev = await startNode(`${dir}/dev`, ['--mining.mode', 'off']);
  await dev.stop();
  t.match(dev.stdout(), /Dev accounts \(10\), unlocked, funded in genesis\.\nWARNING: these keys are public test keys/);
});
