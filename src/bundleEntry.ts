#!/usr/bin/env node
// The bundle's entry, dist/bundle/cli.js (tools/build.mjs bundles this file alone): runs the
// node's CommonJS bundle beside it, dist/bundle/mcnode.cjs, through its code cache (codeCache.ts).

import { fileURLToPath } from 'node:url';
import { startBundle } from './codeCache.js';
import { tuneHeapGrowth } from './heapTuning.js';

// Before the bundle compiles: V8 refuses a code cache made under other flags, and the node sets
// this one before its cache is written.
tuneHeapGrowth();
startBundle(fileURLToPath(new URL('./mcnode.cjs', import.meta.url)));
