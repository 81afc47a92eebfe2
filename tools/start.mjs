#!/usr/bin/env node
// `npm start`: compile only if a source of the node changed since the last build, then run the
// node in this same process (one Node start-up, not two). Flags after `npm start --` reach the
// CLI unchanged. It runs the bundle (dist/bundle/cli.js and its code cache, see tools/build.mjs)
// when there is one, else dist/src/cmd/cli.js. Kept small: everything here is paid on every start.

import { existsSync } from 'node:fs';
import { BUNDLE_DIR, NODE_SOURCE_DIRS, ensureBuilt } from './build.mjs';

if (!(await ensureBuilt(NODE_SOURCE_DIRS))) process.exit(1);
if (existsSync(`${BUNDLE_DIR}/cli.js`)) await import('../dist/bundle/cli.js');
else await import('../dist/src/cmd/cli.js');
