// "One place for each rule", where a linter cannot see it: the text a rule produces is written by
// the one module that owns the rule, and nowhere else in src/.

import t from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []);
}

/** Source lines matching `pattern`, outside comments, in files other than `owner`. */
function offenders(pattern: RegExp, owner: string): string[] {
  const found: string[] = [];
  for (const file of sources(SRC)) {
    const rel = path.relative(SRC, file);
    if (rel === owner) continue;
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      const code = line.replace(/^\s*(\/\/|\*|\/\*).*$/, '');
      if (pattern.test(code)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
    });
  }
  return found;
}

t.test('only rpc/params.ts writes "invalid argument N"', async (t) => {
  t.same(offenders(/invalid argument/, 'rpc/params.ts'), [], 'other modules throw ParamError(argument, reason)');
});

t.test('one list of hardforks: chain/hardforks.ts', async (t) => {
  t.same(offenders(/'homestead',\s*'tangerineWhistle'/, 'chain/hardforks.ts'), [], 'others import HARDFORKS or isHardfork');
});

t.test('one revert-reason decoder: execution/revertReason.ts', async (t) => {
  t.same(offenders(/08c379a0|4e487b71/i, 'execution/revertReason.ts'), [], 'others call decodeRevertReason');
});
