// The docs hold together: every relative link in the README, docs/, bench/RESULTS.md and the
// changelog reaches a file (and, with `#anchor`, a heading of it), every repository file the
// README and docs/ name exists, every docs page is linked from its index, and every code comment
// that cites a docs page names one that exists. Comments cite docs pages, not README sections:
// the README is a front page and its sections move.

import t from 'tap';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { testDir } from '../helpers/testDir.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Markdown whose links are checked, relative to the repository root. */
const MARKDOWN_ROOTS = ['README.md', 'CHANGELOG.md', 'bench/RESULTS.md', 'docs'];
/** Code whose comments may cite docs pages. */
const CODE_ROOTS = ['src', 'workers', 'tools', 'bench', 'bin', 'Dockerfile', 'docker-compose.testnet.yml'];
const CODE_FILE = /\.(ts|mts|cts|js|mjs|cjs)$|^Dockerfile$|\.ya?ml$/;

function filesUnder(root: string, entry: string, keep: (name: string) => boolean): string[] {
  const full = path.join(root, entry);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return keep(path.basename(full)) ? [entry] : [];
  return readdirSync(full).sort().flatMap((name) => filesUnder(root, path.join(entry, name), keep));
}

/** The text outside fenced code blocks, line by line (fenced lines become empty: line numbers hold). */
function proseLines(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence !== undefined) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) fence = undefined;
      return '';
    }
    if (m) {
      fence = m[1];
      return '';
    }
    return line;
  });
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML tags
    .replace(/[`*]/g, '');
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, '').replace(/ /g, '-');
}

/** Every anchor the headings of a markdown text define, duplicates numbered as GitHub does. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(text)) {
    const m = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

interface Link {
  line: number;
  target: string;
}

/** Inline links and images, and reference definitions, outside code. */
export function linksOf(text: string): Link[] {
  const links: Link[] = [];
  proseLines(text).forEach((raw, i) => {
    const line = raw.replace(/(`+)(?:(?!\1).)*?\1/g, ''); // code spans
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line: i + 1, target: m[1] });
    const def = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
    if (def) links.push({ line: i + 1, target: def[1] });
  });
  return links;
}

