// A real mcnode process for the reliability tools and tests: the `mcnode` command (the bundle), with
// npm start's memory setting (MALLOC_ARENA_MAX), on a datadir the caller owns (so it can be killed and restarted
// on the same data), with its endpoints read from the banner, its stderr kept, and its resident
// memory read from /proc.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAUNCH_ENV } from '../../src/runtime/heapTuning.js';

/** The repository root, found upward from this file (works from tools/ and from dist/tools/). */
export const ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));
export const CLI = path.join(ROOT, 'bin/mcnode.js');

function findRoot(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    const pkg = path.join(d, 'package.json');
    if (existsSync(pkg) && /"name":\s*"mcnode"/.test(readFileSync(pkg, 'utf8'))) return d;
    if (path.dirname(d) === d) throw new Error(`no mcnode package.json above ${dir}`);
  }
}

export interface Endpoints {
  /** VNODE HTTP, e.g. http://127.0.0.1:40123 */
  http?: string;
  ipc?: string;
  /** SCS HTTP (`rpc` variant at `/`, rpcdebug at `/rpc`) */
  scs?: string;
  metrics?: string;
}

export interface NodeProcess extends Endpoints {
  readonly proc: ChildProcess;
  readonly pid: number;
  readonly datadir: string;
  stdout(): string;
  stderr(): string;
  /** resident set size of the node process in bytes (Linux /proc), or undefined once it exited */
  rss(): number | undefined;
  /** user and system CPU seconds of the node process so far (Linux /proc), or undefined once it exited */
  cpuTimes(): CpuTimes | undefined;
  alive(): boolean;
  /** resolves with the exit code or signal once the process is gone */
  readonly exited: Promise<number | string | null>;
  /** sends `signal` (SIGTERM by default) and waits for the exit; SIGKILL after `graceMs` */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | string | null>;
}

export interface StartOptions {
  /** extra CLI flags; HTTP, SCS and metrics ports default to 0 (any free port) unless given */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** flags for the node binary itself (e.g. --heapsnapshot-signal=SIGUSR2) */
  nodeFlags?: string[];
  /** IPC socket path; default a short /tmp path (sun_path is ~100 bytes) */
  ipcPath?: string;
  timeoutMs?: number;
}

let ipcCounter = 0;

/** Resident memory of any process, from /proc/<pid>/status (VmRSS, kB). */
export function processRss(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface CpuTimes {
  user: number;
  system: number;
}

const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds a process has used so far, from /proc/<pid>/stat. */
export function processCpuTimes(pid: number): CpuTimes | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / clockTicks, system: Number(fields[12]) / clockTicks };
  } catch {
    return undefined;
  }
}

/** Starts a node and resolves once the banner lists its endpoints. */
export async function startNodeProcess(datadir: string, o: StartOptions = {}): Promise<NodeProcess> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const args = o.args ?? [];
  const has = (re: RegExp) => args.some((a) => re.test(a));
  const ipcPath = o.ipcPath ?? path.join(os.tmpdir(), `mcrel-${process.pid}-${ipcCounter++}.ipc`);
  const cli = [
    '--datadir', datadir,
    ...(has(/^--(rpcport|rpc\.port)/) ? [] : ['--rpcport', '0']),
    ...(has(/^--(scsrpcport|scs\.rpcPort)/i) ? [] : ['--scsrpcport', '0']),
    ...(has(/^--ipc/) ? [] : ['--ipcpath', ipcPath]),
    ...(has(/^--metrics\.port/) ? [] : ['--metrics.port', '0']),
    ...args,
  ];
  // Started with npm start's environment (the memory setting that must precede start-up); the
  // caller's environment and flags come after, so they win.
  const proc = spawn(process.execPath, [...(o.nodeFlags ?? []), CLI, ...cli], {
    env: { ...LAUNCH_ENV, ...process.env, ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (err += c));
  const exited = new Promise<number | string | null>((resolve) => proc.once('exit', (code, signal) => resolve(signal ?? code)));

  const endpoints = await new Promise<Endpoints>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`node did not start within ${o.timeoutMs ?? 30_000} ms:\n${out}\n${err}`));
    }, o.timeoutMs ?? 30_000);
    const wantsMetrics = cli.some((a) => a === '--metrics' || a === '--metrics.enabled');
    const check = () => {
      // The banner comes in one write; SCS is the last endpoint line except the optional metrics one.
      if (!/\nSCS\s+\S.*\n/.test(out)) return;
      if (wantsMetrics && !/\nmetrics\s+\S.*\n/.test(out)) return;
      clearTimeout(timer);
      proc.stdout!.off('data', check);
      resolve({
        http: /\nHTTP\s+(http:\/\/\S+)/.exec(out)?.[1],
        ipc: /\nIPC\s+(\/\S+)/.exec(out)?.[1],
        scs: /\nSCS\s+(http:\/\/\S+)/.exec(out)?.[1],
        metrics: /\nmetrics\s+(http:\/\/\S+)/.exec(out)?.[1],
      });
    };
    proc.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`node exited (${code}) before it started:\n${out}\n${err}`));
    });
  });

  const node: NodeProcess = {
    ...endpoints,
    proc,
    pid: proc.pid!,
    datadir,
    exited,
    stdout: () => out,
    stderr: () => err,
    rss: () => processRss(proc.pid!),
    cpuTimes: () => processCpuTimes(proc.pid!),
    alive: () => proc.exitCode === null && proc.signalCode === null,
    async stop(signal = 'SIGTERM', graceMs = 20_000) {
      if (!node.alive()) return exited;
      const killer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      proc.kill(signal);
      const code = await exited;
      clearTimeout(killer);
      return code;
    },
  };
  return node;
}

/**
 * One sample's value from a Prometheus text page (the node's `--metrics` endpoint); NaN if absent.
 * `name` may carry labels as rendered: `nodejs_heap_space_size_total_bytes{space="new"}`.
 */
export function readMetric(text: string, name: string): number {
  const escaped = name.replace(/[{}"\\]/g, '\\$&');
  return Number(new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

/**
 * Lines of a node's stderr that show a crash or an escaped failure: an unhandled rejection or
 * exception, a fatal error, a JS stack, an ERROR-level log line, or a process warning (a
 * MaxListenersExceededWarning is how a listener leak shows). Empty when all is well.
 */
export function troubleIn(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => /unhandled|uncaught|fatal|^\s+at .+:\d+:\d+\)?$|^\w*Error:| ERROR |^\(node:\d+\) \w*Warning/i.test(l));
}
