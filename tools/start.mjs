#!/usr/bin/env node
// `npm start`: compile only if a source changed since the last build, then run the node in this
// same process (one Node start-up, not two). Flags after `npm start --` reach the CLI unchanged.

import { ensureBuilt } from './build.mjs';

if (!ensureBuilt()) process.exit(1);
await import('../dist/src/cli.js');
