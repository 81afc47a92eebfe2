// Where a compiled worker module sits: dist/workers/<name>.js, whether this code runs compiled
// (dist/src/…) or from sources (tests load src/*.ts, the workers still run compiled).

import { fileURLToPath } from 'node:url';

export function workerModule(name: string): string {
  const here = new URL(import.meta.url);
  const dir = here.pathname.endsWith('.ts') ? '../dist/workers/' : '../workers/';
  return fileURLToPath(new URL(`${dir}${name}.js`, here));
}
