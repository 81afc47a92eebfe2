// Start-up (`BENCH_ONLY=startup`): spawn → first answer to net_listening, on a fresh datadir,
// for `node dist/src/cmd/cli.js`, for the bundle `npm start` runs (dist/bundle/cli.js, with its code
// cache) and for `npm start` itself (npm's own start-up included, as the comparison measures it),
// with the node's CPU time up to that answer (steadier than wall time on a busy machine) and its
// resident memory 2 s later. Then the breakdown of the bundle's CPU: Node itself (`node -e 0`),
// loading and evaluating the code (`cli.js version` loads everything and exits), and the rest
// (opening the database, genesis, keys, listeners). Medians of BENCH_STARTS runs (default 5).
// BENCH_STARTUP_BLOCKS=N also measures the starts on a copy of a chain of N empty blocks (built
// once with `mcnode fixture`, ~1 min for 100,000), BENCH_STARTUP_CHAIN=<datadir> on copies of a
// datadir of your own. Node parses NODE_EXTRA_CA_CERTS at every process start: the bench says
// whether it is set (npm start clears it for the node).

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './nodeProcess.js';

const POLL_MS = 5;
const TIMEOUT_MS = 60_000;

const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU milliseconds of `pid` and its descendants that are still running (Linux /proc). */
function treeCpuMs(pid: number): number {
  let total = 0;
  const visit = (p: number): void => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
      const children = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim();
      for (const c of children ? children.split(' ') : []) visit(Number(c));
    } catch {
      // gone already
    }
  };
  visit(pid);
  return total;
}

