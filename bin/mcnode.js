#!/usr/bin/env node
// The `mcnode` command (package.json "bin"): the bundle with its code cache (dist/bundle/cli.js,
// see tools/build.mjs) when the build made one, else the compiled CLI. It never compiles: after a
// clone or a change, `npm start` or `npm run build` does.

import { existsSync } from 'node:fs';

const bundle = new URL('../dist/bundle/cli.js', import.meta.url);
const compiled = new URL('../dist/src/cmd/cli.js', import.meta.url);
if (existsSync(bundle)) await import(bundle.href);
else if (existsSync(compiled)) await import(compiled.href);
else {
  process.stderr.write('mcnode: not built yet: run `npm run build` (or `npm start`) in the package first\n');
  process.exit(1);
}
