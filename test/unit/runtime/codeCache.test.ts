// The bundle loader's hand-kept code cache (src/runtime/codeCache.ts): used when it matches, ignored when it is for
// other bytes, damaged or refused by V8, and written anew after such a run; where it lives. Each run is its own
// Node process (V8 keeps compiled scripts per process, which would hide what the cache does), on
// the compiled loader in dist/ (`npm test` builds first).

import t from 'tap';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../helpers/node.js';
import { testDir } from '../../helpers/testDir.js';

const LOADER = pathToFileURL(path.join(ROOT, 'dist/src/runtime/codeCache.js')).href;
const MAGIC_LENGTH = 'mcnode code cache 1\n'.length;

/** A CommonJS "bundle" whose top level records that it ran. */
const bundle = (body: string) =>
  `'use strict';\n` +
  `module.exports.ran = (globalThis.ranCount = (globalThis.ranCount ?? 0) + 1);\n` +
  `module.exports.file = __filename;\n${body}\n`;

/** Runs the loader on `file` in a fresh process; `save` writes the cache afterwards. */
function run(file: string, save = false, nodeFlags: string[] = []): { state: string; ran: number; saved?: boolean } {
  const script = `import { runBundle } from ${JSON.stringify(LOADER)};
    const r = runBundle(${JSON.stringify(file)}, ${JSON.stringify(`${file}.cache`)});
    const out = { state: r.state, ran: globalThis.ranCount };
    if (${save}) out.saved = r.save();
    process.stdout.write(JSON.stringify(out));`;
  return JSON.parse(execFileSync(process.execPath, [...nodeFlags, '--input-type=module', '-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
}

const SOURCE = bundle('function work(n) { let s = 0; for (let i = 0; i < n; i++) s += i; return s; }\nmodule.exports.sum = work(1000);');

t.test('no cache, then a cache that is used', async (t) => {
  const dir = testDir(t, { 'b.cjs': SOURCE });
  const file = path.join(dir, 'b.cjs');
  t.same(run(file, true), { state: 'missing', ran: 1, saved: true }, 'runs without one and writes one');
  t.ok(existsSync(`${file}.cache`));
  t.same(readdirSync(dir).sort(), ['b.cjs', 'b.cjs.cache'], 'no temporary file left');
  t.same(run(file), { state: 'used', ran: 1 }, 'the next run uses it');
});

t.test('a cache of other bytes is ignored and rewritten', async (t) => {
  const dir = testDir(t, { 'b.cjs': SOURCE });
  const file = path.join(dir, 'b.cjs');
  run(file, true);
  writeFileSync(file, SOURCE.replace('1000', '2000')); // same length: V8's own check would pass it
  t.same(run(file, true), { state: 'stale', ran: 1, saved: true });
  t.same(run(file), { state: 'used', ran: 1 }, 'the rewritten cache is used');
});

t.test('a damaged cache is ignored and rewritten', async (t) => {
  const dir = testDir(t, { 'b.cjs': SOURCE });
  const file = path.join(dir, 'b.cjs');
  const cacheFile = `${file}.cache`;
  run(file, true);
  const good = readFileSync(cacheFile);
  const flipped = Buffer.from(good);
  flipped[flipped.length - 10] ^= 0x40;
  for (const [what, bytes] of [
    ['a flipped payload bit', flipped],
    ['a truncated file', good.subarray(0, good.length - 100)],
    ['only the header', good.subarray(0, MAGIC_LENGTH + 64)],
    ['an empty file', Buffer.alloc(0)],
    ['another format', Buffer.from('not a cache at all, but long enough to hold a header of eighty-four bytes or more')],
  ] as const) {
    writeFileSync(cacheFile, bytes);
    t.same(run(file, true), { state: 'corrupt', ran: 1, saved: true }, what);
    t.same(run(file), { state: 'used', ran: 1 }, `${what}: rewritten`);
  }
});

t.test('a cache V8 refuses is ignored and rewritten', async (t) => {
  const dir = testDir(t, { 'b.cjs': SOURCE });
  const file = path.join(dir, 'b.cjs');
  run(file, true, ['--no-opt']); // made under other V8 flags
  t.same(run(file, true), { state: 'rejected', ran: 1, saved: true });
  t.same(run(file), { state: 'used', ran: 1 });
});

t.test('a cache that cannot be written is not kept', async (t) => {
  const dir = testDir(t, { 'b.cjs': SOURCE, 'b.cjs.cache': {} });
  // The cache's path is a directory: reading finds no cache and the rename fails (file
  // permissions would not stop root).
  t.same(run(path.join(dir, 'b.cjs'), true), { state: 'missing', ran: 1, saved: false });
  t.same(readdirSync(dir).sort(), ['b.cjs', 'b.cjs.cache'], 'no temporary file left');
});

t.test('what the bundle throws at its top level reaches the caller', async (t) => {
  const dir = testDir(t, { 'b.cjs': bundle("throw new Error('top level failed');") });
  t.throws(() => run(path.join(dir, 'b.cjs')), /top level failed/);
});

t.test('the hand-kept cache lives in a directory of this user\'s in the temporary directory, never beside the bundle', async (t) => {
  const { codeCacheFile } = await import('../../../src/runtime/codeCache.js');
  const tmp = testDir(t);
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp; // os.tmpdir() follows it
  t.teardown(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  });
  const bundleFile = path.join(ROOT, 'dist/bundle/mcnode.cjs');
  const file = codeCacheFile(bundleFile)!;
  const dir = path.dirname(file);
  t.equal(path.dirname(dir), tmp);
  t.match(path.basename(file), /^[0-9a-f]{16}\.cache$/);
  t.equal(statSync(dir).mode & 0o777, 0o700, 'made for this user alone');
  t.not(codeCacheFile(path.join(ROOT, 'dist/bundle-copy/mcnode.cjs')), file, 'one file per bundle path');
  chmodSync(dir, 0o777);
  t.equal(codeCacheFile(bundleFile), undefined, 'a directory others may write to is not used');
  chmodSync(dir, 0o700);
  if (process.getuid?.() === 0) {
    chownSync(dir, 65534, 65534);
    t.equal(codeCacheFile(bundleFile), undefined, 'nor one another user owns');
  }
});

t.test('a run launched with V8 flags of its own leaves the cache to plain runs', async (t) => {
  const { writesCache } = await import(LOADER);
  t.equal(writesCache([], undefined), true);
  t.equal(writesCache([], ' '), true);
  t.equal(writesCache(['--expose-gc'], undefined), false, 'flags on the command line');
  t.equal(writesCache([], '--max-old-space-size=512'), false, 'NODE_OPTIONS');
  t.equal(writesCache(['--enable-source-maps'], '"--import=file:///x.mjs" --require ./y.cjs'), true, 'options of Node\'s own only');
  // End to end, where this loader keeps the cache (Node without its own compile cache).
  const builtin = await import('node:module').then((m) => typeof (m.default as { enableCompileCache?: unknown }).enableCompileCache === 'function');
  if (builtin) return t.comment('Node keeps the cache itself here');
  const dir = testDir(t, { 'b.cjs': SOURCE });
  const file = path.join(dir, 'b.cjs');
  // A script file, not `-e`: the options of `node -e` are themselves launch flags.
  const script = path.join(dir, 'start.mjs');
  writeFileSync(script, `
    import { startBundle, codeCacheFile, codeCacheState } from ${JSON.stringify(LOADER)};
    startBundle(${JSON.stringify(file)});
    globalThis[Symbol.for('mcnode.started')]();
    process.stdout.write(JSON.stringify({ state: codeCacheState(), file: codeCacheFile(${JSON.stringify(file)}) }));`);
  const { codeCacheFile } = await import(LOADER);
  rmSync(codeCacheFile(file), { force: true }); // this fixture's path may have a cache from an earlier run
  const start = (flags: string[]) => execFileSync(process.execPath, [...flags, script], { encoding: 'utf8' });
  const first = JSON.parse(start([]));
  t.equal(first.state, 'missing');
  const plain = readFileSync(first.file);
  t.equal(JSON.parse(start(['--no-opt'])).state, 'rejected', 'another V8 flag: refused');
  t.same(readFileSync(first.file), plain, 'and not overwritten');
  t.equal(JSON.parse(start([])).state, 'used', 'the plain run still finds its own');
});
