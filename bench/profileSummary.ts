// Summarises V8 .cpuprofile files (node --cpu-prof): self time and inclusive time aggregated by
// function + script, and self time by script; with --marks (the file BENCH_MARKS wrote), one
// summary per benchmark window. Run:
//   node dist/bench/profileSummary.js <file.cpuprofile> [--marks marks.json] [--top 25]

import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const ROOT_URL = new URL('../..', import.meta.url).href;
// V8 pseudo-frames that are not JavaScript functions.
const IDLE = '(idle)';

function shortUrl(url: string): string {
  if (url === '') return '';
  let short = url.startsWith(ROOT_URL) ? url.slice(ROOT_URL.length) : url.replace(/^file:\/\//, '');
  short = short.replace(/^.*node_modules\//, 'nm/');
  return short;
}

function keyOf(node: ProfileNode): string {
  const f = node.callFrame;
  const name = f.functionName || (f.url ? '(anonymous)' : '(native)');
  return f.url ? `${name}  ${shortUrl(f.url)}:${f.lineNumber + 1}` : name;
}

/** Summary of the samples taken in [fromUs, toUs) (V8 monotonic microseconds). */
export function summarise(profile: CpuProfile, top: number, fromUs = -Infinity, toUs = Infinity): string {
  const byId = new Map<number, ProfileNode>(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  // A sample's duration is the gap to the next sample (as Chrome DevTools counts it).
  const durations = new Float64Array(profile.samples.length);
  let t = profile.startTime;
  const stamps = profile.timeDeltas.map((d) => (t += d));
  for (let i = 0; i < stamps.length; i++) durations[i] = (i + 1 < stamps.length ? stamps[i + 1] : profile.endTime) - stamps[i];

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const byScript = new Map<string, number>();
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    if (stamps[i] < fromUs || stamps[i] >= toUs) return;
    const d = durations[i];
    const node = byId.get(id)!;
    const key = keyOf(node);
    total += d;
    if (key === IDLE) {
      idle += d;
      return;
    }
    self.set(key, (self.get(key) ?? 0) + d);
    const script = node.callFrame.url ? shortUrl(node.callFrame.url).replace(/:\d+$/, '') : key;
    byScript.set(script, (byScript.get(script) ?? 0) + d);
    // Inclusive: each distinct function on the stack once (recursion counted once).
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = keyOf(byId.get(cur)!);
      if (k === '(root)' || seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + d);
    }
  });

  const busy = total - idle;
  const pct = (v: number) => `${((v / busy) * 100).toFixed(1).padStart(5)}%`;
  const ms = (v: number) => `${(v / 1000).toFixed(0).padStart(7)} ms`;
  const list = (title: string, m: Map<string, number>, n: number) => {
    const lines = [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${pct(v)} ${ms(v)}  ${k}`);
    return [`${title} (% of non-idle time)`, ...lines].join('\n');
  };
  return [
    `${(total / 1e6).toFixed(2)} s sampled, non-idle ${(busy / 1e6).toFixed(2)} s (${((busy / total) * 100).toFixed(0)}%)`,
    list('self time by function', self, top),
    list('self time by script', byScript, 15),
    list('inclusive time by function', inclusive, top),
  ].join('\n\n');
}

function main(argv: string[]): void {
  const file = argv[0];
  const option = (name: string) => {
    const i = argv.indexOf(name);
    return i < 0 ? undefined : argv[i + 1];
  };
  const top = Number(option('--top') ?? 25);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const marksFile = option('--marks');
  if (marksFile === undefined) {
    console.log(summarise(profile, top));
    return;
  }
  const marks = JSON.parse(readFileSync(marksFile, 'utf8')) as { name: string; fromUs: number; toUs: number }[];
  for (const m of marks) {
    console.log(`===== ${m.name} (${((m.toUs - m.fromUs) / 1e6).toFixed(2)} s window)`);
    console.log(summarise(profile, top, m.fromUs, m.toUs) + '\n');
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2]) main(process.argv.slice(2));
