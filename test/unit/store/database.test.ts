// LevelDB maps the table files it keeps open into memory, and the pages it reads stay resident
// while a table is open. The node keeps OPEN_TABLES open and its tables small, so resident memory
// does not grow with the datadir (README "Resident memory"): reading a database of more tables
// than that leaves at most OPEN_TABLES of them mapped, none larger than the write buffer.

import t from 'tap';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Database, OPEN_TABLES, TABLE_FILE_BYTES, WRITE_BUFFER_BYTES } from '../../../src/store/database.js';
import { testDir } from '../../helpers/testDir.js';

/** Distinct table files of `dir` mapped into this process. */
function mappedTables(dir: string): number {
  const files = readFileSync('/proc/self/maps', 'utf8')
    .split('\n')
    .map((line) => line.split(/\s+/).slice(5).join(' '))
    .filter((file) => file.startsWith(dir) && file.endsWith('.ldb'));
  return new Set(files).size;
}

/** Keys in scattered order, so that compaction rewrites the tables (in order it only moves them) */
const key = (i: number) => {
  const k = new Uint8Array(4);
  new DataView(k.buffer).setUint32(0, Math.imul(i, 0x9e3779b1) >>> 0);
  return k;
};

t.test('reading more tables than OPEN_TABLES keeps at most OPEN_TABLES mapped', { skip: process.platform !== 'linux' && 'reads /proc/self/maps' }, async (t) => {
  const dir = testDir(t);
  // Compaction cuts tables at TABLE_FILE_BYTES: 100 MiB of incompressible values make ~100 of them.
  const VALUE_BYTES = 16 * 1024;
  const COUNT = 6400;
  let db = await Database.open(dir);
  for (let i = 0; i < COUNT; i += 64) {
    await db.batch(Array.from({ length: 64 }, (_, j) => ({ type: 'put' as const, key: key(i + j), value: randomBytes(VALUE_BYTES) })));
  }
  // Reopened: the last writes move from the log into tables, and no table starts open.
  await db.close();
  db = await Database.open(dir);
  const files = readdirSync(dir).filter((f) => f.endsWith('.ldb'));
  const tables = files.length;
  t.ok(tables > OPEN_TABLES, `the database has more tables (${tables}) than are kept open (${OPEN_TABLES})`);
  // Level-0 tables are a memtable's worth, compaction's are cut at TABLE_FILE_BYTES (plus the block being written).
  // (a background compaction may delete a table meanwhile)
  const sizes = files.flatMap((f) => {
    try {
      return [statSync(path.join(dir, f)).size];
    } catch {
      return [];
    }
  });
  const largest = Math.max(...sizes);
  t.ok(largest <= Math.max(TABLE_FILE_BYTES, WRITE_BUFFER_BYTES) * 1.25, `largest table ${(largest / 2 ** 20).toFixed(2)} MiB`);
  let found = 0;
  for (let i = 0; i < COUNT; i += 64) {
    const values = await db.getMany(Array.from({ length: 64 }, (_, j) => key(i + j)));
    found += values.filter((v) => v?.length === VALUE_BYTES).length;
  }
  t.equal(found, COUNT, 'every value reads back');
  const mapped = mappedTables(dir);
  await db.close();
  t.ok(mapped > 0 && mapped <= OPEN_TABLES, `${mapped} tables mapped after reading all ${tables}`);
});
