// `mcnode export` / `mcnode import`: a prebuilt chain imports to its expected head; a tampered
// or truncated file is refused at the right block with every block before it kept; gzip files;
// ranges; plain progress lines off a terminal.

import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeBlockParts } from '../../src/chain/block.js';
import { readItems } from '../../src/chainFile/rlpStream.js';
import { mcnode, openPrebuilt, prebuilt } from '../fixtures/chains/prebuilt.js';
import { testDir } from '../helpers/testDir.js';

const flags = (datadir: string) => ['--datadir', datadir, '--ipcdisable', '--verbosity', '1'];
const IMPORTED = /imported (\d+) blocks(?: \((\d+) already known\))?, head #(\d+) (0x[0-9a-f]{64})/;

/** The file's blocks as separate byte arrays, in order. */
async function splitBlocks(bytes: Uint8Array): Promise<Uint8Array[]> {
  const blocks: Uint8Array[] = [];
  for await (const item of readItems([bytes])) blocks.push(item);
  return blocks;
}

/** `bytes` with one byte of `field` (found in block `n`, counted from 1) flipped. */
async function tamper(bytes: Uint8Array, n: number, field: (header: ReturnType<typeof decodeBlockParts>['header']) => Uint8Array): Promise<Buffer> {
  const blocks = await splitBlocks(bytes);
  const start = blocks.slice(0, n - 1).reduce((sum, b) => sum + b.length, 0);
  const block = Buffer.from(blocks[n - 1]);
  const at = block.indexOf(Buffer.from(field(decodeBlockParts(block).header)));
  if (at < 0) throw new Error('field not found');
  const out = Buffer.from(bytes);
  out[start + at] ^= 0x01;
  return out;
}

function exportOf(datadir: string, file: string, ...range: string[]): Buffer {
  const run = mcnode('export', file, ...range, ...flags(datadir));
  if (run.status !== 0) throw new Error(run.stderr);
  return readFileSync(file);
}

const chain = prebuilt('transfers');
const original = readFileSync(chain.rlp);

t.test('a prebuilt chain imports to its expected head; a second import finds every block known', async (t) => {
  const dir = testDir(t);
  const datadir = path.join(dir, 'data');
  t.equal(openPrebuilt('transfers', datadir), chain.expect.hash);
  const again = mcnode('import', chain.rlp, ...flags(datadir));
  t.equal(again.status, 0, again.stderr);
  t.match(again.stdout, IMPORTED);
  const [, imported, known, head, hash] = IMPORTED.exec(again.stdout)!;
  t.same([imported, known, head, hash], ['0', '5', '5', chain.expect.hash]);
  t.ok(exportOf(datadir, path.join(dir, 'again.rlp')).equals(original), 'export gives the same bytes back');
});

/** Imports `bytes` into a fresh datadir with the chain's genesis; returns the run and the datadir. */
function importInto(dir: string, bytes: Uint8Array, name = 'in.rlp') {
  const datadir = path.join(dir, 'data');
  const init = mcnode('init', chain.genesis, ...flags(datadir));
  if (init.status !== 0) throw new Error(init.stderr);
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  return { run: mcnode('import', file, ...flags(datadir)), datadir };
}

