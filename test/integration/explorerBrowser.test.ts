// The built-in explorer in a real headless browser (Debian's chromium through playwright-core):
// the page loads without console errors or requests anywhere but the node, the latest blocks
// update live over the WebSocket, search finds blocks, transactions and addresses, and each page
// shows what the node knows of the explorer scenario's transactions (decoded input, internal
// calls, logs, revert reason, console.log lines), an app chain's deposits and withdrawals, mining
// (hash rate, difficulty, the work package) and peers.
// A screenshot of the transaction page is kept in .tap/screenshots/.

import t from 'tap';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT, startNode, waitFor, type TestNode } from '../helpers/node.js';
import { runScenario, type Scenario } from '../helpers/explorerScenario.js';
import { DEV } from '../helpers/accounts.js';
import { startNetNode, waitPeers } from '../helpers/network.js';
import { advanceTo, callTx, dappBaseCode, deployTx, scsOf, sendApp } from '../rpc/scs/scsHelpers.js';
import { contractAddress } from '../../src/chain/transaction.js';
import { bytesToHex, hexToBytes } from '../../src/encoding/hex.js';
import { testDir } from '../helpers/testDir.js';

/** Debian's chromium (CI installs it, .ci/run); CHROMIUM overrides. */
const CHROMIUM = [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
if (!CHROMIUM) t.plan(0, 'chromium not found (apt-get install chromium, or set CHROMIUM): the explorer browser test cannot run');

const SIGNATURES = 'forward(address),make(bytes32),shout(string,uint256),fail(uint256)';
const SHOTS = path.join(ROOT, '.tap', 'screenshots');

/** The app chain: 1 mc buys 1000 tokens; a flush every 20 main-chain blocks settles the records. */
const FLUSH = 20;
const APP_CHAINS = JSON.stringify([{ owner: DEV[0].address, tokenSupply: '0x' + (10n ** 24n).toString(16), exchangeRate: 1000, flushRound: FLUSH }]);
const WITHDRAWN = 500n * 10n ** 18n;

let node: TestNode;
let s: Scenario;
let appChain: string;
/** a deposit settled at the first flush, and one still waiting for the next */
let settled: string;
let deposit: string;

const send = async (tx: Record<string, string>) => {
  const hash = await node.rpc('mc_sendTransaction', [{ from: s.from, gas: '0x30d40', gasPrice: '0x3b9aca00', ...tx }]);
  await waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), 'receipt');
  return hash;
};

t.before(async () => {
  node = await startNode(testDir(t), [
    '--mining.mode', 'instant', '--minerthreads', '1', '--explorer.signatures', SIGNATURES, '--appChains', APP_CHAINS, '--port', '0',
  ]);
  s = await runScenario(node.rpc);
  const scs = scsOf(node);
  appChain = (await scs.rpc('scs_getMicroChainList'))[0];
  // The app chain's story: its DappBase, a deposit settled by a flush, a withdrawal of the tokens it
  // bought (waiting for the next flush), and a second deposit waiting too.
  await sendApp(node, scs, appChain, deployTx(DEV[0].key, { chain: appChain, nonce: 0n }, dappBaseCode()));
  const dappBase = bytesToHex(contractAddress(hexToBytes(DEV[0].address), 0n));
  settled = await send({ to: appChain, data: '0x6bbded70', value: '0xde0b6b3a7640000' }); // 1 mc
  await advanceTo(node, FLUSH);
  const withdrawal = await sendApp(node, scs, appChain, callTx(DEV[0].key, { chain: appChain, nonce: 1n, value: WITHDRAWN }, dappBase, '0x89739c5b'));
  if (withdrawal.status !== '0x1') throw new Error(`the withdrawal failed: ${JSON.stringify(withdrawal)}`);
  deposit = await send({ to: appChain, data: '0x6bbded70', value: '0x3e8' });
});
t.teardown(() => node?.stop());

