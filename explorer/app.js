// The explorer's pages: a hash router over the node's JSON-RPC (rpc.js). Each page renders into
// <main> from what the node answers; the latest blocks update live from new heads.

import { rpc, scs, watchHeads } from './rpc.js';
import { decodeConsole, decodeInput, revertReason, showValue } from './abi.js';

const CONSOLE = '0x000000000000000000636f6e736f6c652e6c6f67';
const view = document.getElementById('view');
let config = { functions: {}, events: {}, console: {} };
/** what the current page wants on every new head */
let onHead;

// --- rendering helpers -----------------------------------------------------------------

const esc = (v) => String(v).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** A template that escapes its values, except those made by `html` itself. */
function html(strings, ...values) {
  const out = strings.reduce((acc, s, i) => acc + s + (i < values.length ? part(values[i]) : ''), '');
  return { html: out };
}
const part = (v) => (v === undefined || v === null ? '' : Array.isArray(v) ? v.map(part).join('') : typeof v === 'object' && 'html' in v ? v.html : esc(v));
const render = (t) => {
  view.innerHTML = t.html;
};

const num = (q) => (q === null || q === undefined ? '' : BigInt(q).toString());
const short = (h) => (h ? `${h.slice(0, 10)}…${h.slice(-6)}` : '');
const blockLink = (n) => html`<a href="#/block/${num(n)}">${num(n)}</a>`;
const txLink = (h, full = false) => html`<a class="mono" href="#/tx/${h}">${full ? h : short(h)}</a>`;
const addrLink = (a, full = false) => (a ? html`<a class="mono" href="#/address/${a}">${full ? a : short(a)}</a>` : html`<span class="muted">contract creation</span>`);
const ago = (ts) => {
  const s = Math.max(0, Math.floor(Date.now() / 1000) - Number(BigInt(ts)));
  return s < 60 ? `${s}s ago` : s < 3600 ? `${Math.floor(s / 60)}m ago` : `${Math.floor(s / 3600)}h ago`;
};
const DECIMALS = 10n ** 18n;
function mc(value) {
  const v = BigInt(value);
  const whole = v / DECIMALS;
  const frac = (v % DECIMALS).toString().padStart(18, '0').replace(/0+$/, '');
  return `${whole}${frac ? '.' + frac : ''} mc`;
}
const dl = (rows) => html`<dl>${rows.filter(Boolean).map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
const failure = (err) => html`<section class="error">${err.message ?? String(err)}</section>`;

// --- pages ------------------------------------------------------------------------------

async function home() {
  const draw = async () => {
    const head = BigInt(await rpc('eth_blockNumber'));
    const numbers = [];
    for (let n = head; n >= 0n && numbers.length < 12; n--) numbers.push(n);
    const blocks = await Promise.all(numbers.map((n) => rpc('eth_getBlockByNumber', '0x' + n.toString(16), true)));
    const txs = blocks.flatMap((b) => b.transactions.map((tx) => ({ ...tx, timestamp: b.timestamp }))).slice(0, 15);
    render(html`<h1>Latest blocks and transactions</h1>
      <div class="cols">
        <section><h2>Blocks</h2><table id="latest-blocks"><tr><th>Block</th><th>Hash</th><th>Txs</th><th>Miner</th><th>Age</th></tr>
          ${blocks.map((b) => html`<tr><td>${blockLink(b.number)}</td><td class="mono">${short(b.hash)}</td><td>${b.transactions.length}</td><td>${addrLink(b.miner)}</td><td>${ago(b.timestamp)}</td></tr>`)}
        </table></section>
        <section><h2>Transactions</h2><table id="latest-txs"><tr><th>Hash</th><th>Block</th><th>From</th><th>To</th><th>Value</th></tr>
          ${txs.map((tx) => html`<tr><td>${txLink(tx.hash)}</td><td>${blockLink(tx.blockNumber)}</td><td>${addrLink(tx.from)}</td><td>${addrLink(tx.to)}</td><td>${mc(tx.value)}</td></tr>`)}
        </table>${txs.length === 0 ? html`<p class="muted">No transactions in the latest blocks.</p>` : ''}</section>
      </div>`);
  };
  onHead = draw;
  await draw();
}

async function block(id) {
  const b = /^0x[0-9a-fA-F]{64}$/.test(id) ? await rpc('eth_getBlockByHash', id, true) : await rpc('eth_getBlockByNumber', '0x' + BigInt(id).toString(16), true);
  if (!b) return render(html`<h1>Block ${id}</h1><section>Not found.</section>`);
  const details = await rpc('ots_getBlockDetails', Number(BigInt(b.number))).catch(() => undefined);
  render(html`<h1>Block ${num(b.number)}</h1>
    <section>${dl([
      ['Hash', html`<span class="mono">${b.hash}</span>`],
      ['Parent', html`<a class="mono" href="#/block/${b.parentHash}">${b.parentHash}</a>`],
      ['Time', `${new Date(Number(BigInt(b.timestamp)) * 1000).toISOString()} (${ago(b.timestamp)})`],
      ['Miner', addrLink(b.miner, true)],
      ['Transactions', b.transactions.length],
      ['Gas used', `${num(b.gasUsed)} of ${num(b.gasLimit)}`],
      ['Difficulty', num(b.difficulty)],
      ['Total difficulty', num(b.totalDifficulty)],
      details && ['Block reward', mc(details.issuance.blockReward)],
      details && ['Fees', mc(details.totalFees)],
      ['Size', `${num(b.size)} bytes`],
      ['State root', html`<span class="mono">${b.stateRoot}</span>`],
      ['Nonce', html`<span class="mono">${b.nonce}</span>`],
      ['Extra data', html`<span class="mono">${b.extraData}</span>`],
    ])}
    <div class="pager">${BigInt(b.number) > 0n ? html`<a href="#/block/${num(BigInt(b.number) - 1n)}">← previous</a>` : ''}<a href="#/block/${num(BigInt(b.number) + 1n)}">next →</a></div></section>
    <section><h2>Transactions</h2>${txTable(b.transactions)}</section>`);
}

function txTable(txs) {
  if (txs.length === 0) return html`<p class="muted">None.</p>`;
  return html`<table><tr><th>Hash</th><th>From</th><th>To</th><th>Method</th><th>Value</th></tr>
    ${txs.map((tx) => html`<tr><td>${txLink(tx.hash)}</td><td>${addrLink(tx.from)}</td><td>${addrLink(tx.to)}</td><td>${method(tx)}</td><td>${mc(tx.value)}</td></tr>`)}</table>`;
}

function method(tx) {
  if (!tx.to) return html`<span class="tag">create</span>`;
  if (!tx.input || tx.input === '0x') return html`<span class="tag">transfer</span>`;
  const decoded = decodeInput(tx.input, config.functions);
  return decoded ? html`<span class="tag">${decoded.name}</span>` : html`<span class="mono">${tx.input.slice(0, 10)}</span>`;
}

async function transaction(hash) {
  const [tx, receipt] = await Promise.all([rpc('eth_getTransactionByHash', hash), rpc('eth_getTransactionReceipt', hash)]);
  if (!tx) return render(html`<h1>Transaction</h1><section>Transaction <span class="mono">${hash}</span> not found.</section>`);
  const mined = receipt !== null;
  const [frames, error] = mined
    ? await Promise.all([rpc('ots_traceTransaction', hash).catch(() => []), rpc('ots_getTransactionError', hash).catch(() => '0x')])
    : [[], '0x'];
  const ok = mined && receipt.status === '0x1';
  const decoded = decodeInput(tx.input, config.functions);
  const consoleLines = frames.filter((f) => f.to === CONSOLE).map((f) => decodeConsole(f.input, config.console)).filter((l) => l !== undefined);
  const reason = revertReason(error);
  render(html`<h1>Transaction <span class="mono">${hash}</span></h1>
    <section>${dl([
      ['Status', mined ? (ok ? html`<span class="ok" id="tx-status">success</span>` : html`<span class="bad" id="tx-status">failed</span>`) : html`<span id="tx-status">pending</span>`],
      !ok && mined && ['Revert reason', html`<span class="bad" id="revert-reason">${reason ?? (error !== '0x' ? error : 'none given')}</span>`],
      mined && ['Block', blockLink(receipt.blockNumber)],
      ['From', addrLink(tx.from, true)],
      ['To', tx.to ? addrLink(tx.to, true) : html`created ${addrLink(receipt?.contractAddress, true)}`],
      ['Value', mc(tx.value)],
      ['Nonce', num(tx.nonce)],
      mined && ['Gas used', `${num(receipt.gasUsed)} of ${num(tx.gas)} at ${num(tx.gasPrice)} sha`],
    ])}</section>
    <section><h2>Input</h2>${decoded
      ? html`<p id="decoded-input"><b>${decoded.signature}</b></p>${decoded.args ? html`<table>${decoded.args.map((a, i) => html`<tr><th>${i}</th><td>${a.type}</td><td class="mono">${showValue(a.value)}</td></tr>`)}</table>` : ''}`
      : ''}<pre>${tx.input}</pre></section>
    ${consoleLines.length ? html`<section><h2>console.log</h2><pre id="console-lines">${consoleLines.join('\n')}</pre></section>` : ''}
    <section><h2>Internal calls</h2>${callTable(frames)}</section>
    <section><h2>Logs</h2>${logTable(receipt?.logs ?? [])}</section>`);
}

function callTable(frames) {
  if (frames.length <= 1) return html`<p class="muted">None.</p>`;
  return html`<table id="internal-calls"><tr><th>Type</th><th>From</th><th>To</th><th>Value</th><th>Input</th></tr>
    ${frames.slice(1).map((f) => {
      const decoded = f.to === CONSOLE ? undefined : decodeInput(f.input, config.functions);
      return html`<tr><td>${'\u00a0\u00a0'.repeat(f.depth - 1)}<span class="tag">${f.type}</span></td><td>${addrLink(f.from)}</td><td>${f.to === CONSOLE ? html`<span class="tag">console</span>` : addrLink(f.to)}</td><td>${f.value ? mc(f.value) : ''}</td><td class="mono">${decoded ? decoded.name : f.input.slice(0, 10)}</td></tr>`;
    })}</table>`;
}

function logTable(logs) {
  if (logs.length === 0) return html`<p class="muted">None.</p>`;
  return html`<table id="logs"><tr><th>#</th><th>Address</th><th>Event</th><th>Topics and data</th></tr>
    ${logs.map((l) => html`<tr><td>${num(l.logIndex)}</td><td>${addrLink(l.address)}</td><td>${config.events[l.topics[0]] ?? ''}</td><td><pre>${[...l.topics, l.data].join('\n')}</pre></td></tr>`)}</table>`;
}

async function address(addr, before = 0) {
  const a = addr.toLowerCase();
  const [balance, nonce, code, page, creator] = await Promise.all([
    rpc('eth_getBalance', a, 'latest'), rpc('eth_getTransactionCount', a, 'latest'), rpc('eth_getCode', a, 'latest'),
    rpc('ots_searchTransactionsBefore', a, Number(before), 25).catch((err) => ({ error: err })),
    rpc('ots_getContractCreator', a).catch(() => null),
  ]);
  const txs = page.error ? [] : page.txs;
  const oldest = txs.length ? Number(BigInt(txs[txs.length - 1].blockNumber)) : 0;
  render(html`<h1>Address <span class="mono">${a}</span></h1>
    <section>${dl([
      ['Balance', html`<span id="balance">${mc(balance)}</span>`],
      ['Nonce', html`<span id="nonce">${num(nonce)}</span>`],
      ['Code', code === '0x' ? 'none (an account)' : `${(code.length - 2) / 2} bytes`],
      creator && ['Created by', html`${addrLink(creator.creator, true)} in ${txLink(creator.hash)}`],
    ])}${code !== '0x' ? html`<pre class="muted">${code.length > 2000 ? code.slice(0, 2000) + '…' : code}</pre>` : ''}</section>
    <section><h2>Transactions</h2>${page.error ? html`<p class="error">${page.error.message}</p>` : txTable(txs)}
      <div class="pager">${before ? html`<a href="#/address/${a}">newest</a>` : ''}${!page.error && !page.lastPage ? html`<a id="older" href="#/address/${a}/${oldest}">older →</a>` : ''}</div></section>`);
}

async function appChains() {
  let chains;
  try {
    chains = await scs('scs_getMicroChainList');
  } catch (err) {
    return render(html`<h1>App chains</h1><section>The SCS is not running on this node (${err.message}).</section>`);
  }
  const rows = await Promise.all(chains.map(async (c) => ({ c, head: await scs('scs_getBlockNumber', c), dapps: await scs('scs_getDappList', c) })));
  render(html`<h1>App chains</h1><section>${rows.length === 0 ? html`<p class="muted">No app chain.</p>` : html`<table id="appchains"><tr><th>App chain</th><th>Blocks</th><th>Dapps</th></tr>
    ${rows.map((r) => html`<tr><td><a class="mono" href="#/appchain/${r.c}">${r.c}</a></td><td>${num(r.head)}</td><td>${r.dapps.length}</td></tr>`)}</table>`}</section>`);
}

async function appChain(c) {
  const [info, head, dapps, exchange, deposits] = await Promise.all([
    scs('scs_getMicroChainInfo', c), scs('scs_getBlockNumber', c), scs('scs_getDappList', c), scs('scs_getExchangeInfo', c, 0, 50, 0, 50),
    rpc('ots_searchTransactionsBefore', c, 0, 50).catch(() => ({ txs: [], receipts: [] })),
  ]);
  const top = BigInt(head);
  const start = top > 9n ? top - 9n : 0n;
  const list = await scs('scs_getBlockList', c, '0x' + start.toString(16), '0x' + top.toString(16));
  // Deposits are main-chain calls of buyMintToken() on the app chain's address; each depositor's settled records come from the SCS.
  const depositTxs = deposits.txs.filter((tx, i) => tx.input.startsWith('0x6bbded70') && deposits.receipts[i].status === '0x1');
  const users = [...new Set(depositTxs.map((tx) => tx.from))];
  const records = await Promise.all(users.map(async (u) => ({ u, r: await scs('scs_getExchangeByAddress', c, u, 0, 50, 0, 50, 0, 50, 0, 50) })));
  const rec = (list, amt, time) => (list ?? []).map((x) => html`<tr><td>${num(x[amt])}</td><td>${new Date(Number(x[time]) * 1000).toISOString()}</td></tr>`);
  render(html`<h1>App chain <span class="mono">${c}</span></h1>
    <section>${dl([['Owner', html`<span class="mono">${info.owner}</span>`], ['Balance', num(info.balance)], ['Head block', num(head)], ['SCS', (info.scsList ?? []).join(', ')]])}</section>
    <section><h2>Blocks</h2><table id="appchain-blocks"><tr><th>Number</th><th>Hash</th><th>Txs</th><th>Time</th></tr>
      ${[...list.blockList].reverse().map((b) => html`<tr><td>${num(b.number)}</td><td class="mono">${short(b.hash)}</td><td>${b.transactions.length}</td><td>${ago(b.timestamp)}</td></tr>`)}</table></section>
    <section><h2>Dapps</h2><table id="dapps">${dapps.map((d, i) => html`<tr><td>${i === 0 ? 'DappBase' : `Dapp ${i}`}</td><td class="mono">${d}</td></tr>`)}</table></section>
    <section><h2>Deposits</h2><table id="deposits"><tr><th>Main-chain transaction</th><th>From</th><th>Amount</th><th>Block</th></tr>
      ${depositTxs.map((tx) => html`<tr><td>${txLink(tx.hash)}</td><td>${addrLink(tx.from)}</td><td>${mc(tx.value)}</td><td>${blockLink(tx.blockNumber)}</td></tr>`)}</table>
      <h2>Waiting for a flush</h2><table id="depositing"><tr><th>Depositing (sha)</th><th>Time</th></tr>${rec(exchange.DepositingRecords, 'DepositingAmt', 'Depositingtime')}</table>
      <table id="withdrawing"><tr><th>Withdrawing (app-chain units)</th><th>Time</th></tr>${rec(exchange.WithdrawingRecords, 'WithdrawingAmt', 'Withdrawingtime')}</table>
      ${records.map(({ u, r }) => html`<h2>Settled for ${addrLink(u)}</h2>
        <table class="settled"><tr><th>Deposit (sha)</th><th>Time</th></tr>${rec(r.DepositRecords, 'DepositAmt', 'Deposittime')}</table>
        <table class="settled"><tr><th>Withdraw (app-chain units)</th><th>Time</th></tr>${rec(r.WithdrawRecords, 'WithdrawAmt', 'Withdrawtime')}</table>`)}
    </section>`);
}

async function mining() {
  const draw = async () => {
    const [isMining, hashrate, head, coinbase] = await Promise.all([rpc('eth_mining'), rpc('eth_hashrate'), rpc('eth_getBlockByNumber', 'latest', false), rpc('eth_coinbase').catch(() => null)]);
    const work = await rpc('eth_getWork').catch((err) => ({ error: err }));
    render(html`<h1>Mining</h1><section>${dl([
      ['Mining', html`<span id="mining">${isMining ? 'yes' : 'no'}</span>`],
      ['Hash rate', html`<span id="hashrate">${num(hashrate)} H/s</span>`],
      ['Difficulty', html`<span id="difficulty">${num(head.difficulty)}</span>`],
      ['Head', blockLink(head.number)],
      coinbase && ['Coinbase', addrLink(coinbase, true)],
    ])}</section>
    <section><h2>Current work package</h2>${work.error ? html`<p class="muted">${work.error.message}</p>` : dl([
      ['Seal hash', html`<span class="mono" id="work-seal">${work[0]}</span>`], ['Seed hash', html`<span class="mono">${work[1]}</span>`], ['Target', html`<span class="mono">${work[2]}</span>`],
    ])}</section>`);
  };
  onHead = draw;
  await draw();
}

async function peers() {
  const [count, listening] = await Promise.all([rpc('net_peerCount'), rpc('net_listening')]);
  const list = await rpc('admin_peers').catch((err) => ({ error: err }));
  render(html`<h1>Peers</h1><section>${dl([['Connected', html`<span id="peer-count">${num(count)}</span>`], ['Listening', String(listening)]])}</section>
    <section><h2>Peer list</h2>${list.error
      ? html`<p class="muted">admin_peers is not served over HTTP here (${list.error.message}); add admin to --rpcapi to list them.</p>`
      : list.length === 0 ? html`<p class="muted">No peers.</p>`
      : html`<table id="peers"><tr><th>Name</th><th>Address</th><th>Head</th></tr>${list.map((p) => html`<tr><td>${p.name}</td><td class="mono">${p.network.remoteAddress}</td><td class="mono">${short(p.protocols.mc?.head)}</td></tr>`)}</table>`}</section>`);
}

// --- search and routing -------------------------------------------------------------------

async function search(text) {
  const q = text.trim();
  if (/^\d+$/.test(q)) return `#/block/${q}`;
  if (/^0x[0-9a-fA-F]{40}$/.test(q)) return `#/address/${q.toLowerCase()}`;
  if (/^0x[0-9a-fA-F]{64}$/.test(q)) {
    if (await rpc('eth_getTransactionByHash', q)) return `#/tx/${q.toLowerCase()}`;
    if (await rpc('eth_getBlockByHash', q, false)) return `#/block/${q.toLowerCase()}`;
  }
  return `#/notfound/${encodeURIComponent(q)}`;
}

