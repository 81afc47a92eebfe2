// Read workloads driven by wrk (C, its own process) when it is installed: the load generator the
// side-by-side comparison uses, so that both print the same kind of number. The JavaScript
// generator in load.ts is the fallback (BENCH_LOADGEN=js forces it).

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadResult } from './load.js';

export function wrkAvailable(): boolean {
  if (process.env.BENCH_LOADGEN === 'js') return false;
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk --version exits 1 after printing its version; only a missing binary is ENOENT.
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/**
 * The Lua script: a fixed body, or `prefix .. counter .. suffix` per request (varying arguments);
 * counts replies that carry a JSON-RPC error, as the comparison harness does.
 */
function luaScript(body: string | { prefix: string; suffix: string }): string {
  const long = (s: string) => {
    if (s.includes(']]')) throw new Error('body cannot contain ]]');
    return `[[${s}]]`;
  };
  const request = typeof body === 'string'
    ? `wrk.body = ${long(body)}`
    : `local n = 0
local prefix, suffix = ${long(body.prefix)}, ${long(body.suffix)}
function request()
  n = n + 1
  return wrk.format(nil, nil, nil, prefix .. string.format("%064x", n) .. suffix)
end`;
  return `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
${request}
local errors = 0
function response(status, headers, body)
  if status ~= 200 or string.find(body, '"error"', 1, true) then errors = errors + 1 end
end
function done(summary, latency, requests)
  io.write(string.format("rpc-errors %d\\n", errors))
end
`;
}

const toMs = (s: string | undefined): number => {
  const m = s === undefined ? null : /^([\d.]+)(us|ms|s|m)$/.exec(s);
  if (!m) return NaN;
  return parseFloat(m[1]) * { us: 1e-3, ms: 1, s: 1e3, m: 6e4 }[m[2] as 'us' | 'ms' | 's' | 'm'];
};

/** One `wrk -t1 -cN -dS --latency` run; the body is fixed or gets a 32-byte counter word spliced in. */
export async function runWrk(o: {
  url: string;
  connections: number;
  seconds: number;
  body: string | { prefix: string; suffix: string };
}): Promise<LoadResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcnode-wrk-'));
  const lua = path.join(dir, 'body.lua');
  writeFileSync(lua, luaScript(o.body));
  const startedAt = performance.now();
  try {
    const args = ['-t1', `-c${o.connections}`, `-d${o.seconds}s`, '--timeout', '10s', '--latency', '-s', lua, o.url];
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (c) => (text += c));
      child.stderr.on('data', (c) => (text += c));
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${text.slice(-400)}`))));
    });
    const grab = (re: RegExp) => re.exec(out)?.[1];
    const perSecond = parseFloat(grab(/Requests\/sec:\s+([\d.]+)/) ?? 'NaN');
    const non2xx = Number(grab(/Non-2xx or 3xx responses: (\d+)/) ?? 0);
    const rpcErrors = Number(grab(/rpc-errors (\d+)/) ?? 0);
    return {
      requests: Number(grab(/(\d+) requests in/) ?? 0),
      errors: Math.max(non2xx, rpcErrors),
      firstError: rpcErrors || non2xx ? `${rpcErrors} JSON-RPC errors, ${non2xx} non-2xx replies (wrk)` : undefined,
      startedAt,
      elapsedMs: o.seconds * 1000,
      perSecond,
      p50Ms: toMs(grab(/\n\s+50%\s+(\S+)/)),
      p99Ms: toMs(grab(/\n\s+99%\s+(\S+)/)),
      maxMs: toMs(grab(/Latency\s+\S+\s+\S+\s+(\S+)/)),
      clientCpu: NaN, // wrk's CPU is its own process's, not measured here

    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
