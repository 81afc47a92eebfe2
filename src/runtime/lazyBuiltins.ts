// Node built-ins that only some paths use (block files, Ethash workers, --metrics, the heap flag
// set after start-up), required on first use: imported at the top of their modules they cost
// every start ~1-2 ms each.

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const zlib = (): typeof import('node:zlib') => require('node:zlib');
export const workerThreads = (): typeof import('node:worker_threads') => require('node:worker_threads');
export const v8 = (): typeof import('node:v8') => require('node:v8');
export const perfHooks = (): typeof import('node:perf_hooks') => require('node:perf_hooks');
