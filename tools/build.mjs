#!/usr/bin/env node
// Compiles the TypeScript to dist/ only when it is stale, so `npm start` and `npm test` do not
// pay ~10 s of tsc on every run. Stale: no stamp of a successful build, or a source file (or
// tsconfig.json) modified after that build began. `--force` always compiles (`npm run build`).
// After tsc, esbuild bundles dist/src/cli.js into dist/bundle/cli.js, which `npm start` runs:
// one file instead of ~500 modules to resolve and read halves start-up CPU (README "Start-up").
// dist/src/ stays the tested entry. Plain JavaScript on purpose: it must run before anything is compiled.

import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stampOf = (root) => path.join(root, 'dist', '.build-stamp');
const STAMP = stampOf(ROOT);
// The folders tsconfig.json includes.
const SOURCE_DIRS = ['src', 'workers', 'bench', 'tools'];

function newestIn(dir, newest) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return newest;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) newest = newestIn(full, newest);
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/** True when dist/ is missing or older than a source. Costs a few milliseconds (one stat per file). */
export function isStale(root = ROOT) {
  let built;
  try {
    built = statSync(stampOf(root)).mtimeMs;
  } catch {
    return true;
  }
  let newest = statSync(path.join(root, 'tsconfig.json')).mtimeMs;
  for (const dir of SOURCE_DIRS) newest = newestIn(path.join(root, dir), newest);
  return newest > built;
}

export const BUNDLE_DIR = path.join(ROOT, 'dist', 'bundle');
// Native addons find their binaries beside their own package, and piscina loads worker files by
// path: these stay in node_modules. Bundled CommonJS code calls require(), which ESM output lacks.
const BUNDLE_EXTERNAL = ['secp256k1', 'classic-level', 'piscina'];
const REQUIRE_SHIM = "import { createRequire as __mcnodeCreateRequire } from 'node:module'; const require = __mcnodeCreateRequire(import.meta.url);";

/**
 * Bundles the compiled CLI with esbuild (a devDependency). Lazy `import()`s become chunks loaded
 * on first use. Without esbuild (a production-only install) there is no bundle and `npm start`
 * runs dist/src/cli.js; a failed bundle fails the build.
 */
export async function bundle() {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    rmSync(BUNDLE_DIR, { recursive: true, force: true });
    return true;
  }
  rmSync(BUNDLE_DIR, { recursive: true, force: true });
  try {
    await esbuild.build({
      entryPoints: [path.join(ROOT, 'dist', 'src', 'cli.js')],
      outdir: BUNDLE_DIR,
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      external: BUNDLE_EXTERNAL,
      banner: { js: REQUIRE_SHIM },
      logLevel: 'warning',
    });
    return true;
  } catch (err) {
    console.error(`bundling dist/src/cli.js failed: ${err.message}`);
    return false;
  }
}

/** Runs tsc; the stamp carries the time the build began, so an edit made during it is seen next time. */
export async function build() {
  const began = new Date();
  rmSync(STAMP, { force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.json')], { stdio: 'inherit' });
  if (r.status !== 0 || !(await bundle())) return false;
  mkdirSync(path.dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, `${began.toISOString()}\n`);
  utimesSync(STAMP, began, began);
  return true;
}

/** Builds when stale; false when a needed build failed. */
export async function ensureBuilt() {
  return !isStale() || build();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ok = await (process.argv.includes('--force') ? build() : ensureBuilt());
  process.exit(ok ? 0 : 1);
}
