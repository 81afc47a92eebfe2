import t from 'tap';
import { helpText } from '../../../src/config/help.js';
import { COMMANDS } from '../../../src/config/args.js';
import { OPTIONS, optionByEnv, optionByFlag } from '../../../src/config/schema.js';

const text = helpText();
const lines = text.split('\n');

/** The help block of one option: its flag line and the doc lines under it. */
function block(flag: string): string {
  const start = lines.findIndex((l) => l.startsWith('  --') && l.split(/[ ,]+/).includes(flag));
  if (start < 0) return '';
  let end = start + 1;
  while (end < lines.length && lines[end].startsWith('      ')) end++;
  return lines.slice(start, end).join('\n');
}

t.test('help lists every option of the schema with its aliases, doc and default', async (t) => {
  t.ok(OPTIONS.length > 50, 'the schema is not empty');
  for (const entry of OPTIONS) {
    const b = block(`--${entry.key}`);
    t.not(b, '', `--${entry.key} is listed`);
    for (const alias of entry.option.aliases) t.ok(b.includes(`--${alias}`), `--${alias} is listed with ${entry.key}`);
    t.ok(b.replace(/\s+/g, ' ').includes(entry.option.doc.replace(/\s+/g, ' ')), `${entry.key} has its doc`);
    t.match(b, /\(default:\s[^)]*\)/, `${entry.key} shows its default`);
  }
  t.match(block('--rpc.port'), /--rpcport, --rpc\.port <port>[\s\S]*\(default: 8545\)/);
  t.match(block('--mining.mode'), /\(default: mixed\)/);
  t.match(block('--rpc.api'), /\(default:\s+libx,mc,net,vnode,txpool,miner,rpc,evm,anvil,hardhat,ots,erigon,trace,debug\)/);
  t.match(block('--accounts.allowInsecureUnlock'), /--allow-insecure-unlock, --accounts\.allowInsecureUnlock\n/, 'booleans take no value placeholder');
});

t.test('help lists the commands and the general flags', async (t) => {
  for (const spec of Object.values(COMMANDS)) t.ok(text.includes(`mcnode ${spec.usage}`), spec.usage);
  for (const flag of ['--config', '--help', '-h', '--version']) t.ok(text.includes(flag), flag);
  t.match(text, /MCNODE_<KEY>/);
});

t.test('no help line is wider than 100 columns, except long flag names', async (t) => {
  for (const line of lines.filter((l) => !l.startsWith('  --') && !l.startsWith('  mcnode'))) {
    t.ok(line.length <= 100, line.slice(0, 60));
  }
});

t.test('every option has a flag and environment name that lead back to it', async (t) => {
  for (const entry of OPTIONS) {
    for (const flag of entry.flags) t.equal(optionByFlag(flag), entry, flag);
    for (const env of entry.envNames) t.equal(optionByEnv(env), entry, env);
    t.ok(entry.envNames.includes('MCNODE_' + entry.key.toUpperCase().replace(/\./g, '_')), entry.key);
  }
  t.equal(optionByEnv('MCNODE_RPCVHOSTS')?.key, 'rpc.vhosts');
  t.equal(optionByEnv('MCNODE_ALLOW_INSECURE_UNLOCK')?.key, 'accounts.allowInsecureUnlock');
});
