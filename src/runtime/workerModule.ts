// Where a compiled worker module sits: dist/workers/<name>.js, whether this code runs in the bundle
// (dist/bundle/mcnode.cjs), compiled (dist/src/runtime/) or from sources (tests load src/*.ts; the
// workers still run compiled).

import { fileURLToPath } from 'node:url';

export function workerModule(name: string): string {
  const here = new URL(import.meta.url);
  const dir = here.pathname.endsWith('.ts') ? '../../dist/workers/' : here.pathname.endsWith('.cjs') ? '../workers/' : '../../workers/';
  return fileURLToPath(new URL(`${dir}${name}.js`, here));
}
