// Runs the node's bundle that `npm start` uses (dist/bundle/mcnode.cjs, tools/build.mjs) with a
// V8 code cache kept beside it: the bytecode of what a start compiled, so that the next start
// deserialises it instead of parsing and compiling 2 MB of JavaScript (docs/design/start-up.md#the-v8-code-cache).
//
// The bundle file is one function expression, `(function (exports, require, module, __filename,
// __dirname) { … })`: CommonJS code that the build has wrapped already, so the 2 MB source is read
// and compiled as it is, never copied into a wrapper. The cache file is
// `MAGIC ‖ sha256(bundle file) ‖ sha256(payload) ‖ payload`. A cache of other bytes (a rebuilt
// bundle) or with a damaged payload is ignored; one V8 refuses (another Node version, other V8
// flags) is ignored too. Either way the bundle compiles from source as without a cache, and once
// the node has started a new cache is written (to a temporary file renamed over the old one). A
// cache that cannot be written (a read-only install) is simply not kept.
// Node built-ins only: this runs before anything else is loaded.

import { createHash } from 'node:crypto';
import { isAscii } from 'node:buffer';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

const MAGIC = Buffer.from('mcnode code cache 1\n');
const HASH = 32;
const HEADER = MAGIC.length + 2 * HASH;

/** What happened to the cache file on this run. */
export type CacheState = 'used' | 'missing' | 'stale' | 'corrupt' | 'rejected';

/** Called by the node once it has started (cli.ts): a cache that was not used is written then. */
export const STARTED_HOOK = Symbol.for('mcnode.started');
/** What happened to the cache on this run, for the bundled code to report (a debug log line). */
const STATE = Symbol.for('mcnode.codeCacheState');

const sha256 = (data: string | Uint8Array): Buffer => createHash('sha256').update(data).digest();

function readCache(file: string, sourceHash: Buffer): { data?: Buffer; state: CacheState } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return { state: 'missing' };
  }
  if (bytes.length <= HEADER || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return { state: 'corrupt' };
  if (!bytes.subarray(MAGIC.length, MAGIC.length + HASH).equals(sourceHash)) return { state: 'stale' };
  const data = bytes.subarray(HEADER);
  if (!sha256(data).equals(bytes.subarray(MAGIC.length + HASH, HEADER))) return { state: 'corrupt' };
  return { data, state: 'used' };
}

export interface BundleRun {
  /** the cache file's state at load */
  state: CacheState;
  /** Writes the cache from what has been compiled so far; false when it could not be written. */
  save(): boolean;
}

/**
 * Compiles the wrapped CommonJS file `file` (with `cacheFile` when it is valid) and runs it as
 * Node would run a required module. Throws what the bundle's top level throws.
 */
export function runBundle(file: string, cacheFile = `${file}.cache`, onCompiled?: (state: CacheState) => void): BundleRun {
  const bytes = readFileSync(file);
  const sourceHash = sha256(bytes);
  const cache = readCache(cacheFile, sourceHash);
  // The build emits ASCII (esbuild's charset option): a one-byte string, copied without decoding.
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  // No dynamic-import callback: V8 drops it for a script deserialised from a cache, so the build
  // leaves no import() in the bundle (tools/build.mjs), and a start with or without a cache loads alike.
  const script = new vm.Script(source, { filename: file, cachedData: cache.data });
  const state: CacheState = cache.data && script.cachedDataRejected ? 'rejected' : cache.state;
  const save = (): boolean => {
    const payload = script.createCachedData();
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, Buffer.concat([MAGIC, sourceHash, sha256(payload), payload]));
      renameSync(tmp, cacheFile);
      return true;
    } catch {
      rmSync(tmp, { force: true });
      return false;
    }
  };
  onCompiled?.(state);
  const module = { exports: {} };
  (script.runInThisContext() as (...args: unknown[]) => void).call(
    module.exports, module.exports, createRequire(file), module, file, path.dirname(file),
  );
  return { state, save };
}

/**
 * Runs the bundle; when its cache was not used, writes a new one when the node announces that it
 * has started (its listeners open, before the first requests' work compiles more code and before
 * it changes V8's flags, which would make V8 refuse the cache).
 */
export function startBundle(file: string): BundleRun {
  let run: BundleRun | undefined;
  (globalThis as Record<symbol, unknown>)[STARTED_HOOK] = () => {
    if (run && run.state !== 'used') run.save();
  };
  run = runBundle(file, undefined, (state) => {
    (globalThis as Record<symbol, unknown>)[STATE] = state;
  });
  return run;
}

/** The cache's state when this code runs from the bundle; undefined when it runs from dist/src/. */
export function codeCacheState(): CacheState | undefined {
  return (globalThis as Record<symbol, unknown>)[STATE] as CacheState | undefined;
}

/** For the bundled node (cli.ts): tells the loader, if there is one, that start-up is done. */
export function announceStarted(): void {
  const hook = (globalThis as Record<symbol, unknown>)[STARTED_HOOK];
  if (typeof hook === 'function') hook();
}
