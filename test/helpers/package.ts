// The package as users get it: a copy of the tree as a commit would hold it, `npm pack` there
// (its prepack builds), and `npm install <tarball>` into an empty project. Packing builds the
// node (~1 min on a busy machine), so a test file packs once; CI packs once for the Node 24 smoke
// and says where the tarball is (PACKAGE_TARBALL).

import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './node.js';

/** The repository's files (tracked and new, as a commit of this tree would hold them) copied to a temporary directory, with node_modules hard-linked. */
export function cloneOfTree(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcclone-'));
  const files = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .stdout.split('\0').filter((f) => f && existsSync(path.join(ROOT, f)));
  for (const f of files) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    cpSync(path.join(ROOT, f), path.join(dir, f));
  }
  // `npm install`, offline: the installed tree, linked; npm's own lock file copied (npm rewrites it).
  spawnSync('cp', ['-al', path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules')]);
  rmSync(path.join(dir, 'node_modules/.package-lock.json'), { force: true });
  cpSync(path.join(ROOT, 'node_modules/.package-lock.json'), path.join(dir, 'node_modules/.package-lock.json'));
  return dir;
}

/** npm, quiet, offline where its cache allows. */
export function npm(args: string[], options: SpawnSyncOptions): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('npm', args, {
    encoding: 'utf8',
    ...options,
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...options.env },
  });
  return { status: r.status, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** The tarball: PACKAGE_TARBALL when set, else `npm pack` (prepack builds) in a copy of the tree. `dir` receives it. */
export function packedTarball(dir: string): string {
  if (process.env.PACKAGE_TARBALL) return path.resolve(process.env.PACKAGE_TARBALL);
  const clone = cloneOfTree();
  try {
    const packed = npm(['pack', '--pack-destination', dir], { cwd: clone });
    if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.stdout}\n${packed.stderr}`);
    return path.join(dir, packed.stdout.trim().split('\n').pop()!);
  } finally {
    rmSync(clone, { recursive: true, force: true });
  }
}

/** The version of a package installed in the checkout, so that a project installs what npm's cache holds. */
export const checkoutVersion = (name: string): string =>
  JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;

/** An empty ES-module project with `deps` installed (a tarball path or name@version). */
export function projectWith(deps: string[]): string {
  const project = mkdtempSync(path.join(os.tmpdir(), 'mcpkg-'));
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'uses-mcnode', version: '1.0.0', private: true, type: 'module' }));
  const installed = npm(['install', '--prefer-offline', ...deps], { cwd: project });
  if (installed.status !== 0) throw new Error(`npm install failed:\n${installed.stdout}\n${installed.stderr}`);
  return project;
}
