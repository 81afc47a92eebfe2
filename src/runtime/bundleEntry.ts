#!/usr/bin/env node
// The bundle's entry, dist/bundle/cli.js (tools/build.mjs bundles this file alone): runs the
// node's CommonJS bundle beside it, dist/bundle/mcnode.cjs, with a code cache (codeCache.ts).

import { fileURLToPath } from 'node:url';
import { startBundle } from './codeCache.js';

startBundle(fileURLToPath(new URL('./mcnode.cjs', import.meta.url)));
