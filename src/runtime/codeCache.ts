// Runs the node's bundle (dist/bundle/mcnode.cjs, tools/build.mjs) with a code cache: the
// bytecode of what a start compiled, so that the next start deserialises it instead of parsing
// and compiling 2 MB of JavaScript (docs/design/start-up.md#the-code-cache).
//
// Where Node has its own (22.8 and later: `module.enableCompileCache()`), the bundle is required
// as the CommonJS module it is, with Node's cache on: Node keeps the cache in its directory
// (`NODE_COMPILE_CACHE`, default `<tmpdir>/node-compile-cache`), per Node version, and checks it.
//
// Elsewhere (Node 20) this file keeps one by hand: the bundle is compiled with vm.Script inside
// the CommonJS wrapper, with the cache file `<tmpdir>/mcnode-code-cache-<uid>/<hash of the
// bundle's path>.cache` (never beside the bundle: an installed package writes nothing into
// node_modules). The file is `MAGIC ‖ sha256(bundle file) ‖ sha256(payload) ‖ payload`. A cache of
// other bytes (a rebuilt bundle) or with a damaged payload is ignored; one V8 refuses (another
// Node version, other V8 flags) is ignored too. Either way the bundle compiles from source as
// without a cache, and once the node has started a new cache is written (to a temporary file
// renamed over the old one). A cache that cannot be written is simply not kept.
// Node built-ins only: this runs before anything else is loaded.

import { createHash } from 'node:crypto';
import { isAscii } from 'node:buffer';
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import nodeModule, { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';

const MAGIC = Buffer.from('mcnode code cache 1\n');
const HASH = 32;
const HEADER = MAGIC.length + 2 * HASH;

/**
 * What happened to the cache file on this run; `node`: Node's own compile cache is on, `off`:
 * Node has one but it is off (NODE_DISABLE_COMPILE_CACHE) or its directory cannot be used.
 */
export type CacheState = 'used' | 'missing' | 'stale' | 'corrupt' | 'rejected' | 'node' | 'off';

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

/** Node's CommonJS wrapper, written out: the script's value is the module function. */
const WRAPPER = ['(function (exports, require, module, __filename, __dirname) { ', '\n})'] as const;

/**
 * Compiles the CommonJS file `file` (with `cacheFile` when it is valid; undefined: no cache) and
 * runs it as Node would run a required module. Throws what the bundle's top level throws.
 */
export function runBundle(file: string, cacheFile: string | undefined, onCompiled?: (state: CacheState) => void): BundleRun {
  const bytes = readFileSync(file);
  const sourceHash = sha256(bytes);
  const cache: { data?: Buffer; state: CacheState } = cacheFile !== undefined ? readCache(cacheFile, sourceHash) : { state: 'missing' };
  // The build emits ASCII (esbuild's charset option): a one-byte string, copied without decoding.
  const source = WRAPPER[0] + bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8') + WRAPPER[1];
  // No dynamic-import callback: V8 drops it for a script deserialised from a cache, so the build
  // leaves no import() in the bundle (tools/build.mjs), and a start with or without a cache loads alike.
  const script = new vm.Script(source, { filename: file, cachedData: cache.data });
  const state: CacheState = cache.data && script.cachedDataRejected ? 'rejected' : cache.state;
  const save = (): boolean => {
    if (cacheFile === undefined) return false;
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
 * Where the hand-kept cache of `bundleFile` lives: a directory of this user's in the temporary
 * directory, one file per bundle path. A cache is code this process will run, so a directory
 * another user owns or may write to is not used (undefined: no cache).
 */
export function codeCacheFile(bundleFile: string): string | undefined {
  const dir = path.join(os.tmpdir(), `mcnode-code-cache-${process.getuid?.() ?? 'user'}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = lstatSync(dir);
    if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid()) || (stat.mode & 0o022) !== 0) return undefined;
  } catch {
    return undefined;
  }
  return path.join(dir, `${sha256(path.resolve(bundleFile)).toString('hex').slice(0, 16)}.cache`);
}

/** Launch options of Node's own that leave V8's flags (and so the cache's fit) as they are. */
const NODE_ONLY = /^(--import|--require|-r|--loader|--experimental-loader|--enable-source-maps|--input-type|--no-warnings|--trace-warnings|--title|--env-file|-e|--eval|-p|--print)(=|$)/;

/**
 * Whether a run launched with these Node options writes the cache. V8 refuses a cache made under
 * other V8 flags, so a run with V8 flags of its own (`node --expose-gc …`, or in NODE_OPTIONS)
 * keeps the cache it found: otherwise such runs and plain ones would throw each other's away.
 */
export function writesCache(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  const options = (nodeOptions ?? '').split(/\s+/).map((o) => o.replace(/^["']+|["']+$/g, ''));
  return [...execArgv, ...options].filter((o) => o.startsWith('-')).every((o) => NODE_ONLY.test(o));
}

/** Node's own compile cache, on Node 22.8 and later. */
const builtinCache = (nodeModule as { enableCompileCache?: () => { status: number } }).enableCompileCache;
/** enableCompileCache()'s statuses that mean the cache is on. */
const CACHE_ON = [1, 2]; // module.constants.compileCacheStatus ENABLED, ALREADY_ENABLED

/**
 * Runs the bundle with a code cache: Node's own where it has one, else the hand-kept one, which
 * is written when the node announces that it has started if it was not used (its listeners
 * open, before the first requests' work compiles more code and before it changes V8's flags,
 * which would make V8 refuse the cache). Node's cache is flushed to disk at the same moment.
 */
export function startBundle(file: string): void {
  const globals = globalThis as Record<symbol, unknown>;
  if (builtinCache !== undefined) {
    const { status } = builtinCache.call(nodeModule);
    globals[STATE] = CACHE_ON.includes(status) ? 'node' : 'off';
    globals[STARTED_HOOK] = () => (nodeModule as { flushCompileCache?: () => void }).flushCompileCache?.();
    createRequire(file)(file);
    return;
  }
  let run: BundleRun | undefined;
  const mayWrite = writesCache(process.execArgv, process.env.NODE_OPTIONS);
  globals[STARTED_HOOK] = () => {
    if (run && run.state !== 'used' && mayWrite) run.save();
  };
  run = runBundle(file, codeCacheFile(file), (state) => {
    globals[STATE] = state;
  });
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
