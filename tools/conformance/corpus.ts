// The Ethereum state tests as data: where the corpus is, what a file holds, and the cases it
// expands to (one per hardfork and post entry). The format is ethereum/tests' GeneralStateTests
// (../shared/conformance/README.md): a pre-state, a block environment, a transaction template
// whose data, gas and value lists are picked by each post entry's `indexes`, and the expected
// post-state root and logs hash per hardfork.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hardfork } from '../../src/config/schema.js';
import { hexToBytes } from '../../src/encoding/hex.js';

/** The corpus's hardfork names and the `--chain.hardfork` names they are (ConstantinopleFix is Petersburg). */
export const CORPUS_FORKS = {
  Frontier: 'chainstart',
  Homestead: 'homestead',
  EIP150: 'tangerineWhistle',
  EIP158: 'spuriousDragon',
  Byzantium: 'byzantium',
  Constantinople: 'constantinople',
  ConstantinopleFix: 'petersburg',
} as const satisfies Record<string, Hardfork>;
export type CorpusFork = keyof typeof CORPUS_FORKS;
export const CORPUS_FORK_NAMES = Object.keys(CORPUS_FORKS) as CorpusFork[];

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The GeneralStateTests folder: $MCNODE_CONFORMANCE_DIR (the folder itself or the one holding it),
 * else `shared/conformance` beside the checkout or any folder above it (a worktree sits deeper
 * than the main checkout). Undefined when there is none: callers skip, they do not fail.
 * From dist/ the file sits two levels deeper; walking up finds the same folder.
 */
export function corpusDir(env: NodeJS.ProcessEnv = process.env, from = REPO_ROOT): string | undefined {
  const named = env.MCNODE_CONFORMANCE_DIR;
  if (named) {
    for (const dir of [path.join(named, 'GeneralStateTests'), named]) if (isCorpus(dir)) return path.resolve(dir);
    return undefined;
  }
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared', 'conformance', 'GeneralStateTests');
    if (isCorpus(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function isCorpus(dir: string): boolean {
  return existsSync(dir) && path.basename(dir) === 'GeneralStateTests';
}

export interface CorpusFile {
  /** the st* folder */
  dir: string;
  /** `dir/name.json` */
  id: string;
  path: string;
}

/** Every test file, sorted by folder and name (folders without tests, like stEWASMTests, give none). */
export function listCorpus(root: string): CorpusFile[] {
  const out: CorpusFile[] = [];
  for (const dir of readdirSync(root).sort()) {
    const full = path.join(root, dir);
    let names: string[];
    try {
      names = readdirSync(full);
    } catch {
      continue;
    }
    for (const name of names.sort()) if (name.endsWith('.json')) out.push({ dir, id: `${dir}/${name}`, path: path.join(full, name) });
  }
  return out;
}

export interface PreAccount {
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  /** slot → value (the file writes both as quantities) */
  storage: [bigint, bigint][];
}

export interface StateTestEnv {
  coinbase: Uint8Array;
  difficulty: bigint;
  gasLimit: bigint;
  number: bigint;
  timestamp: bigint;
}

export interface TxTemplate {
  secretKey: Uint8Array;
  nonce: bigint;
  gasPrice: bigint;
  /** undefined: a creation */
  to: Uint8Array | undefined;
  data: Uint8Array[];
  gasLimit: bigint[];
  value: bigint[];
}

export interface StateTest {
  file: CorpusFile;
  name: string;
  pre: Map<string, PreAccount>;
  env: StateTestEnv;
  tx: TxTemplate;
  cases: StateCase[];
}

export interface StateCase {
  fork: CorpusFork;
  hardfork: Hardfork;
  /** position in the fork's post list */
  index: number;
  data: number;
  gas: number;
  value: number;
  hash: Uint8Array;
  logs: Uint8Array;
}

/** `dir/file.json test Fork d,g,v`: how reports and the known-failure list name a case. */
export function caseId(test: Pick<StateTest, 'file' | 'name'>, c: Pick<StateCase, 'fork' | 'data' | 'gas' | 'value'>): string {
  return `${test.file.id} ${test.name} ${c.fork} ${c.data},${c.gas},${c.value}`;
}

const quantity = (hex: string): bigint => (hex === '' || hex === '0x' ? 0n : BigInt(hex));
const data = (hex: string): Uint8Array => hexToBytes(hex === '' ? '0x' : hex);

interface RawTest {
  env: Record<string, string>;
  pre: Record<string, { balance: string; nonce: string; code: string; storage: Record<string, string> }>;
  transaction: { data: string[]; gasLimit: string[]; gasPrice: string; nonce: string; secretKey: string; to: string; value: string[] };
  post: Record<string, { hash: string; logs: string; indexes: { data: number; gas: number; value: number } }[]>;
}

/** The tests of one file, with the cases of the hardforks mcnode offers (every one the corpus has). */
export function readStateTests(file: CorpusFile): StateTest[] {
  const raw = JSON.parse(readFileSync(file.path, 'utf8')) as Record<string, RawTest>;
  return Object.entries(raw).map(([name, t]) => {
    const pre = new Map<string, PreAccount>();
    for (const [address, a] of Object.entries(t.pre)) {
      pre.set(address.toLowerCase(), {
        balance: quantity(a.balance),
        nonce: quantity(a.nonce),
        code: data(a.code),
        storage: Object.entries(a.storage).map(([k, v]) => [quantity(k), quantity(v)]),
      });
    }
    const x = t.transaction;
    const cases: StateCase[] = [];
    for (const fork of CORPUS_FORK_NAMES) {
      (t.post[fork] ?? []).forEach((p, index) => {
        cases.push({
          fork, hardfork: CORPUS_FORKS[fork], index, data: p.indexes.data, gas: p.indexes.gas, value: p.indexes.value,
          hash: data(p.hash), logs: data(p.logs),
        });
      });
    }
    const unknown = Object.keys(t.post).filter((f) => !(f in CORPUS_FORKS));
    if (unknown.length > 0) throw new Error(`${file.id} ${name}: hardforks this runner does not map: ${unknown.join(', ')}`);
    return {
      file, name, pre, cases,
      env: {
        coinbase: data(t.env.currentCoinbase),
        difficulty: quantity(t.env.currentDifficulty),
        gasLimit: quantity(t.env.currentGasLimit),
        number: quantity(t.env.currentNumber),
        timestamp: quantity(t.env.currentTimestamp),
      },
      tx: {
        secretKey: data(x.secretKey),
        nonce: quantity(x.nonce),
        gasPrice: quantity(x.gasPrice),
        to: x.to === '' ? undefined : data(x.to),
        data: x.data.map(data),
        gasLimit: x.gasLimit.map(quantity),
        value: x.value.map(quantity),
      },
    };
  });
}
