// The append-only record file under the pool journal: records round-trip, a torn or damaged
// tail is cut off on open (and later appends land after the last whole record), a rewrite
// replaces the file whole, and a closed log refuses writes.

import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { AppendLog } from '../../../src/store/appendLog.js';
import { testDir } from '../../helpers/testDir.js';

const bytes = (...values: number[]) => Uint8Array.from(values);
const asArrays = (records: Uint8Array[]) => records.map((r) => [...r]);

t.test('records come back in order, across opens', async (t) => {
  const file = path.join(testDir(t), 'log');
  const first = AppendLog.open(file);
  t.same(first.records, []);
  first.log.append([bytes(1, 2, 3), bytes()]);
  first.log.append([bytes(4)]);
  first.log.append([]);
  t.equal(first.log.size, statSync(file).size);
  first.log.close();
  const again = AppendLog.open(file);
  t.same(asArrays(again.records), [[1, 2, 3], [], [4]]);
  t.equal(again.droppedBytes, 0);
  again.log.close();
});

t.test('a record cut short by a crash is dropped, and the next append follows the last whole one', async (t) => {
  const file = path.join(testDir(t), 'log');
  const opened = AppendLog.open(file);
  opened.log.append([bytes(7, 7), bytes(8, 8, 8)]);
  opened.log.close();
  const whole = statSync(file).size;
  const full = readFileSync(file);
  writeFileSync(file, full.subarray(0, whole - 1)); // the last record lost its final byte
  const torn = AppendLog.open(file);
  t.same(asArrays(torn.records), [[7, 7]]);
  t.equal(torn.droppedBytes, 8 + 3 - 1);
  torn.log.append([bytes(9)]);
  torn.log.close();
  t.same(asArrays(AppendLog.open(file).records), [[7, 7], [9]], 'the torn bytes are gone from the file');
});

t.test('a damaged record (bad checksum) ends the log; so does a garbage length', async (t) => {
  const file = path.join(testDir(t), 'log');
  const opened = AppendLog.open(file);
  opened.log.append([bytes(1), bytes(2), bytes(3)]);
  opened.log.close();
  const content = readFileSync(file);
  content[8 + 1 + 8] ^= 0xff; // the second record's payload
  writeFileSync(file, content);
  t.same(asArrays(AppendLog.read(file).records), [[1]]);
  writeFileSync(file, Buffer.concat([content.subarray(0, 9), Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0])]));
  t.same(asArrays(AppendLog.read(file).records), [[1]]);
  t.same(AppendLog.read(path.join(testDir(t), 'missing')), { records: [], end: 0, length: 0 }, 'no file: no records');
});

t.test('rewrite replaces the content whole; a leftover temporary file is removed on open', async (t) => {
  const dir = testDir(t);
  const file = path.join(dir, 'log');
  const opened = AppendLog.open(file);
  opened.log.append([bytes(1), bytes(2)]);
  opened.log.rewrite([bytes(3)]);
  t.equal(opened.log.size, 9);
  opened.log.append([bytes(4)]);
  opened.log.close();
  t.same(asArrays(AppendLog.read(file).records), [[3], [4]]);
  appendFileSync(`${file}.tmp`, 'half a rewrite');
  const again = AppendLog.open(file);
  t.notOk(existsSync(`${file}.tmp`));
  t.same(asArrays(again.records), [[3], [4]]);
  again.log.close();
  t.throws(() => again.log.append([bytes(5)]), /closed/);
  t.throws(() => again.log.rewrite([]), /closed/);
  again.log.close(); // twice is harmless
});