const ROUTES = [
  [/^#?\/?$/, () => home()],
  [/^#\/block\/(\w+)$/, (m) => block(m[1])],
  [/^#\/tx\/(0x[0-9a-fA-F]{64})$/, (m) => transaction(m[1])],
  [/^#\/address\/(0x[0-9a-fA-F]{40})(?:\/(\d+))?$/, (m) => address(m[1], m[2])],
  [/^#\/appchains$/, () => appChains()],
  [/^#\/appchain\/(0x[0-9a-fA-F]{40})$/, (m) => appChain(m[1])],
  [/^#\/mining$/, () => mining()],
  [/^#\/peers$/, () => peers()],
  [/^#\/notfound\/(.*)$/, (m) => render(html`<h1>Not found</h1><section>Nothing matches <span class="mono">${decodeURIComponent(m[1])}</span>: search a block number, a block or transaction hash, or an address.</section>`)],
];

async function route() {
  onHead = undefined;
  const hash = location.hash || '#/';
  const found = ROUTES.find(([re]) => re.test(hash));
  document.body.dataset.page = 'loading';
  try {
    if (found) await found[1](hash.match(found[0]));
    else render(html`<h1>Not found</h1>`);
  } catch (err) {
    render(failure(err));
  }
  document.body.dataset.page = hash.split('/')[1] || 'home';
}

document.getElementById('search').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = document.getElementById('q');
  location.hash = await search(input.value);
  input.value = '';
});
window.addEventListener('hashchange', route);

const status = document.getElementById('status');
let drawing = false;
watchHeads(async (header) => {
  status.title = `head ${num(header.number)}`;
  if (!onHead || drawing) return;
  drawing = true;
  try {
    await onHead(header);
  } finally {
    drawing = false;
  }
}, (text, live) => {
  status.textContent = text;
  status.classList.toggle('live', live);
});

config = await (await fetch('config.json')).json();
route();
