#!/usr/bin/env node
// `npm start` (through bin/mcnode, which starts Node with the memory settings): compile only if a
// source changed since the last build, then run the node in this same process (one Node
// start-up, not two). Flags after `npm start --` reach the CLI unchanged.
// It runs the bundle (dist/bundle/cli.js, see tools/build.mjs) when there is one, else dist/src/cli.js.

import { existsSync } from 'node:fs';
import { BUNDLE_DIR, ensureBuilt } from './build.mjs';

if (!(await ensureBuilt())) process.exit(1);
if (existsSync(`${BUNDLE_DIR}/cli.js`)) await import('../dist/bundle/cli.js');
else await import('../dist/src/cli.js');
