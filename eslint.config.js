// The conventions the code already follows, enforced (`npm test` runs `npm run lint`): promises
// are awaited or voided on purpose, nothing is left unused, no TypeScript enums (`as const`
// objects instead), strict equality, and the layer rules of the style guide that an import can
// break (docs/design/README.md#code-layout).
import tseslint from 'typescript-eslint';

/** Folders of src/ that sit below the chain's moving parts: pure data, rules, storage, state and execution. */
const LOW = ['encoding', 'chain', 'consensus', 'store', 'state', 'execution'];
const ABOVE_LOW = ['blockchain', 'txpool', 'filters', 'miner', 'devControls', 'importer', 'chainFile', 'sync', 'p2p', 'scs', 'rpc', 'node', 'cmd'];

/** A restriction of relative imports into `folders` (any depth). */
const into = (folders, message) => folders.map((f) => ({ group: [`**/${f}/**`], message }));

const library = (name, allowed) => ({ name, message: `only ${allowed} imports ${name}` });

/** Restrictions for a file under src/<folder>/. */
function restrictions(folder) {
  const paths = [];
  const patterns = [];
  if (folder !== 'rpc') paths.push(library('jayson', 'src/rpc/'));
  if (folder !== 'p2p') paths.push(library('@ethereumjs/devp2p', 'src/p2p/'));
  if (folder !== 'miner') paths.push(library('piscina', 'src/miner/sealer.ts'));
  // Only rpc/ knows JSON-RPC; the composition root, the CLI and the config table read it.
  if (!['rpc', 'node', 'cmd', 'config'].includes(folder)) patterns.push(...into(['rpc'], 'only rpc/ (and node/, cmd/) know JSON-RPC'));
  if (LOW.includes(folder)) patterns.push(...into(ABOVE_LOW.filter((f) => f !== 'rpc'), `src/${folder}/ sits below the chain, the pool, the miner and the node`));
  return { paths, patterns };
}

const FOLDERS = ['accounts', 'admin', 'blockchain', 'chain', 'chainFile', 'cmd', 'config', 'consensus', 'devControls', 'encoding',
  'execution', 'filters', 'fixture', 'importer', 'metrics', 'miner', 'node', 'p2p', 'rpc', 'runtime', 'scs', 'state', 'store', 'sync',
  'tracing', 'txpool'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', '.tap/**', 'test/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-restricted-syntax': ['error', { selector: 'TSEnumDeclaration', message: 'use an `as const` object instead of an enum' }],
    },
  },
  ...FOLDERS.map((folder) => ({ files: [`src/${folder}/**/*.ts`], rules: { 'no-restricted-imports': ['error', restrictions(folder)] } })),
  // The sealer alone drives the worker pool.
  { files: ['src/miner/**/*.ts'], ignores: ['src/miner/sealer.ts'], rules: { 'no-restricted-imports': ['error', { paths: [library('piscina', 'src/miner/sealer.ts')], patterns: into(['rpc'], 'only rpc/ (and node/, cmd/) know JSON-RPC') }] } },
  // Workers run the pure proof-of-work functions and byte helpers only.
  { files: ['workers/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '/src/(?!consensus/|encoding/)', message: 'workers import only src/consensus/ and src/encoding/' }] }] } },
);
