// The Dockerfile, executed without Docker (no engine runs on the test machines) so that it
// cannot rot: its instructions are parsed and played in a temporary directory that stands for
// the image's file system: COPY copies the repo's files (honouring .dockerignore), RUN runs the
// same commands, then the final stage's CMD starts with the image's ENV, the HEALTHCHECK
// command must pass, and SIGTERM must stop the node cleanly.
//
// Three substitutions, because this is not a container: `npm ci` becomes a hard-linked copy of
// the repo's node_modules (no registry here; the files are what `npm ci` installs from the same
// lock file), `chown` is skipped (the image's users do not exist here), and 0.0.0.0 becomes
// 127.0.0.1 (the dev accounts are unlocked; nothing here should listen on every interface).
// Absolute image paths (/app, /data) are mapped into the temporary root.

import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT, launchEnvOf, waitFor } from '../helpers/node.js';
import { LAUNCH_ENV } from '../../src/runtime/heapTuning.js';

interface Instruction {
  op: string;
  rest: string;
}

function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  for (const line of text.split('\n')) {
    if (pending === '' && /^\s*(#|$)/.test(line)) continue;
    if (line.endsWith('\\')) {
      pending += line.slice(0, -1) + ' ';
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    const m = /^(\S+)\s+(.*)$/s.exec(full);
    if (!m) throw new Error(`cannot parse Dockerfile line: ${full}`);
    out.push({ op: m[1].toUpperCase(), rest: m[2].trim() });
  }
  return out;
}

/** `--flag=value` options before the arguments of COPY, HEALTHCHECK, … */
function splitFlags(rest: string): { flags: Map<string, string>; args: string } {
  const flags = new Map<string, string>();
  let args = rest;
  for (let m = /^--([a-z-]+)=(\S+)\s+/.exec(args); m; m = /^--([a-z-]+)=(\S+)\s+/.exec(args)) {
    flags.set(m[1], m[2]);
    args = args.slice(m[0].length);
  }
  return { flags, args };
}

function parseEnv(rest: string): [string, string][] {
  const pairs: [string, string][] = [];
  const re = /([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g;
  for (let m = re.exec(rest); m; m = re.exec(rest)) pairs.push([m[1], m[2].startsWith('"') ? JSON.parse(m[2]) : m[2]]);
  return pairs;
}

function ignoredPatterns(): string[] {
  return readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

interface Stage {
  name: string;
  image: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
  user?: string;
  volumes: string[];
  expose: string[];
  healthcheck?: string[];
  stopSignal?: string;
  cmd?: string[];
}

const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
const instructions = parseDockerfile(dockerfile);

t.test('the Dockerfile builds and runs, step by step', async (t) => {
  // Short: the IPC socket lands in <root>/data and socket paths are limited to ~100 bytes.
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'mcdock-'));
  t.teardown(() => rmSync(tmp, { recursive: true, force: true }));
  const imagePaths = new Set<string>();
  for (const i of instructions) {
    if (i.op === 'WORKDIR') imagePaths.add(i.rest);
    if (i.op === 'VOLUME') i.rest.split(/\s+/).forEach((p) => imagePaths.add(p));
  }
  const stages: Stage[] = [];
  const mapPath = (stage: Stage, p: string) => (p.startsWith('/') ? path.join(stage.root, p) : path.join(stage.root, stage.workdir, p));
  const mapText = (stage: Stage, text: string) =>
    [...imagePaths].reduce((s, p) => s.replace(new RegExp(`(^|[\\s=])${p}(?=[/\\s]|$)`, 'g'), `$1${path.join(stage.root, p)}`), text);
  const ignored = ignoredPatterns();
  const substitutions: string[] = [];

  for (const { op, rest } of instructions) {
    const stage = stages.at(-1);
    if (op === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest)!;
      const name = m[2] ?? `stage${stages.length}`;
      stages.push({ name, image: m[1], root: path.join(tmp, name), workdir: '/', env: {}, volumes: [], expose: [] });
      mkdirSync(path.join(tmp, name), { recursive: true });
      continue;
    }
    if (!stage) throw new Error(`${op} before FROM`);
    switch (op) {
      case 'WORKDIR':
        stage.workdir = rest;
        mkdirSync(mapPath(stage, rest), { recursive: true });
        break;
      case 'ENV':
        for (const [k, v] of parseEnv(rest)) stage.env[k] = v;
        break;
      case 'COPY': {
        const { flags, args } = splitFlags(rest);
        const parts = args.split(/\s+/);
        const dest = parts.pop()!;
        const from = flags.get('from');
        const source = from ? stages.find((s) => s.name === from) : undefined;
        if (from && !source) throw new Error(`COPY --from=${from}: no such stage`);
        for (const src of parts) {
          if (!source) t.notOk(ignored.includes(src.replace(/^\.\//, '')), `COPY ${src} is not excluded by .dockerignore`);
          const origin = source ? mapPath(source, src) : path.join(ROOT, src);
          t.ok(existsSync(origin), `COPY source ${src} exists`);
          const target = dest.endsWith('/') || dest === '.' || dest === './' ? path.join(mapPath(stage, dest), path.basename(src)) : mapPath(stage, dest);
          mkdirSync(path.dirname(target), { recursive: true });
          // A context copy leaves out what .dockerignore names (node_modules, dist, …).
          cpSync(origin, target, { recursive: true, verbatimSymlinks: true, filter: (p) => source !== undefined || !ignored.includes(path.relative(ROOT, p)) });
        }
        break;
      }
      case 'RUN': {
        let command = rest;
        if (/^npm ci\b/.test(command)) {
          t.ok(existsSync(mapPath(stage, 'package-lock.json')), 'npm ci has the lock file');
          substitutions.push(command);
          const modules = mapPath(stage, 'node_modules');
          t.equal(spawnSync('cp', ['-al', path.join(ROOT, 'node_modules'), modules]).status, 0, 'node_modules linked');
          // npm rewrites its hidden lock file in place: it must not be a link to the repo's.
          rmSync(path.join(modules, '.package-lock.json'), { force: true });
          cpSync(path.join(ROOT, 'node_modules/.package-lock.json'), path.join(modules, '.package-lock.json'));
          break;
        }
        command = mapText(stage, command).replace(/chown\s+[^&;|]+/g, 'true');
        const run = spawnSync('sh', ['-c', command], {
          cwd: mapPath(stage, '.'),
          env: { ...process.env, ...stage.env, npm_config_offline: 'true', npm_config_update_notifier: 'false' },
          encoding: 'utf8',
          timeout: 120_000,
        });
        t.equal(run.status, 0, `RUN ${rest}`, { stdout: run.stdout.slice(-2000), stderr: run.stderr.slice(-2000) });
        if (run.status !== 0) return;
        break;
      }
      case 'USER':
        stage.user = rest;
        break;
      case 'VOLUME':
        stage.volumes.push(...rest.split(/\s+/));
        break;
      case 'EXPOSE':
        stage.expose.push(...rest.split(/\s+/));
        break;
      case 'HEALTHCHECK': {
        const { args } = splitFlags(rest);
        stage.healthcheck = JSON.parse(args.replace(/^CMD\s+/, ''));
        break;
      }
      case 'STOPSIGNAL':
        stage.stopSignal = rest;
        break;
      case 'CMD':
        stage.cmd = JSON.parse(rest);
        break;
      default:
        throw new Error(`the test does not know ${op}`);
    }
  }

  t.equal(stages.length, 2, 'multi-stage: build and runtime');
  for (const s of stages) t.match(s.image, /^node:24-/, `${s.name} is an official Node 24 image`);
  t.same(substitutions, ['npm ci --no-audit --no-fund'], 'npm ci ran (substituted) once');
  const image = stages.at(-1)!;
  t.ok(image.user && image.user !== 'root' && image.user !== '0', `runs as a non-root user (${image.user})`);
  t.same(image.volumes, ['/data']);
  t.same(image.expose.sort(), ['30333', '8545', '8548'], 'RPC, SCS and the peer-to-peer port');
  t.equal(image.stopSignal ?? 'SIGTERM', 'SIGTERM');
  t.ok(image.cmd, 'exec-form CMD');
  t.ok(image.healthcheck, 'exec-form HEALTHCHECK');
  const cmd = image.cmd!;
  const flagValue = (flag: string) => cmd[cmd.indexOf(flag) + 1];
  t.equal(flagValue('--rpcaddr'), '0.0.0.0', 'HTTP binds every interface inside the container');
  t.equal(flagValue('--scsrpcaddr'), '0.0.0.0');
  t.equal(flagValue('--datadir'), '/data');
  t.ok('MCNODE_RPCVHOSTS' in image.env, 'vhosts come from MCNODE_RPCVHOSTS');
  t.notOk(existsSync(path.join(image.root, 'app/node_modules/tap')), 'dev dependencies are pruned');
  t.ok(existsSync(path.join(ROOT, 'node_modules/tap')), 'the repo\'s own node_modules is untouched');

  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '',
    ...image.env,
    MCNODE_RPCPORT: String(port),
    MCNODE_SCSRPCPORT: String(await freePort()),
    MCNODE_RPCVHOSTS: 'localhost,mcnode',
  };
  const argv = cmd.map((a) => mapText(image, a).replace(/^0\.0\.0\.0$/, '127.0.0.1'));
  const proc = spawn(argv[0] === 'node' ? process.execPath : argv[0], argv.slice(1), { cwd: mapPath(image, '.'), env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (c) => (out += c));
  proc.stderr.on('data', (c) => (err += c));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  t.teardown(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  await waitFor(async () => /HTTP\s+http:/.test(out) || proc.exitCode !== null, 'the node to start', 60_000);
  t.match(out, new RegExp(`HTTP\\s+http://127\\.0\\.0\\.1:${port}`), 'the node serves on the configured port', { stderr: err });
  t.ok(existsSync(path.join(image.root, 'data/chaindata')), 'the chain lives in the /data volume');
  t.same(launchEnvOf(proc.pid!), LAUNCH_ENV, 'the node (PID 1 in the image) runs with the malloc settings (ENV)');
  t.notOk('NODE_OPTIONS' in image.env, 'and no NODE_OPTIONS: a V8 flag at start would cost Node its code cache');

  const health = image.healthcheck!;
  const check = () => spawnSync(health[0] === 'node' ? process.execPath : health[0], health.slice(1), { env, encoding: 'utf8', timeout: 10_000 });
  t.equal(check().status, 0, 'HEALTHCHECK passes on a running node');

  const status = await new Promise<number>((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'net_version', params: [] });
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', headers: { host: 'mcnode', 'content-type': 'application/json' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
  t.equal(status, 200, 'a Host named in MCNODE_RPCVHOSTS is served');

  proc.kill('SIGTERM');
  t.equal(await exited, 0, 'SIGTERM stops the node cleanly (exit 0)');
  t.not(check().status, 0, 'HEALTHCHECK fails once the node is gone');
});