t.test('the explorer in chromium', async (t) => {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const origin = new URL(node.url).origin;
  const problems: string[] = [];
  const outside: string[] = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.origin !== origin && url.protocol !== 'data:' && !(url.protocol === 'ws:' && url.host === new URL(origin).host)) outside.push(r.url());
  });
  const shortOf = (h: string) => `${h.slice(0, 10)}…${h.slice(-6)}`;
  /** The texts of column `col` of a table's rows (its heading row left out). */
  const cells = (table: string, col: number) =>
    page.$$eval(`${table} tr`, (rows, c) => rows.filter((r) => r.querySelector('td')).map((r) => r.querySelectorAll('td')[c]?.textContent ?? ''), col);
  const idle = () => page.waitForFunction(() => document.body.dataset.page !== 'loading');
  /** Opens a page of the explorer and waits until its heading names `what`. */
  const open = async (hash: string, what: string) => {
    await page.goto(`${node.url}/explorer/${hash}`);
    await page.waitForFunction((w) => document.body.dataset.page !== 'loading' && document.querySelector('h1')?.textContent?.includes(w), what);
  };

  await t.test('the latest blocks, live over the WebSocket', async (t) => {
    await page.goto(`${node.url}/explorer/`);
    await page.waitForSelector('#latest-blocks');
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'live');
    t.match(await page.textContent('#latest-txs'), shortOf(deposit), 'the newest transaction is listed');
    const fresh = await send({ to: s.payee, value: '0x7' });
    await page.waitForFunction((h) => document.getElementById('latest-txs')?.textContent?.includes(h), shortOf(fresh));
    t.pass('a new transaction appears without a reload');
  });

  await t.test('search: a transaction, its block, its internal calls', async (t) => {
    await page.fill('#q', s.make);
    await page.press('#q', 'Enter');
    await page.waitForSelector('#tx-status');
    await idle();
    t.equal(await page.textContent('#tx-status'), 'success');
    t.match(await page.textContent('#decoded-input'), 'make(bytes32)');
    const calls = await page.$$eval('#internal-calls tr', (rows) => rows.slice(1).map((r) => r.querySelector('.tag')?.textContent));
    t.same(calls, ['CREATE', 'CREATE2', 'CALL', 'SELFDESTRUCT']);
    t.match(await page.textContent('#logs'), s.ops.slice(0, 10), 'the Made event of the contract');
    await page.click(`a[href^="#/block/"]`);
    await page.waitForSelector('h1:text("Block")');
    await idle();
    t.match(await page.textContent('main'), shortOf(s.make), 'the block lists the transaction');
    await page.click(`a[href="#/tx/${s.make}"]`);
    await page.waitForSelector('#internal-calls');
    t.pass('and leads back to it');
  });

  await t.test('revert reason and console.log lines', async (t) => {
    await open(`#/tx/${s.fail}`, s.fail);
    t.equal(await page.textContent('#tx-status'), 'failed');
    t.equal(await page.textContent('#revert-reason'), 'ops failed');
    t.equal(await page.textContent('#console-lines'), 'about to fail 3');
    await open(`#/tx/${s.shout}`, s.shout);
    t.equal(await page.textContent('#console-lines'), `hi 5\nsender ${s.from}\ntrue`);
    t.match(await page.textContent('#decoded-input'), 'shout(string,uint256)');
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, 'explorer-transaction.png'), fullPage: true });
  });

  await t.test('an address: balance, nonce, code and its transactions', async (t) => {
    await page.fill('#q', s.ops);
    await page.press('#q', 'Enter');
    await page.waitForSelector('#balance');
    await idle();
    t.equal(await page.textContent('#nonce'), '3', 'CREATE and CREATE2 raised the contract\'s nonce');
    const text = await page.textContent('main');
    for (const h of [s.deploy, s.forward, s.make, s.shout, s.fail]) t.match(text, shortOf(h));
    t.match(text, 'Created by');
    await page.fill('#q', '1');
    await page.press('#q', 'Enter');
    await page.waitForSelector('h1:text("Block 1")');
    t.pass('a block by number');
  });

  await t.test('app chains: blocks, Dapps, deposits and withdrawals', async (t) => {
    await open('#/appchains', 'App chains');
    await page.click(`a[href="#/appchain/${appChain}"]`);
    await page.waitForSelector('#deposits');
    await idle();
    const deposits = await page.textContent('#deposits');
    t.match(deposits, shortOf(settled), 'the settled deposit\'s transaction');
    t.match(deposits, shortOf(deposit), 'the waiting deposit\'s transaction');
    t.same(await cells('#depositing', 0), ['1000'], 'the waiting deposit\'s record');
    t.same(await cells('#withdrawing', 0), [WITHDRAWN.toString()], 'the withdrawal waits for the next flush');
    t.same(await cells('.settled', 0), ['1000000000000000000'], 'the settled deposit, in sha');
    t.same(await cells('#dapps', 1), [bytesToHex(contractAddress(hexToBytes(DEV[0].address), 0n))], 'the DappBase');
    t.ok((await cells('#appchain-blocks', 0)).length >= 2, 'the app chain\'s blocks');
  });

  await t.test('mining and peers', async (t) => {
    await open('#/mining', 'Mining');
    t.equal(await page.textContent('#difficulty'), '512');
    t.equal(await page.textContent('#mining'), 'yes');
    t.match(await page.textContent('#hashrate'), /^\d+ H\/s$/);
    const work = await node.rpc('mc_getWork');
    t.equal(await page.textContent('#work-seal'), work[0], 'the current work package');
    await open('#/peers', 'Peers');
    t.equal(await page.textContent('#peer-count'), '0');
    // A second node peers with this one: the page counts it (admin_peers, which lists it, is not served over HTTP by default).
    const enode = /P2P\s+(enode:\/\/\S+)/.exec(node.stdout())![1];
    const peer = await startNetNode(testDir(t), ['--mining.mode', 'off']);
    t.teardown(() => peer.stop());
    t.equal(await peer.rpc('admin_addPeer', [enode]), true);
    await waitPeers(node, 1, 'the explorer\'s node');
    await page.reload();
    await page.waitForFunction(() => document.body.dataset.page !== 'loading' && document.querySelector('h1')?.textContent?.includes('Peers'));
    t.equal(await page.textContent('#peer-count'), '1', 'the connected peer');
    t.match(await page.textContent('main'), 'add admin to --rpcapi');
    await page.screenshot({ path: path.join(SHOTS, 'explorer-peers.png') });
  });

  t.same(problems, [], 'no console errors');
  t.same(outside, [], 'no request leaves the node');
});