/** What is wrong with the relative links of the markdown file `file` (relative to `root`). */
export function brokenLinks(root: string, file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  const problems: string[] = [];
  for (const { line, target } of linksOf(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const hash = target.indexOf('#');
    const filePart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? undefined : target.slice(hash + 1);
    const resolved = filePart === '' ? file : path.normalize(path.join(path.dirname(file), filePart));
    const where = `${file}:${line}: ${target}`;
    if (resolved.startsWith('..') || !existsSync(path.join(root, resolved))) {
      problems.push(`${where}: no file ${resolved}`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!resolved.endsWith('.md')) {
      problems.push(`${where}: an anchor into a file that is not markdown`);
      continue;
    }
    if (!anchorsOf(readFileSync(path.join(root, resolved), 'utf8')).has(anchor)) problems.push(`${where}: no heading #${anchor} in ${resolved}`);
  }
  return problems;
}

const DOC_REFERENCE = /\b((?:docs\/[\w./-]+|bench\/RESULTS)\.md)(?:#([\w-]+))?/g;
/** A README section cited the old way: README "Running it", README, "Methods served". */
const README_CITATION = /\bREADME,?\s*"/;
/** The same, wrapped: `(README` ending a comment line and `"Resident memory")` opening the next. */
const README_AT_END = /\bREADME,?\s*$/;
const OPENS_WITH_QUOTE = /^\s*(?:\/\/|\*|#)?\s*"/;

/** What is wrong with the docs citations of the code file `file` (relative to `root`). */
export function brokenCitations(root: string, file: string): string[] {
  const problems: string[] = [];
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
  lines.forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    const wrapped = README_AT_END.test(line) && OPENS_WITH_QUOTE.test(lines[i + 1] ?? '');
    if (README_CITATION.test(line) || wrapped) problems.push(`${where}: cites a README section; cite the docs page that holds the topic`);
    for (const m of line.matchAll(DOC_REFERENCE)) {
      const [, page, anchor] = m;
      if (!existsSync(path.join(root, page))) problems.push(`${where}: no page ${page}`);
      else if (anchor !== undefined && !anchorsOf(readFileSync(path.join(root, page), 'utf8')).has(anchor)) {
        problems.push(`${where}: no heading #${anchor} in ${page}`);
      }
    }
  });
  return problems;
}

/** A repository file or folder a page names, in code or prose: `src/rpc/http.ts`, test/unit/. */
const REPO_PATH = /(?<![\w/.<-])((?:src|test|tools|bench|workers|bin|config)\/[\w./-]*\w)(?!\w)/g;

/** Repository paths a markdown file names that do not exist (globs such as `fastCall.*.test.ts` are skipped). */
export function missingPaths(root: string, file: string): string[] {
  const problems: string[] = [];
  proseLines(readFileSync(path.join(root, file), 'utf8')).forEach((line, i) => {
    for (const m of line.matchAll(REPO_PATH)) {
      if (/^[\w./-]*[*{]/.test(line.slice(m.index + m[1].length))) continue; // a glob: fastCall.*.test.ts
      if (!existsSync(path.join(root, m[1]))) problems.push(`${file}:${i + 1}: no ${m[1]}`);
    }
  });
  return problems;
}

const markdownFiles = (root: string) => MARKDOWN_ROOTS.flatMap((e) => filesUnder(root, e, (n) => n.endsWith('.md')));
const codeFiles = (root: string) => CODE_ROOTS.flatMap((e) => filesUnder(root, e, (n) => CODE_FILE.test(n)));

t.test('anchors follow GitHub\'s rules', async (t) => {
  t.equal(slug('Application chains (SCS)'), 'application-chains-scs');
  t.equal(slug('`scs_*` methods (the `rpc` variant)'), 'scs_-methods-the-rpc-variant');
  t.equal(slug('2026-11-27: soak, 30 minutes, at 7069071'), '2026-11-27-soak-30-minutes-at-7069071');
  t.equal(slug('Unlocking and [HTTP](x.md) — geth\'s rule'), 'unlocking-and-http--geths-rule');
  t.same([...anchorsOf('# A\n## Notes\n```\n# not a heading\n```\n### Notes\n')], ['a', 'notes', 'notes-1']);
});

t.test('the checker finds broken links, missing anchors, missing files and README citations', async (t) => {
  const root = testDir(t, {
    'README.md': [
      '# Top', '[ok](docs/a.md) [ok](docs/a.md#first-part) [ok](#top) [web](https://example.org/x.md)',
      '[gone](docs/missing.md) [bad anchor](docs/a.md#nothing) `[in code](docs/missing.md)`',
      '```', '[fenced](docs/missing.md)', '```', '[ref]: docs/other.md',
    ].join('\n'),
    docs: { 'a.md': '# First part\n[up](../README.md#top) [self](#second)\nSee `src/x.ts`, src/gone.ts and `test/unit/x.*.test.ts`.\n' },
    src: {
      'x.ts': '// see docs/a.md#first-part and docs/a.md\n// README "Running it"\n// docs/b.md\n// README, "Methods served"\n// docs/a.md#missing\n' +
        '/** kept (README\n * "Resident memory"). The README is the front page. */\n',
    },
  });
  t.same(brokenLinks(root, 'README.md'), [
    'README.md:3: docs/missing.md: no file docs/missing.md',
    'README.md:3: docs/a.md#nothing: no heading #nothing in docs/a.md',
    'README.md:7: docs/other.md: no file docs/other.md',
  ]);
  t.same(brokenLinks(root, 'docs/a.md'), ['docs/a.md:2: #second: no heading #second in docs/a.md']);
  t.same(missingPaths(root, 'docs/a.md'), ['docs/a.md:3: no src/gone.ts']);
  t.same(brokenCitations(root, 'src/x.ts'), [
    'src/x.ts:2: cites a README section; cite the docs page that holds the topic',
    'src/x.ts:3: no page docs/b.md',
    'src/x.ts:4: cites a README section; cite the docs page that holds the topic',
    'src/x.ts:5: no heading #missing in docs/a.md',
    'src/x.ts:6: cites a README section; cite the docs page that holds the topic',
  ]);
});

t.test('every relative link in the README, docs/, bench/RESULTS.md and CHANGELOG.md resolves', async (t) => {
  const files = markdownFiles(ROOT);
  t.ok(files.includes('README.md') && files.includes('CHANGELOG.md') && files.includes('bench/RESULTS.md'), 'the front files are there');
  t.ok(files.filter((f) => f.startsWith('docs/')).length >= 10, `${files.length} markdown files checked`);
  t.same(files.flatMap((f) => brokenLinks(ROOT, f)), []);
});

t.test('the files and folders the README and docs/ name exist', async (t) => {
  // bench/RESULTS.md and the changelog record history: the files they name may have moved since.
  const pages = markdownFiles(ROOT).filter((f) => f === 'README.md' || f.startsWith('docs/'));
  t.same(pages.flatMap((f) => missingPaths(ROOT, f)), []);
});

t.test('every docs page is linked from its index', async (t) => {
  const linked = (file: string) => new Set(
    linksOf(readFileSync(path.join(ROOT, file), 'utf8'))
      .map((l) => path.normalize(path.join(path.dirname(file), l.target.split('#')[0])))
  );
  const fromReadme = linked('README.md');
  const userPages = readdirSync(path.join(ROOT, 'docs')).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`);
  t.same(userPages.filter((p) => !fromReadme.has(p)), [], 'the README links every page in docs/');
  const fromIndex = linked('docs/README.md');
  t.same(userPages.filter((p) => p !== 'docs/README.md' && !fromIndex.has(p)), [], 'docs/README.md links every page beside it');
  const fromDesignIndex = linked('docs/design/README.md');
  const designPages = readdirSync(path.join(ROOT, 'docs/design')).filter((n) => n.endsWith('.md') && n !== 'README.md').map((n) => `docs/design/${n}`);
  t.same(designPages.filter((p) => !fromDesignIndex.has(p)), [], 'docs/design/README.md links every design page');
});

t.test('code comments cite docs pages that exist, and no README sections', async (t) => {
  const files = codeFiles(ROOT);
  t.ok(files.length > 100, `${files.length} code files checked`);
  t.same(files.flatMap((f) => brokenCitations(ROOT, f)), []);
});
