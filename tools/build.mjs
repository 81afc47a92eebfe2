#!/usr/bin/env node
// Compiles the TypeScript to dist/ only when it is stale, so `npm start` and `npm test` do not
// pay ~10 s of tsc on every run. Stale: no stamp of a successful build, or a source file (or
// tsconfig.json) modified after that build began. `--force` always compiles (`npm run build`).
// After tsc, esbuild bundles dist/src/cmd/cli.js into dist/bundle/mcnode.cjs, which `npm start` runs
// through dist/bundle/cli.js and a code cache: one file instead of ~500 modules to resolve, read
// and compile (docs/design/start-up.md#the-bundle).
// dist/src/ stays the tested entry. Plain JavaScript on purpose: it must run before anything is compiled.

// Only modules Node has loaded before any script runs are imported here: `npm start` imports this
// file for isStale() on every start; building loads the rest.
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stampOf = (root) => path.join(root, 'dist', '.build-stamp');
const STAMP = stampOf(ROOT);
// The folders tsconfig.json includes.
const SOURCE_DIRS = ['src', 'workers', 'bench', 'tools'];

// Runs on every `npm start` before anything is compiled: plain loops, no path helpers.
function newestIn(dir, newest) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return newest;
  }
  for (let i = 0; i < entries.length; i++) {
    const name = entries[i].name;
    if (entries[i].isDirectory()) newest = newestIn(`${dir}/${name}`, newest);
    else if (name.endsWith('.ts')) {
      const modified = statSync(`${dir}/${name}`).mtimeMs;
      if (modified > newest) newest = modified;
    }
  }
  return newest;
}

/**
 * True when dist/ is missing or older than a source in `dirs` (all of tsconfig.json's by default;
 * `npm start` asks about what the node is built from). Costs a few milliseconds: one stat per file.
 */
export function isStale(root = ROOT, dirs = SOURCE_DIRS) {
  let built;
  try {
    built = statSync(stampOf(root)).mtimeMs;
  } catch {
    return true;
  }
  let newest = statSync(path.join(root, 'tsconfig.json')).mtimeMs;
  for (const dir of dirs) newest = newestIn(path.join(root, dir), newest);
  return newest > built;
}

export const BUNDLE_DIR = path.join(ROOT, 'dist', 'bundle');
// Native addons find their binaries beside their own package, and piscina loads worker files by
// path: these stay in node_modules (secp256k1 is required at run time on first use, never bundled).
const BUNDLE_EXTERNAL = ['secp256k1', 'piscina'];

/**
 * classic-level's JavaScript (and abstract-level's ~40 modules under it) is bundled; its binding
 * asks node-gyp-build for the addon in the package's directory, which the bundle finds at run
 * time with Node's resolution from its own file: in a checkout that is ./node_modules, in an
 * installed mcnode wherever npm put classic-level (hoisted beside mcnode, or under it).
 */
const nativeBindingBeside = {
  name: 'native-binding-beside-package',
  setup(build) {
    build.onLoad({ filter: /[\\/]classic-level[\\/]binding\.js$/ }, (args) => ({
      contents: "module.exports = require('node-gyp-build')(require('node:path').dirname(require.resolve('classic-level')));",
      loader: 'js',
      resolveDir: path.dirname(args.path),
    }));
  },
};

/**
 * Bundles the compiled CLI with esbuild (a devDependency) into one CommonJS file,
 * dist/bundle/mcnode.cjs, and its entry dist/bundle/cli.js, which runs it through a code cache
 * (src/runtime/codeCache.ts): a cached start deserialises bytecode instead of compiling 2 MB of source.
 * Lazy `import()`s stay lazy (evaluated on first use). Without esbuild (a production-only install)
 * there is no bundle and `npm start` runs dist/src/cmd/cli.js; a failed bundle fails the build.
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
  const common = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning' };
  try {
    await esbuild.build({
      ...common,
      entryPoints: [path.join(ROOT, 'dist', 'src', 'cmd', 'cli.js')],
      outfile: path.join(BUNDLE_DIR, 'mcnode.cjs'),
      format: 'cjs',
      external: BUNDLE_EXTERNAL,
      charset: 'ascii', // read back as a one-byte string, no UTF-8 decoding
      // The ES modules' import.meta.url: this file's URL.
      define: { 'import.meta.url': '__mcnodeBundleUrl' },
      // A script compiled from a V8 code cache has no dynamic-import callback (Node drops it when
      // the cache is used), so no import() may stay in the bundle: externals load by require().
      supported: { 'dynamic-import': false },
      plugins: [nativeBindingBeside],
      // The binding's require.resolve('classic-level') is meant for run time (the plugin above).
      logOverride: { 'require-resolve-not-external': 'silent' },
    });
    // A CommonJS module, strict as its ES sources were, that Node requires (with its compile
    // cache) or src/runtime/codeCache.ts compiles in the wrapper (with its own); the entry's
    // hashbang line goes, and the line count stays.
    const file = path.join(BUNDLE_DIR, 'mcnode.cjs');
    // charset 'ascii' escapes strings and names; what non-ASCII is left sits in kept comments.
    const code = readFileSync(file, 'utf8').replace(/^#!.*/, '').replace(/[^\0-\x7f]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
    if (/\bimport\(/.test(code)) throw new Error('an import() is left in the bundle: it fails when the code cache is used');
    writeFileSync(file, `'use strict'; var __mcnodeBundleUrl = require('node:url').pathToFileURL(__filename).href;${code}\n`);
    await esbuild.build({
      ...common,
      entryPoints: [path.join(ROOT, 'dist', 'src', 'runtime', 'bundleEntry.js')],
      outfile: path.join(BUNDLE_DIR, 'cli.js'),
      format: 'esm',
    });
    return true;
  } catch (err) {
    console.error(`bundling dist/src/cmd/cli.js failed: ${err.message}`);
    return false;
  }
}

/** Runs tsc; the stamp carries the time the build began, so an edit made during it is seen next time. */
export async function build() {
  const began = new Date();
  rmSync(STAMP, { force: true });
  const [{ spawnSync }, { createRequire }] = await Promise.all([import('node:child_process'), import('node:module')]);
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.json')], { stdio: 'inherit' });
  if (r.status !== 0 || !(await bundle())) return false;
  mkdirSync(path.dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, `${began.toISOString()}\n`);
  utimesSync(STAMP, began, began);
  return true;
}

/** Builds when stale (`dirs` as for isStale); false when a needed build failed. */
export async function ensureBuilt(dirs = SOURCE_DIRS) {
  return !isStale(ROOT, dirs) || build();
}

/** The folders the node itself is compiled from (bench/ and tools/ are not part of it). */
export const NODE_SOURCE_DIRS = ['src', 'workers'];

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ok = await (process.argv.includes('--force') ? build() : ensureBuilt());
  process.exit(ok ? 0 : 1);
}
