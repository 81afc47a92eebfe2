import t from 'tap';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
// @ts-expect-error plain JavaScript module without types (it runs before anything is compiled)
import { NODE_SOURCE_DIRS, isStale } from '../../../tools/build.mjs';
import { testDir } from '../../helpers/testDir.js';

t.test('a build is stale until stamped, and again once a source or tsconfig.json is newer', async (t) => {
  const root = testDir(t, { 'tsconfig.json': '{}', src: { 'a.ts': '', deep: { 'b.ts': '', 'notes.md': '' } }, workers: {} });
  const at = (file: string, seconds: number) => utimesSync(path.join(root, file), seconds, seconds);
  for (const f of ['tsconfig.json', 'src/a.ts', 'src/deep/b.ts', 'src/deep/notes.md']) at(f, 1000);
  t.equal(isStale(root), true, 'no stamp: stale');
  mkdirSync(path.join(root, 'dist'));
  writeFileSync(path.join(root, 'dist/.build-stamp'), '');
  at('dist/.build-stamp', 2000);
  t.equal(isStale(root), false, 'stamp newer than every source');
  at('src/deep/notes.md', 3000);
  t.equal(isStale(root), false, 'a file that is not TypeScript does not count');
  at('src/deep/b.ts', 3000);
  t.equal(isStale(root), true, 'a nested source edited after the build');
  at('src/deep/b.ts', 1000);
  at('tsconfig.json', 3000);
  t.equal(isStale(root), true, 'tsconfig.json edited after the build');
});

t.test('npm start asks only about the node\'s own sources', async (t) => {
  const root = testDir(t, { 'tsconfig.json': '{}', src: { 'a.ts': '' }, workers: { 'w.ts': '' }, bench: { 'b.ts': '' }, dist: { '.build-stamp': '' } });
  const at = (file: string, seconds: number) => utimesSync(path.join(root, file), seconds, seconds);
  for (const f of ['tsconfig.json', 'src/a.ts', 'workers/w.ts', 'bench/b.ts']) at(f, 1000);
  at('dist/.build-stamp', 2000);
  at('bench/b.ts', 3000);
  t.equal(isStale(root, NODE_SOURCE_DIRS), false, 'a bench edit does not rebuild the node');
  t.equal(isStale(root), true, 'but the full check (npm test, npm run bench) sees it');
  at('workers/w.ts', 3000);
  t.equal(isStale(root, NODE_SOURCE_DIRS), true, 'a worker edit does');
});
