// Command-line parsing: the command and its arguments, and flag settings (not yet decoded).
// Flags are `--name value`, `--name=value` or, for booleans, a bare `--name` optionally followed
// by `true`/`false`, or `--no-name` for false. A single leading dash works too, as in the real
// node (`-rpcport 8545`).

import { ConfigError } from '../errors.js';
import { allFlagNames, optionByFlag, type OptionEntry } from './schema.js';

interface CommandSpec {
  readonly usage: string;
  readonly doc: string;
  readonly min: number;
  readonly max: number;
}

/** Subcommands; `run` is what happens without one. */
export const COMMANDS = {
  run: { usage: '[options]', doc: 'run the node (the default when no command is given)', min: 0, max: 0 },
  init: { usage: 'init <genesis.json>', doc: 'write the genesis block of a real-node genesis file into a fresh data directory', min: 1, max: 1 },
  export: { usage: 'export <file> [from] [to]', doc: 'write blocks from..to (default 1..head) as an RLP stream', min: 1, max: 3 },
  import: { usage: 'import <file>', doc: 're-execute, verify and store the blocks of an RLP stream', min: 1, max: 1 },
  fixture: { usage: 'fixture <script.json>', doc: 'build a chain from a fixture script; print the head number and hash', min: 1, max: 1 },
  account: { usage: 'account new|list|import [keyfile]', doc: 'create, list or import keystore accounts', min: 1, max: 2 },
  version: { usage: 'version', doc: 'print the version', min: 0, max: 0 },
  help: { usage: 'help [command]', doc: 'print this help', min: 0, max: 1 },
} as const satisfies Record<string, CommandSpec>;
export type Command = keyof typeof COMMANDS;

const ACCOUNT_ACTIONS = ['new', 'list', 'import'];

/** One flag setting in command-line order; later settings of a key win. */
export interface FlagSetting {
  readonly entry: OptionEntry;
  /** the text after the flag, or `true` for a bare boolean flag */
  readonly value: string | true;
  /** for error messages, e.g. `by --rpcport` */
  readonly origin: string;
}

export interface ParsedArgs {
  command: Command;
  args: string[];
  flags: FlagSetting[];
  /** `--config <file|preset>` */
  config?: string;
}

const HELP_TOKENS = new Set(['-h', '--help', '-help']);

/** `--help`/`-h` anywhere before a `--` asks for help, whatever else the line says. */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const token of argv) {
    if (token === '--') return false;
    if (HELP_TOKENS.has(token)) return true;
  }
  return false;
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags: FlagSetting[] = [];
  let config: string | undefined;
  let version = false;
  let i = 0;
  while (i < argv.length) {
    const token = argv[i++];
    if (token === '--') {
      positionals.push(...argv.slice(i));
      break;
    }
    if (HELP_TOKENS.has(token)) continue; // answered by wantsHelp() before parsing
    const m = /^(--?)([a-zA-Z][^=]*)(?:=(.*))?$/s.exec(token);
    if (!m) {
      positionals.push(token);
      continue;
    }
    const [, dashes, name, inline] = m;
    const shown = dashes + name;
    const takeValue = (): string => {
      if (inline !== undefined) return inline;
      if (i >= argv.length || argv[i].startsWith('--')) throw new ConfigError(`option ${shown} needs a value`);
      return argv[i++];
    };
    const lower = name.toLowerCase();
    if (lower === 'version' && inline === undefined) {
      version = true;
    } else if (lower === 'config') {
      config = takeValue();
    } else if (inline === undefined && negatedBoolean(name) !== undefined) {
      flags.push({ entry: negatedBoolean(name)!, value: 'false', origin: `by ${shown}` });
    } else {
      const entry = optionByFlag(name);
      if (entry === undefined) throw unknownOption(dashes, name);
      let value: string | true;
      if (!entry.option.bool) value = takeValue();
      else if (inline !== undefined) value = inline;
      else if (i < argv.length && /^(true|false)$/i.test(argv[i])) value = argv[i++];
      else if (i < argv.length && positionals.length === 0 && !argv[i].startsWith('-') && !isCommand(argv[i])) {
        // `--mine maybe`: a bad boolean, not a command named "maybe"
        throw new ConfigError(`invalid config value for ${entry.key}: ${JSON.stringify(argv[i])} (expected true or false; set by ${shown})`);
      } else value = true;
      flags.push({ entry, value, origin: `by ${shown}` });
    }
  }
  if (version && positionals.length === 0) positionals.push('version');
  const { command, args } = decodeCommand(positionals);
  return { command, args, flags, config };
}

/** `no-<flag>` of a boolean flag that has no option of its own under that name. */
function negatedBoolean(name: string): OptionEntry | undefined {
  if (!/^no-/i.test(name) || optionByFlag(name) !== undefined) return undefined;
  const entry = optionByFlag(name.slice(3));
  return entry?.option.bool ? entry : undefined;
}

function unknownOption(dashes: string, name: string): ConfigError {
  const guess = closest(name, [...allFlagNames(), 'config', 'help', 'version']);
  const hint = guess === undefined ? '; see --help' : ` (did you mean --${guess}?)`;
  return new ConfigError(`unknown option ${dashes}${name}${hint}`);
}

function isCommand(name: string): name is Command {
  return Object.prototype.hasOwnProperty.call(COMMANDS, name) && name !== 'run';
}

function decodeCommand(positionals: string[]): { command: Command; args: string[] } {
  if (positionals.length === 0) return { command: 'run', args: [] };
  const [name, ...args] = positionals;
  if (!isCommand(name)) {
    const names = Object.keys(COMMANDS).filter((c) => c !== 'run');
    const guess = closest(name, names);
    const hint = guess === undefined ? '' : ` (did you mean ${guess}?)`;
    throw new ConfigError(`unknown command "${name}"${hint}; commands: ${names.join(', ')}`);
  }
  const spec: CommandSpec = COMMANDS[name];
  const usage = (): ConfigError => new ConfigError(`wrong arguments for ${name}; usage: mcnode ${spec.usage}`);
  if (args.length < spec.min || args.length > spec.max) throw usage();
  if (name === 'export') {
    args.slice(1).forEach((arg, i) => {
      if (!/^([0-9]+|0x[0-9a-f]+)$/i.test(arg)) {
        throw new ConfigError(`invalid block number for export ${i === 0 ? 'from' : 'to'}: "${arg}" (expected a decimal or 0x hex integer)`);
      }
    });
  }
  if (name === 'account') {
    if (!ACCOUNT_ACTIONS.includes(args[0])) {
      throw new ConfigError(`unknown account action "${args[0]}" (expected one of ${ACCOUNT_ACTIONS.join(', ')})`);
    }
    if (args.length === 2 && args[0] !== 'import') throw usage();
  }
  if (name === 'help' && args.length === 1 && !isCommand(args[0])) {
    throw new ConfigError(`unknown command "${args[0]}"; commands: ${Object.keys(COMMANDS).filter((c) => c !== 'run').join(', ')}`);
  }
  return { command: name, args };
}

/** The candidate closest to `name` (case-insensitive edit distance with transpositions), if close enough. */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  const target = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(target.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(target, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2][j - 2] + 1);
      rows[i][j] = d;
    }
  }
  return rows[a.length][b.length];
}
