// The package as a stranger gets it (docs/library.md, README "Use it from npm"): `npm pack` of a
// copy of the tree, `npm install <tarball>` into an empty project, then the `mcnode` command
// (`npx mcnode`, its --help and subcommands) and `startNode` through ethers and viem, with the
// types checked by tsc. Packed once for the file (PACKAGE_TARBALL: a tarball packed already, as
// CI does for the Node 24 smoke). Runs on the Node running the tests.

import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OPTIONS } from '../../src/config/schema.js';
import { ROOT, postJson } from '../helpers/node.js';
import { checkoutVersion, packedTarball, projectWith } from '../helpers/package.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'mcpack-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const tarball = packedTarball(work);
const project = projectWith([tarball, `ethers@${checkoutVersion('ethers')}`, `viem@${checkoutVersion('viem')}`]);
t.teardown(() => rmSync(project, { recursive: true, force: true }));
const installed = path.join(project, 'node_modules', 'mcnode');

/** Every file under `dir`, relative, with its size and modification time. */
function snapshot(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort().map((f) => {
    const s = statSync(path.join(dir, f));
    return `${f} ${s.isDirectory() ? 'dir' : s.size} ${s.mtimeMs}`;
  });
}

/** `npx mcnode <args>` in the project, to the end. */
const mcnode = (args: string[], cwd = project) => spawnSync('npx', ['mcnode', ...args], { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });

t.test('the tarball: the built node, workers, presets, docs, README, LICENSE and CHANGELOG; no sources, tests or tools', async (t) => {
  const listed = spawnSync('tar', ['tzf', tarball], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));
  for (const file of [
    'package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'bin/mcnode.js', 'config/devnet.json', 'config/testnet.json',
    'dist/bundle/cli.js', 'dist/bundle/mcnode.cjs', 'dist/src/cmd/cli.js', 'dist/src/library/index.js', 'dist/src/library/index.d.ts',
    'dist/src/library/childEntry.js', 'dist/workers/powSearch.js', 'dist/workers/sealSearch.js', 'docs/README.md', 'docs/library.md',
  ]) t.ok(listed.includes(file), `ships ${file}`);
  const unwanted = listed.filter((f) => /^(src|test|tools|bench|data|workers|\.ci)\//.test(f) || /^dist\/(bench|tools)\//.test(f) ||
    (/\.ts$/.test(f) && !f.endsWith('.d.ts')) || /\.(map|cache)$/.test(f) || /tsconfig|Dockerfile|docker-compose|package-lock/.test(f));
  t.same(unwanted, [], 'nothing else');
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
  t.notOk(manifest.private, 'not private');
  t.same(Object.keys(manifest.scripts).filter((s) => /^(pre|post)?install$|^prepare$/.test(s)), [], 'no install script');
  t.match(manifest.engines, { node: '>=20' });
  t.same(manifest.bin, { mcnode: 'bin/mcnode.js' });
  t.match(manifest.exports['.'], { types: './dist/src/library/index.d.ts' });
  // Its own files, that is: npm may nest a dependency under it (node_modules/mcnode/node_modules).
  const files = snapshot(installed).map((l) => l.split(' ')[0])
    .filter((f) => !f.startsWith('node_modules') && !statSync(path.join(installed, f)).isDirectory());
  t.same(files.sort(), [...listed].sort(), 'the install added nothing (no build, no install script)');
});

t.test('npx mcnode --help lists every flag', async (t) => {
  const help = mcnode(['--help']);
  t.equal(help.status, 0);
  const missing = OPTIONS.filter((o) => !help.stdout.includes(`--${o.key}`)).map((o) => o.key);
  t.same(missing, [], `all ${OPTIONS.length} options`);
  t.match(help.stdout, /mcnode init <genesis\.json>/);
});

