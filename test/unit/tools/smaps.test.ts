// The soak's and the chain-length check's breakdown of resident memory (tools/lib/smaps.ts): each
// mapping of /proc/<pid>/smaps lands in one part, malloc's arenas found by their 64 MiB
// reservations, LevelDB's tables by name.

import t from 'tap';
import { processRss } from '../../../tools/lib/nodeProcess.js';
import { classifySmaps, memoryMap } from '../../../tools/lib/smaps.js';

const MiB = 2 ** 20;
const hex = (n: number) => n.toString(16).padStart(12, '0');

/** One smaps entry: `kB` resident, `anonKb` of it anonymous. */
function entry(start: number, end: number, perms: string, name: string, kB: number, anonKb: number): string {
  return `${hex(start)}-${hex(end)} ${perms} 00000000 00:00 0 ${name}\nSize: ${(end - start) / 1024} kB\nRss: ${kB} kB\nPss: ${kB} kB\nAnonymous: ${anonKb} kB\nVmFlags: rd wr mr mw me ac\n`;
}

t.test('each mapping lands in one part', async (t) => {
  const arena = 0x7f00_0000_0000; // 64 MiB-aligned
  const text = [
    entry(0x400000, 0x600000, 'r-xp', '/usr/bin/node', 2048, 0),
    entry(0x1000000, 0x1800000, 'rw-p', '[heap]', 6144, 6144),
    // an arena: 3 MiB in use, the rest of its 64 MiB reserved and inaccessible
    entry(arena, arena + 3 * MiB, 'rw-p', '', 3072, 3072),
    entry(arena + 3 * MiB, arena + 64 * MiB, '---p', '', 0, 0),
    // an anonymous mapping of V8's, aligned but not a 64 MiB reservation
    entry(arena + 128 * MiB, arena + 129 * MiB, 'rw-p', '', 1024, 1024),
    entry(0x7f10_0000_0000, 0x7f10_0020_0000, 'r--s', '/data/chaindata/000123.ldb', 512, 0),
    entry(0x7f10_0040_0000, 0x7f10_0060_0000, 'r--s', '/data/chaindata/000099.ldb (deleted)', 256, 0),
  ].join('');
  const m = classifySmaps(text);
  t.equal(m.rss, (2048 + 6144 + 3072 + 1024 + 512 + 256) * 1024);
  t.equal(m.anon, (6144 + 3072 + 1024) * 1024);
  t.equal(m.file, (2048 + 512 + 256) * 1024);
  t.equal(m.brk, 6144 * 1024);
  t.equal(m.arenas, 3072 * 1024, 'only the 64 MiB reservation counts as an arena');
  t.equal(m.tables, 512 * 1024, 'a deleted table is no longer one of the database');
});

t.test('a live process, and one that is gone', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const m = memoryMap(process.pid)!;
  const vmRss = processRss(process.pid)!;
  t.ok(m.anon > 0 && m.file > 0 && m.threads >= 1);
  t.ok(Math.abs(m.rss - vmRss) < 8 * MiB, `the parts add up to the process's RSS (${(m.rss / MiB).toFixed(1)} vs ${(vmRss / MiB).toFixed(1)} MiB)`);
  t.equal(memoryMap(2 ** 22 + 17), undefined);
});