async function listening(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"net_listening","params":[]}',
    });
    return (await res.json()).result === true;
  } catch {
    return false;
  }
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Resident memory of one process in MB (Linux /proc). */
function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** CPU milliseconds of one short command run to its end (user + system, children included). */
function commandCpuMs(args: string[]): number {
  const childBefore = readChildrenCpu();
  execFileSync(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
  return readChildrenCpu() - childBefore;
}

/** Total CPU of this process's waited-for children so far (/proc/self/stat cutime + cstime). */
function readChildrenCpu(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / clockTicks;
}

async function once(command: string, args: string[], chain?: string): Promise<{ ms: number; cpuMs: number; rssMb: number }> {
  const datadir = mkdtempSync(path.join(os.tmpdir(), 'mcnode-start-'));
  if (chain) cpSync(chain, datadir, { recursive: true });
  const port = await freePort();
  const started = performance.now();
  const child = spawn(command, [...args, '--datadir', datadir, '--rpcport', String(port), '--scsrpcport', '0', '--ipcdisable', '--verbosity', '1'], {
    cwd: ROOT, stdio: 'ignore', detached: true,
  });
  try {
    for (;;) {
      if (await listening(port)) {
        const ms = performance.now() - started;
        const cpuMs = treeCpuMs(child.pid!);
        await new Promise((r) => setTimeout(r, 2000));
        // npm start: the node is the last descendant (npm → sh → node).
        const pids = [child.pid!, ...descendants(child.pid!)];
        return { ms, cpuMs, rssMb: rssMb(pids[pids.length - 1]) };
      }
      if (performance.now() - started > TIMEOUT_MS || child.exitCode !== null) throw new Error(`${command} did not answer within ${TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    await new Promise((r) => setTimeout(r, 100));
    rmSync(datadir, { recursive: true, force: true });
  }
}

function descendants(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return children ? children.split(' ').map(Number).flatMap((c) => [c, ...descendants(c)]) : [];
  } catch {
    return [];
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A datadir holding `blocks` empty blocks, built with `mcnode fixture` (the caller removes `dir`). */
function buildChain(dir: string, blocks: number): string {
  const script = {
    genesis: { config: { chainId: 100 }, nonce: '0x42', timestamp: '0x5f5e1000', extraData: '0x', gasLimit: '0x895440', difficulty: '0x200', alloc: {} },
    keys: [],
    coinbase: '0x' + '00'.repeat(19) + '01',
    blocks: Array.from({ length: blocks }, () => ({ txs: [] })),
  };
  const file = path.join(dir, 'chain.json');
  writeFileSync(file, JSON.stringify(script));
  const datadir = path.join(dir, 'chain');
  const run = spawnSync(process.execPath, [path.join(ROOT, 'dist/src/cmd/cli.js'), 'fixture', file, '--datadir', datadir, '--ipcdisable', '--minerthreads', '1', '--verbosity', '1'],
    { encoding: 'utf8', timeout: 1_800_000 });
  if (run.status !== 0) throw new Error(`fixture of ${blocks} blocks failed:\n${run.stderr}${run.stdout}`);
  return datadir;
}

export async function benchStartup(): Promise<void> {
  const runs = Math.max(1, Number(process.env.BENCH_STARTS ?? 5) || 5);
  const bundle = path.join(ROOT, 'dist/bundle/cli.js');
  const ways: [string, string, string[]][] = [
    ['node dist/src/cmd/cli.js', process.execPath, [path.join(ROOT, 'dist/src/cmd/cli.js')]],
    ...(existsSync(bundle) ? [['node dist/bundle/cli.js', process.execPath, [bundle]] as [string, string, string[]]] : []),
    ['npm start', 'npm', ['start', '--silent', '--']],
  ];
  const ca = process.env.NODE_EXTRA_CA_CERTS ? `NODE_EXTRA_CA_CERTS set (${process.env.NODE_EXTRA_CA_CERTS})` : 'NODE_EXTRA_CA_CERTS not set';
  // One start writes the bundle's code cache if the build left none (it is written once started).
  if (existsSync(bundle)) await once(process.execPath, [bundle]);
  const cpuOf = new Map<string, number>();
  const measure = async (what: string, chain?: string) => {
    console.log(`Start-up, spawn → first net_listening answer on ${what} (median of ${runs}; load ${os.loadavg()[0].toFixed(1)}; ${ca})`);
    for (const [label, command, args] of ways) {
      const results: { ms: number; cpuMs: number; rssMb: number }[] = [];
      for (let i = 0; i < runs; i++) results.push(await once(command, args, chain));
      if (!chain) cpuOf.set(args[0], median(results.map((r) => r.cpuMs)));
      console.log(`  ${label.padEnd(24)} ${Math.round(median(results.map((r) => r.ms)))} ms wall, ` +
        `${Math.round(median(results.map((r) => r.cpuMs)))} ms CPU (all processes), idle RSS ${Math.round(median(results.map((r) => r.rssMb)))} MB`);
    }
  };
  await measure('a fresh datadir');
  const entry = existsSync(bundle) ? bundle : path.join(ROOT, 'dist/src/cmd/cli.js');
  const bare: number[] = [];
  const loaded: number[] = [];
  for (let i = 0; i < runs; i++) {
    bare.push(commandCpuMs(['-e', '0']));
    loaded.push(commandCpuMs([entry, 'version']));
  }
  const nodeMs = median(bare);
  const loadMs = median(loaded) - nodeMs;
  console.log(`  breakdown of ${path.relative(ROOT, entry)}'s CPU: Node itself ${Math.round(nodeMs)} ms, ` +
    `loading and evaluating the code ${Math.round(loadMs)} ms, ` +
    `the node's own start (database, genesis, keys, listeners) ${Math.round((cpuOf.get(entry) ?? 0) - nodeMs - loadMs)} ms`);

  const blocks = Number(process.env.BENCH_STARTUP_BLOCKS ?? 0);
  if (process.env.BENCH_STARTUP_CHAIN) {
    await measure(`copies of ${process.env.BENCH_STARTUP_CHAIN}`, process.env.BENCH_STARTUP_CHAIN);
  } else if (blocks > 0) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mcnode-startchain-'));
    try {
      const built = performance.now();
      const chain = buildChain(dir, blocks);
      console.log(`(a chain of ${blocks} empty blocks built in ${((performance.now() - built) / 1000).toFixed(0)} s)`);
      await measure(`copies of a ${blocks}-block datadir`, chain);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
