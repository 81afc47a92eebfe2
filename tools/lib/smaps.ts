// Where a process's resident memory lives, from /proc/<pid>/smaps (Linux): anonymous memory
// split into glibc malloc's main heap (brk), its per-thread arenas and the rest (V8's heap pages,
// large buffers, stacks), and file-backed memory split into LevelDB's memory-mapped tables and
// the rest (the node binary's pages, shared libraries). The soak and the chain-length check print
// it beside the V8 figures, so a rise can be placed.

import { readFileSync } from 'node:fs';

export interface MemoryMap {
  /** resident bytes of each part; together they are the process's RSS */
  rss: number;
  anon: number;
  /** glibc's main malloc heap ([heap], grown with brk) */
  brk: number;
  /** glibc's per-thread malloc arenas (64 MiB-aligned anonymous regions) */
  arenas: number;
  file: number;
  /** LevelDB table files (*.ldb) mapped read-only */
  tables: number;
  /** the process's threads */
  threads: number;
}

/** glibc reserves each thread arena as an aligned 64 MiB region (HEAP_MAX_SIZE on 64-bit). */
const ARENA_BYTES = 64 * 2 ** 20;

interface Mapping {
  start: number;
  end: number;
  perms: string;
  name: string;
  rss: number;
  anon: number;
}

function mappings(text: string): Mapping[] {
  const out: Mapping[] = [];
  let cur: Mapping | undefined;
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      cur = { start: parseInt(head[1], 16), end: parseInt(head[2], 16), perms: head[3], name: head[4].trim(), rss: 0, anon: 0 };
      out.push(cur);
      continue;
    }
    if (!cur) continue;
    if (line.startsWith('Rss:')) cur.rss = Number(line.split(/\s+/)[1]) * 1024;
    else if (line.startsWith('Anonymous:')) cur.anon = Number(line.split(/\s+/)[1]) * 1024;
  }
  return out;
}

/** The parts of a smaps text (exported for the test); threads is left 0. */
export function classifySmaps(text: string): MemoryMap {
  const maps = mappings(text);
  const m: MemoryMap = { rss: 0, anon: 0, brk: 0, arenas: 0, file: 0, tables: 0, threads: 0 };
  maps.forEach((map, i) => {
    m.rss += map.rss;
    m.anon += map.anon;
    m.file += map.rss - map.anon;
    if (map.name === '[heap]') m.brk += map.rss;
    else if (map.name.endsWith('.ldb') || map.name.endsWith('.sst')) m.tables += map.rss;
    else if (map.name === '' && map.start % ARENA_BYTES === 0) {
      // An arena's used part, followed by the inaccessible rest of its 64 MiB reservation.
      const next = maps[i + 1];
      const reserved = next && next.name === '' && next.perms.startsWith('---') && next.start === map.end ? next.end : map.end;
      if (reserved - map.start === ARENA_BYTES) m.arenas += map.rss;
    }
  });
  return m;
}

/** The memory map of a live process, or undefined once it is gone. */
export function memoryMap(pid: number): MemoryMap | undefined {
  try {
    const m = classifySmaps(readFileSync(`/proc/${pid}/smaps`, 'utf8'));
    const threads = /^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    m.threads = threads ? Number(threads[1]) : 0;
    return m;
  } catch {
    return undefined;
  }
}

/** One line: "anon 150.2 (brk 31.0, arenas 25.1) file 48.0 (tables 2.1) MiB, 12 threads". */
export function describeMemoryMap(m: MemoryMap): string {
  const mib = (b: number) => (b / 2 ** 20).toFixed(1);
  return `anon ${mib(m.anon)} (malloc brk ${mib(m.brk)}, arenas ${mib(m.arenas)}) file ${mib(m.file)} (tables ${mib(m.tables)}) MiB, ${m.threads} threads`;
}