t.test('npx mcnode starts a devnet in ./data/devnet of the working directory, and writes nothing in node_modules', async (t) => {
  const before = snapshot(installed);
  const proc = spawn('npx', ['mcnode', '--rpcport', '0', '--scsrpcport', '0'], { cwd: project, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  const stop = () => new Promise<void>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once('exit', () => resolve());
    process.kill(-proc.pid!, 'SIGTERM'); // npx and the node
  });
  t.teardown(stop);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 120 s:\n${out}`)), 120_000);
    proc.stdout!.on('data', () => {
      const http = /HTTP\s+(http:\/\/\S+)/.exec(out);
      if (http && /\nSCS\s+\S/.test(out)) {
        clearTimeout(timer);
        resolve(http[1]);
      }
    });
    proc.once('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
  });
  t.match(out, /^mcnode \d+\.\d+\.\d+ — /m, 'the banner');
  t.match(out, /^datadir \.\/data\/devnet$/m);
  t.match(out, /Dev accounts \(10\), unlocked, funded in genesis\./);
  t.equal((await postJson(url, { jsonrpc: '2.0', id: 1, method: 'mc_chainId', params: [] })).result, '0x64');
  const [from] = (await postJson(url, { jsonrpc: '2.0', id: 2, method: 'mc_accounts', params: [] })).result;
  const sent = await postJson(url, { jsonrpc: '2.0', id: 3, method: 'mc_sendTransaction', params: [{ from, to: '0x' + '42'.repeat(20), value: '0x1' }] });
  t.match(sent.result, /^0x[0-9a-f]{64}$/, 'a transfer: the EVM, signing and the pool load from the package');
  await stop();
  t.ok(existsSync(path.join(project, 'data/devnet/chaindata/CURRENT')), 'the chain is in ./data/devnet');
  t.same(snapshot(installed), before, 'nothing written inside node_modules/mcnode');
});

t.test('the subcommands from the installed package: account, fixture, export, init, import', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcsub-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'password'), 'secret\n');
  const made = mcnode(['account', 'new', '--datadir', path.join(dir, 'keys'), '--password', path.join(dir, 'password'), '--lightkdf']);
  t.equal(made.status, 0, made.stderr);
  const address = /^Address: \{([0-9a-f]{40})\}$/m.exec(made.stdout)?.[1];
  t.ok(address, 'account new printed the address');
  t.match(mcnode(['account', 'list', '--datadir', path.join(dir, 'keys')]).stdout.toLowerCase(), address!.toLowerCase(), 'account list');

  cpSync(path.join(ROOT, 'test/fixtures/chains/transfers.json'), path.join(dir, 'transfers.json'));
  const built = mcnode(['fixture', path.join(dir, 'transfers.json'), '--datadir', path.join(dir, 'a')]);
  t.equal(built.status, 0, built.stderr);
  const head = /^head (#\d+ 0x[0-9a-f]{64})$/m.exec(built.stdout)?.[1];
  t.ok(head, 'fixture printed the head');
  t.equal(mcnode(['export', path.join(dir, 'chain.rlp'), '--datadir', path.join(dir, 'a')]).status, 0, 'export');
  t.equal(mcnode(['init', path.join(dir, 'a', 'genesis.json'), '--datadir', path.join(dir, 'b')]).status, 0, 'init');
  const imported = mcnode(['import', path.join(dir, 'chain.rlp'), '--datadir', path.join(dir, 'b')]);
  t.equal(imported.status, 0, imported.stderr);
  t.match(imported.stdout, head!.split(' ')[1], 'import reached the same head');
});

t.test('startNode from the installed package, through ethers and viem, with its types', async (t) => {
  writeFileSync(path.join(project, 'use.mjs'), `
import { startNode } from 'mcnode';
import { BrowserProvider } from 'ethers';
import { createPublicClient, createWalletClient, custom, defineChain } from 'viem';

const node = await startNode({ mining: { mode: 'instant' } });
const out = { rpcUrl: node.rpcUrl, chainId: node.chainId, accounts: node.accounts.length };
const provider = new BrowserProvider(node.provider);
out.ethersChainId = String((await provider.getNetwork()).chainId);
const signer = await provider.getSigner(node.accounts[0].address);
const receipt = await (await signer.sendTransaction({ to: node.accounts[1].address, value: 5n })).wait();
out.ethersStatus = receipt.status;
const chain = defineChain({ id: node.chainId, name: 'mcnode', nativeCurrency: { name: 'mc', symbol: 'MC', decimals: 18 }, rpcUrls: { default: { http: [node.rpcUrl] } } });
const client = createPublicClient({ chain, transport: custom(node.provider) });
const wallet = createWalletClient({ chain, transport: custom(node.provider), account: node.accounts[0].address });
const hash = await wallet.sendTransaction({ to: node.accounts[2].address, value: 7n });
out.viemStatus = (await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status;
out.viemBalance = String(await client.getBalance({ address: node.accounts[2].address }));
out.blockNumber = String(await client.getBlockNumber({ cacheTime: 0 })); // viem caches it for 4 s by default
await node.stop();
out.datadirRemoved = !(await import('node:fs')).existsSync(node.datadir);
console.log(JSON.stringify(out));
`);
  const run = spawnSync(process.execPath, ['use.mjs'], { cwd: project, encoding: 'utf8', timeout: 120_000 });
  t.equal(run.status, 0, run.stderr);
  const out = JSON.parse(run.stdout.trim().split('\n').pop()!);
  t.match(out, {
    rpcUrl: /^http:\/\/127\.0\.0\.1:\d+$/, chainId: 100, accounts: 10, ethersChainId: '100', ethersStatus: 1,
    viemStatus: 'success', viemBalance: String(10n ** 24n + 7n), blockNumber: '2', datadirRemoved: true,
  });

  // The declarations: a TypeScript user's code type-checks against them, and a wrong option does not.
  writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: ['node'], typeRoots: [path.join(ROOT, 'node_modules/@types')] },
    files: ['typed.ts'],
  }));
  const tsc = (code: string) => {
    writeFileSync(path.join(project, 'typed.ts'), code);
    return spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: project, encoding: 'utf8' });
  };
  const good = tsc(`import { startNode, type RunningNode, type StartNodeOptions } from 'mcnode';
const options: StartNodeOptions = { mining: { mode: 'instant', period: 1 }, rpc: { port: 0 }, chain: 'devnet', verbosity: 1 };
const node: RunningNode = await startNode(options);
const n: number = node.chainId;
const url: string | undefined = node.rpcUrl;
const block: unknown = await node.provider.request({ method: 'eth_blockNumber' });
await node.stop();
export { n, url, block };
`);
  t.equal(good.status, 0, good.stdout + good.stderr);
  const bad = tsc(`import { startNode } from 'mcnode';
await startNode({ mining: { period: true } });
`);
  t.not(bad.status, 0, 'a wrongly typed option is a type error');
  t.match(bad.stdout, /typed\.ts\(2,/);
});