t.test('a flipped state root is refused at its block; the blocks before it are kept', async (t) => {
  const dir = testDir(t);
  const { run, datadir } = importInto(dir, await tamper(original, 4, (h) => h.stateRoot));
  t.equal(run.status, 1);
  t.match(run.stderr, /^mcnode: block 4: state root mismatch \(header 0x[0-9a-f]{64}, re-executed 0x[0-9a-f]{64}\); kept 3 imported blocks, head #3 /);
  const blocks = await splitBlocks(original);
  const kept = exportOf(datadir, path.join(dir, 'kept.rlp'));
  t.ok(kept.equals(Buffer.concat(blocks.slice(0, 3))), 'the datadir holds exactly blocks 1-3 of the file');
});

t.test('other tampering is refused at the right block, for the right reason', async (t) => {
  const cases: [string, number, (h: ReturnType<typeof decodeBlockParts>['header']) => Uint8Array, RegExp][] = [
    ['mix hash', 2, (h) => h.mixHash, /block 2: invalid proof of work/],
    ['receipts root', 4, (h) => h.receiptsRoot, /block 4: receipts root mismatch/],
    ['parent hash', 3, (h) => h.parentHash, /block 3: parent hash 0x[0-9a-f]+ is not the local block #2/],
  ];
  const dir = testDir(t);
  for (const [what, n, field, reason] of cases) {
    const { run } = importInto(path.join(dir, what.replace(' ', '-')), await tamper(original, n, field));
    t.equal(run.status, 1, what);
    t.match(run.stderr, reason, what);
    t.match(run.stderr, new RegExp(`head #${n - 1} `), `${what}: blocks before ${n} kept`);
  }
});

t.test('a truncated file stops at the cut block, keeping the blocks before it', async (t) => {
  const blocks = await splitBlocks(original);
  const cut = blocks.slice(0, 3).reduce((sum, b) => sum + b.length, 0) + Math.floor(blocks[3].length / 2);
  const { run } = importInto(testDir(t), original.subarray(0, cut));
  t.equal(run.status, 1);
  t.match(run.stderr, /block 4: truncated file: the file ends inside the block \(\d+ of \d+ bytes\); kept 3 imported blocks, head #3/);
});

t.test('a datadir with another genesis is refused at block 1 with a hint', async (t) => {
  const datadir = path.join(testDir(t), 'devnet');
  const run = mcnode('import', chain.rlp, ...flags(datadir));
  t.equal(run.status, 1);
  t.match(run.stderr, /block 1: parent hash .* is not the local block #0 .*initialised with the genesis/);
  t.match(run.stderr, /kept 0 imported blocks, head #0/);
});

t.test('gzip files, ranges and a missing file', async (t) => {
  const dir = testDir(t);
  const source = path.join(dir, 'source');
  openPrebuilt('transfers', source);
  const gz = path.join(dir, 'chain.rlp.gz');
  const compressed = exportOf(source, gz);
  t.equal(compressed[0], 0x1f, 'gzip magic');
  const { run } = importInto(path.join(dir, 'fromgz'), compressed, 'chain.rlp.gz');
  t.equal(run.status, 0, run.stderr);
  t.equal(IMPORTED.exec(run.stdout)?.[4], chain.expect.hash, 'same head through gzip');

  const blocks = await splitBlocks(original);
  t.ok(exportOf(source, path.join(dir, 'range.rlp'), '2', '4').equals(Buffer.concat(blocks.slice(1, 4))), 'export 2 4 writes blocks 2..4');
  const beyond = mcnode('export', path.join(dir, 'x.rlp'), '2', '9', ...flags(source));
  t.equal(beyond.status, 1);
  t.match(beyond.stderr, /block 9 is beyond the head #5/);

  const gap = importInto(path.join(dir, 'gap'), Buffer.concat(blocks.slice(1, 4)));
  t.match(gap.run.stderr, /block 2: number 2 does not follow the parent #0/);
  const missing = mcnode('import', path.join(dir, 'nope.rlp'), ...flags(source));
  t.equal(missing.status, 1);
  t.match(missing.stderr, /cannot read .*nope\.rlp/);
});

t.test('export and import show plain progress lines off a terminal', async (t) => {
  const dir = testDir(t);
  const script = path.join(dir, 'long.json');
  const genesis = { config: { chainId: 100 }, timestamp: '0x5f5e1000', difficulty: '0x200', alloc: {} };
  writeFileSync(script, JSON.stringify({ genesis, keys: [], blocks: Array.from({ length: 230 }, () => ({})) }));
  const source = path.join(dir, 'source');
  t.equal(mcnode('fixture', script, ...flags(source)).status, 0);
  const file = path.join(dir, 'long.rlp');
  const exported = mcnode('export', file, ...flags(source));
  t.match(exported.stdout, /^exported 100\/230 blocks \(\d+(\.\d)? blocks\/s\)\nexported 200\/230 blocks \(.*\)\nexported 230\/230 blocks \(.*\)\n/m);
  const target = path.join(dir, 'target');
  t.equal(mcnode('init', path.join(source, 'genesis.json'), ...flags(target)).status, 0);
  const imported = mcnode('import', file, ...flags(target));
  t.equal(imported.status, 0, imported.stderr);
  const lines = imported.stdout.split('\n').filter((l) => l.startsWith('imported '));
  t.match(lines, [/^imported 100\/230 blocks \(\d+(\.\d)? blocks\/s\)$/, /^imported 200\/230 blocks/, /^imported 230\/230 blocks/, /^imported 230 blocks, head #230 /]);
  t.notOk(imported.stdout.includes('\r'));
});
