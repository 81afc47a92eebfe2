// Tests stop their nodes in teardowns; the node's datadir must still be there when they do.

import t from 'tap';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { testDir } from '../helpers/testDir.js';

const TEST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

let kept: string | undefined;
let seenInTeardown: boolean | undefined;
t.test('a teardown sees the directory; it is gone after the test', async (t) => {
  kept = testDir(t, { 'LOCK': '' });
  t.teardown(() => {
    seenInTeardown = existsSync(path.join(kept!, 'LOCK'));
  });
});

t.test('after', async (t) => {
  t.equal(seenInTeardown, true, 'the teardown ran before the removal');
  t.equal(existsSync(kept!), false, 'removed at the end');
});

t.test('tests ask helpers/testDir.ts for directories, not t.testdir', async (t) => {
  const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []);
  const direct = files(TEST)
    .filter((f) => !f.endsWith(path.join('helpers', 'testDir.ts')) && !f.endsWith('testDir.test.ts'))
    .filter((f) => /\.testdir\(/.test(readFileSync(f, 'utf8')))
    .map((f) => path.relative(TEST, f));
  t.same(direct, []);
});
