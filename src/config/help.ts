// `mcnode --help`: generated from the command table and the option schema, so every flag is
// listed with its default and doc line.

import { COMMANDS } from './args.js';
import { OPTIONS, type Json, type OptionEntry } from './schema.js';

const SECTION_TITLES: Record<string, string> = {
  '': 'General',
  chain: 'Chain',
  genesis: 'Genesis block (real-node genesis format; numbers decimal or 0x hex)',
  accounts: 'Accounts',
  mining: 'Mining',
  rpc: 'HTTP JSON-RPC',
  ws: 'WebSocket JSON-RPC',
  ipc: 'IPC',
  scs: 'SCS (application chain) endpoint',
  txpool: 'Transaction pool',
  filters: 'Filters',
  vnode: 'VNODE (answers of vnode_*)',
  metrics: 'Metrics',
  fork: 'Fork mode (docs/fork-mode.md)',
  appChains: 'Application chains',
};

function showDefault(value: Json): string {
  if (value === '') return '""';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(',');
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const WIDTH = 100;
const INDENT = '      ';

/** Break text into lines of at most WIDTH columns after the indent. */
function wrap(text: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && INDENT.length + line.length + 1 + word.length > WIDTH) {
      lines.push(INDENT + line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(INDENT + line);
  return lines;
}

/** Real-node names first (what users of the real node type), then the dotted key. */
function describe(entry: OptionEntry): string[] {
  const { key, option } = entry;
  const aliases = option.aliases.filter((a) => a.toLowerCase() !== key.toLowerCase());
  const names = [...aliases, key].map((n) => `--${n}`);
  const arg = option.arg.length > 40 ? '<name>' : option.arg;
  return [`  ${names.join(', ')}${arg ? ' ' + arg : ''}`, ...wrap(`${option.doc} (default: ${showDefault(option.default)})`)];
}

export function helpText(): string {
  const lines: string[] = [
    'mcnode: a persistent full-node emulator of a MOAC-style chain (VNODE + SCS).',
    '',
    'Usage:',
  ];
  const width = Math.max(...Object.values(COMMANDS).map((c) => c.usage.length)) + 9;
  for (const spec of Object.values(COMMANDS)) lines.push(`  ${('mcnode ' + spec.usage).padEnd(width)}  ${spec.doc}`);
  lines.push(
    '',
    'Settings are taken, from lowest to highest priority, from the built-in devnet defaults, a',
    'config file, MCNODE_* environment variables and the command line. Every config key is also',
    'a flag (--section.key, matched case-insensitively); real-node flag names are aliases.',
    '',
    '  --config <file|preset>',
    '      JSON config file, merged over the devnet defaults (may be partial; arrays replace),',
    '      or a preset: devnet, testnet (env MCNODE_CONFIG)',
    '  --help, -h',
    '      print this help',
    '  --version',
    '      print the version',
  );
  let group: string | undefined;
  for (const entry of OPTIONS) {
    // A top-level key with a title of its own (appChains) gets its own heading.
    const name = entry.section === '' && Object.hasOwn(SECTION_TITLES, entry.key) ? entry.key : entry.section;
    if (name !== group) {
      group = name;
      lines.push('', `${SECTION_TITLES[name] ?? name}:`);
    }
    lines.push(...describe(entry));
  }
  lines.push(
    '',
    'Values: booleans as --mine, --mine true, --mine=false; lists comma-separated',
    '(--rpcapi mc,net); numbers decimal or 0x hex; JSON values (genesis.alloc, appChains) as JSON text.',
    '',
    'Environment: MCNODE_<KEY>, the dotted key upper-cased with dots as underscores',
    '(MCNODE_MINING_MODE=remote, MCNODE_RPC_VHOSTS=localhost,example.org), or a real-node flag name',
    '(MCNODE_RPCPORT=8545, MCNODE_ALLOW_INSECURE_UNLOCK=true). Unknown MCNODE_* variables are errors.',
    '',
  );
  return lines.join('\n');
}
