// `mcnode fixture`: the committed scripts build to their expected heads, genesis files and
// export bytes; two builds are byte-identical whatever the worker count; script errors name
// the bad member; progress comes as plain lines when stdout is not a terminal.

import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CHAINS, mcnode, prebuilt } from '../fixtures/chains/prebuilt.js';
import { testDir } from '../helpers/testDir.js';

const HEAD = /^head #(\d+) (0x[0-9a-f]{64})$/m;
const KEY0 = '0xd318c56399426da38a80a354c89780d05ed2650017a63768e1b9cab0957de817';
const GENESIS = { config: { chainId: 100 }, timestamp: '0x5f5e1000', difficulty: '0x200', alloc: {} };

function build(dir: string, script: string, ...flags: string[]) {
  const datadir = path.join(dir, 'data');
  const run = mcnode('fixture', script, '--datadir', datadir, '--ipcdisable', '--verbosity', '1', ...flags);
  return { run, datadir, head: HEAD.exec(run.stdout) };
}

function exportBytes(datadir: string, file: string): Buffer {
  const run = mcnode('export', file, '--datadir', datadir, '--ipcdisable', '--verbosity', '1');
  if (run.status !== 0) throw new Error(run.stderr);
  return readFileSync(file);
}

function writeScript(dir: string, script: unknown): string {
  const file = path.join(dir, 'script.json');
  writeFileSync(file, JSON.stringify(script));
  return file;
}

t.test('every committed script builds to its expected head, genesis and export bytes', async (t) => {
  for (const name of CHAINS) {
    const chain = prebuilt(name);
    const dir = testDir(t);
    const { run, datadir, head } = build(dir, chain.script);
    t.equal(run.status, 0, `${name} builds`, { stderr: run.stderr });
    t.equal(Number(head?.[1]), chain.expect.number, `${name} head number`);
    t.equal(head?.[2], chain.expect.hash, `${name} head hash`);
    t.same(JSON.parse(readFileSync(path.join(datadir, 'genesis.json'), 'utf8')), JSON.parse(readFileSync(chain.genesis, 'utf8')), `${name} genesis file`);
    t.ok(exportBytes(datadir, path.join(dir, 'out.rlp')).equals(readFileSync(chain.rlp)), `${name} export is byte-identical to ${name}.rlp`);
  }
});

t.test('two builds are byte-identical with 1 and 2 worker threads', async (t) => {
  const chain = prebuilt('pow');
  // Above the sealer's inline limit (50,000), so the search really runs in the worker pool.
  t.ok(BigInt(JSON.parse(readFileSync(chain.script, 'utf8')).genesis.difficulty) > 50_000n);
  const dir = testDir(t);
  const builds = ['1', '2'].map((threads) => {
    const { run, datadir, head } = build(path.join(dir, threads), chain.script, '--minerthreads', threads);
    t.equal(run.status, 0, `${threads} thread(s)`, { stderr: run.stderr });
    return { head: head?.[2], bytes: exportBytes(datadir, path.join(dir, `${threads}.rlp`)) };
  });
  t.equal(builds[0].head, chain.expect.hash);
  t.equal(builds[1].head, builds[0].head, 'same head hash');
  t.ok(builds[1].bytes.equals(builds[0].bytes), 'same export bytes');
  t.ok(builds[0].bytes.length > 1000);
});

t.test('script errors name the bad member; a used datadir is refused', async (t) => {
  const dir = testDir(t);
  const badFrom = build(path.join(dir, 'a'), writeScript(dir, { genesis: GENESIS, keys: [KEY0], blocks: [{ txs: [{ from: 1, to: null }] }] }));
  t.equal(badFrom.run.status, 1);
  t.match(badFrom.run.stderr, /invalid fixture script .*blocks\[0\]\.txs\[0\]\.from: 1 \(expected a key index from 0 to 0\)/);

  const unknown = build(path.join(dir, 'b'), writeScript(dir, { genesis: GENESIS, keys: [], blocks: [{ timestamp: 1, tx: [] }] }));
  t.match(unknown.run.stderr, /blocks\[0\]\.tx: "tx" \(expected one of timestamp, txs\)/);

  const broke = { genesis: GENESIS, keys: [KEY0], blocks: [{ txs: [{ from: 0, to: null, value: '0xd3c21bcecceda10000000' }] }] };
  const poor = build(path.join(dir, 'c'), writeScript(dir, broke));
  t.equal(poor.run.status, 1);
  t.match(poor.run.stderr, /fixture blocks\[0\]\.txs\[0\] cannot be included: insufficient funds/);

  const late = build(path.join(dir, 'd'), writeScript(dir, { genesis: GENESIS, keys: [], blocks: [{ timestamp: 1 }] }));
  t.match(late.run.stderr, /blocks\[0\]: timestamp 1 is before the parent's 1600000000/);

  const ok = writeScript(dir, { genesis: GENESIS, keys: [KEY0], blocks: [{}] });
  const first = build(path.join(dir, 'e'), ok);
  t.equal(first.run.status, 0, first.run.stderr);
  t.equal(first.head?.[1], '1', 'a block without txs or timestamp is allowed');
  const again = build(path.join(dir, 'e'), ok);
  t.equal(again.run.status, 1);
  t.match(again.run.stderr, /already holds a chain \(head #1\); fixture needs a fresh --datadir/);
});

t.test('progress comes as plain lines when stdout is not a terminal', async (t) => {
  const dir = testDir(t);
  const script = writeScript(dir, { genesis: GENESIS, keys: [], blocks: Array.from({ length: 250 }, () => ({})) });
  const { run, head } = build(dir, script);
  t.equal(run.status, 0, run.stderr);
  t.equal(head?.[1], '250');
  const lines = run.stdout.split('\n').filter((l) => l.startsWith('built '));
  t.match(lines, [/^built 100\/250 blocks \(\d+(\.\d)? blocks\/s\)$/, /^built 200\/250 blocks \(/, /^built 250\/250 blocks \(/]);
  t.equal(lines.length, 3);
  t.notOk(run.stdout.includes('\r'), 'no carriage returns (no bar) off a terminal');
});
