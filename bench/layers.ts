// Where the time of one request goes, layer by layer (`BENCH_ONLY=layers`). Each layer is timed
// alone, in this process, on a real node's objects (McNode on a temp datadir, HTTP off, mining
// off); the HTTP floors are a bare node:http server and our HTTP server (fast path on, then off)
// answering a constant method, each in its own process under the same load as the real bench. The throughput rows of `npm run bench` say what a client sees; this says why.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deriveDevKeys, privateKeyToAddress } from '../src/accounts/keys.js';
import { decodeTransaction, decodeTrustedTransaction, signTransaction } from '../src/chain/transaction.js';
import type { SignedTx } from '../src/chain/types.js';
import { loadInvocation } from '../src/config/load.js';
import { bytesToHex, hexToBytes } from '../src/encoding/hex.js';
import { CallExecutor } from '../src/execution/call.js';
import { createChainEvm } from '../src/execution/evm.js';
import { createCommon } from '../src/node/chainCore.js';
import { McNode } from '../src/node/node.js';
import { createLogger } from '../src/log.js';
import { Dispatcher } from '../src/rpc/dispatch.js';
import { exceedsDepth, MAX_JSON_DEPTH } from '../src/rpc/jsonLimits.js';
import { runLoad } from './load.js';
import { processCpuTimes } from './nodeProcess.js';
import { runWrk, wrkAvailable } from './wrk.js';
import { Sealer } from '../src/miner/sealer.js';
import { keccak256 } from '../src/encoding/bytes.js';
import { CHAIN_ID, GAS_PRICE } from './transfers.js';
import { ROOT } from './nodeProcess.js';
import { selector, word } from './setup.js';
import { readFileSync } from 'node:fs';

const MNEMONIC = 'test test test test test test test test test test test junk';

/** Process CPU microseconds so far (all threads: LevelDB's writes count too). */
const cpuNow = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};

/**
 * CPU microseconds per call of `fn`, after a warm-up; the best of three runs. CPU time rather
 * than wall time: on a shared machine it moves far less with the load of other processes.
 */
async function perCall(n: number, fn: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < Math.min(n, 2000); i++) await fn(i);
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const c0 = cpuNow();
    for (let i = 0; i < n; i++) await fn(i);
    best = Math.min(best, (cpuNow() - c0) / n);
  }
  return best;
}

/** A bare node:http server with a fixed JSON reply: what node:http alone costs. */
const BARE_NODE_HTTP = `const http=require('node:http');const b='{"jsonrpc":"2.0","id":1,"result":"0x1"}';
  const s=http.createServer({noDelay:true},(q,r)=>{q.on('data',()=>{});q.on('end',()=>{r.writeHead(200,{'Content-Type':'application/json','Content-Length':b.length});r.end(b)})});
  s.listen(0,'127.0.0.1',()=>console.log(s.address().port));`;

/** The node's own HTTP server and dispatcher over a one-method table (a constant result). */
function ownServer(fastPath: boolean): string {
  const rpc = (file: string) => JSON.stringify(fileURLToPath(new URL(`../src/rpc/${file}`, import.meta.url)));
  return `Promise.all([import(${rpc('http.js')}),import(${rpc('dispatch.js')})]).then(async([h,d])=>{
    const dispatcher=new d.Dispatcher({methods:new Map([['mc_blockNumber',{handler:()=>'0x1'}]])});
    const s=new h.HttpRpcServer({host:'127.0.0.1',port:0,corsOrigins:[],vhosts:['*'],route:()=>dispatcher,fastPath:${fastPath}});
    console.log((await s.start()).port)});`;
}

/**
 * A server script (prints its port) in its own process under the bench's load (wrk when
 * installed): req/s, and the server's CPU µs per request (less noisy on a shared machine).
 */
async function httpFloor(seconds: number, script: string): Promise<{ perSecond: number; cpuUs: number }> {
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout!.once('data', (d) => resolve(Number(String(d).trim())));
      child.once('exit', () => reject(new Error('floor server exited')));
    });
    const body = '{"jsonrpc":"2.0","id":1,"method":"mc_blockNumber","params":[]}';
    const url = `http://127.0.0.1:${port}/`;
    const load = () =>
      wrkAvailable()
        ? runWrk({ url, connections: 16, seconds, body })
        : runLoad({ url, connections: 16, durationMs: seconds * 1000, warmupMs: 500, body });
    if (wrkAvailable()) await runWrk({ url, connections: 16, seconds: 1, body }); // warm-up
    const c0 = processCpuTimes(child.pid!);
    const r = await load();
    const c1 = processCpuTimes(child.pid!);
    const cpuUs = c0 && c1 ? ((c1.user + c1.system - c0.user - c0.system) * 1e6) / r.requests : NaN;
    return { perSecond: r.perSecond, cpuUs };
  } finally {
    child.kill('SIGKILL');
  }
}

/** Deploys the compare harness's contract (constructor stores 42; get() returns SLOAD(0)) and mines it. */
async function deployGetter(node: McNode, table: McNode['methods']['http']): Promise<string> {
  const runtime = '60003560e01c636d4ce63c14601357600080fd5b60005460005260206000f3';
  const init = '602a600055601f6011600039601f6000f3';
  // Dev account 3: account 0 signs the transfer rows below from nonce 0.
  const from = bytesToHex(node.devAccounts[3].address);
  const hash = await table.get('mc_sendTransaction')!.handler([{ from, data: `0x${init}${runtime}`, gas: '0x100000' }]);
  await node.miner.mineOne();
  const receipt = (await table.get('mc_getTransactionReceipt')!.handler([hash])) as { contractAddress: string };
  const got = await table.get('mc_call')!.handler([{ to: receipt.contractAddress, data: '0x6d4ce63c' }, 'latest']);
  if (BigInt(got as string) !== 42n) throw new Error(`get() returned ${got}`);
  return receipt.contractAddress;
}

/** Deploys the test contracts Store(7) and Nest(store) and mines them; returns Nest's address. */
async function deployNest(node: McNode, table: McNode['methods']['http']): Promise<string> {
  const fixture = JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/contracts/contracts.json'), 'utf8'));
  const from = bytesToHex(node.devAccounts[4].address);
  const deploy = async (name: string, args: string) => {
    const data = '0x' + fixture.contracts[name].bytecode.replace(/^0x/, '') + args;
    const hash = await table.get('mc_sendTransaction')!.handler([{ from, data, gas: '0x500000' }]);
    await node.miner.mineOne();
    return ((await table.get('mc_getTransactionReceipt')!.handler([hash])) as { contractAddress: string }).contractAddress;
  };
  const store = await deploy('Store', word(7));
  return deploy('Nest', word(BigInt(store)));
}

const us = (v: number) => `${v.toFixed(v < 10 ? 2 : 1)} µs`;

export async function benchLayers(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10) > 0 ? Math.min(5, Number(process.env.BENCH_SECONDS ?? 10)) : 5;
  const datadir = mkdtempSync(path.join(os.tmpdir(), 'mcnode-layers-'));
  const { config } = loadInvocation(
    ['--datadir', datadir, '--rpc=false', '--ipcdisable', '--scs.enabled=false', '--mine=false', '--verbosity', '1'],
    {},
  );
  const node = await McNode.start(config, createLogger(1));
  try {
    console.log('Per-layer cost, one request at a time in this process (CPU µs per call; best of 3 runs)');
    // --- the cheap-call path ---
    const blockNumber = '{"jsonrpc":"2.0","id":1,"method":"mc_blockNumber","params":[]}';
    const balanceOf = bytesToHex(node.devAccounts[2].address);
    const getBalance = `{"jsonrpc":"2.0","id":1,"method":"mc_getBalance","params":["${balanceOf}","latest"]}`;
    const table = node.methods.http;
    const direct = new Dispatcher({ methods: table, invoker: 'direct' });
    const jayson = new Dispatcher({ methods: table, invoker: 'jayson' });
    const constant = new Dispatcher({ methods: new Map([['mc_blockNumber', { handler: () => '0x0' }]]) });
    const N = 100_000;
    const parse = await perCall(N, () => exceedsDepth(blockNumber, MAX_JSON_DEPTH) || JSON.parse(blockNumber));
    const envelope = await perCall(N, () => constant.handle(blockNumber, { transport: 'http' }));
    const handlerBn = await perCall(N, () => table.get('mc_blockNumber')!.handler([]));
    const handlerBal = await perCall(N / 4, () => table.get('mc_getBalance')!.handler([balanceOf, 'latest']));
    const encode = await perCall(N, () => JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x1234' }));
    const fullBn = await perCall(N, () => direct.handle(blockNumber, { transport: 'http' }));
    const fullBal = await perCall(N / 4, () => direct.handle(getBalance, { transport: 'http' }));
    const viaJayson = await perCall(N, () => jayson.handle(blockNumber, { transport: 'http' }));
    // --- mc_call: the compare harness's contract (get() = SLOAD(0)), distinct call data each time ---
    const callTo = await deployGetter(node, table);
    const callData = (i: number) => `0x6d4ce63c${i.toString(16).padStart(64, '0')}`;
    const callBody = (i: number) => `{"jsonrpc":"2.0","id":${i},"method":"mc_call","params":[{"to":"${callTo}","data":"${callData(i)}"},"latest"]}`;
    const handlerCall = await perCall(N / 10, (i) => table.get('mc_call')!.handler([{ to: callTo, data: callData(i) }, 'latest']));
    const fullCall = await perCall(N / 10, (i) => direct.handle(callBody(i), { transport: 'http' }));
    // The same message in a CallExecutor alone, on our interpreter and with it off (the library EVM).
    const callReq = (i: number) => ({ from: node.devAccounts[0].address, to: hexToBytes(callTo), data: hexToBytes(callData(i)) });
    const ours = new CallExecutor(node.world, (sm) => createChainEvm(createCommon(config), sm, node.chain));
    const library = new CallExecutor(node.world, (sm) => createChainEvm(createCommon(config), sm, node.chain), { fastCall: false });
    const oursCall = await perCall(N / 10, (i) => ours.run(callReq(i), { header: node.chain.head.header }));
    const libraryCall = await perCall(N / 100, (i) => library.run(callReq(i), { header: node.chain.head.header }));
    // Heavier messages: nested calls with a caught revert, and a loop.
    const nest = hexToBytes(await deployNest(node, table));
    const nestReq = (sig: string, n: number) => ({ from: node.devAccounts[0].address, to: nest, data: hexToBytes(selector(sig) + word(n)) });
    const both = async (sig: string, n: number, count: number) => {
      const head = () => ({ header: node.chain.head.header });
      return `${us(await perCall(count, () => ours.run(nestReq(sig, n), head())))} / ${us(await perCall(Math.max(1, count / 10), () => library.run(nestReq(sig, n), head())))}`;
    };
    const nestRun = await both('run(uint256)', 5, N / 50);
    const nestSpin = await both('spin(uint256)', 1000, N / 500);
    const floor = await httpFloor(seconds, BARE_NODE_HTTP);
    const fastFloor = await httpFloor(seconds, ownServer(true));
    const slowFloor = await httpFloor(seconds, ownServer(false));
    const rate = (v: number) => `${Math.round(v).toLocaleString('en-US')} req/s`;
    const rows: [string, string][] = [
      ['parse (depth check + JSON.parse)', us(parse)],
      ['dispatch envelope (parse, decode, lookup, call, reply) on a constant method', us(envelope)],
      ['jayson pass-through, extra per call (not used by the node)', us(viaJayson - fullBn)],
      ['handler mc_blockNumber / mc_getBalance (warm state)', `${us(handlerBn)} / ${us(handlerBal)}`],
      ['encode a small reply (JSON.stringify)', us(encode)],
      ['whole dispatcher mc_blockNumber / mc_getBalance', `${us(fullBn)} / ${us(fullBal)}`],
      [`node:http alone (bare server, own process, 16 conns; server CPU per request): ${rate(floor.perSecond)}`, us(floor.cpuUs)],
      [`our HTTP server, fast path, constant method (same): ${rate(fastFloor.perSecond)}`, us(fastFloor.cpuUs)],
      [`our HTTP server, fast path off: node:http for every request (same): ${rate(slowFloor.perSecond)}`, us(slowFloor.cpuUs)],
      ['handler mc_call get() (one SLOAD; warm state view and interpreter)', us(handlerCall)],
      ['whole dispatcher mc_call', us(fullCall)],
      ['the message alone (CallExecutor.run): our interpreter / the library EVM', `${us(oursCall)} / ${us(libraryCall)}`],
      ['Nest.run(5) alone (three nested calls, a caught revert): ours / library', nestRun],
      ['Nest.spin(1000) alone (a 1,000-turn loop): ours / library', nestSpin],
    ];
    // --- the transfer path ---
    const [key] = deriveDevKeys(MNEMONIC, 1);
    const from = privateKeyToAddress(key);
    const to = node.devAccounts[1].address;
    const T = 2000;
    const txs: SignedTx[] = [];
    for (let k = 0; k < T; k++) {
      txs.push(signTransaction({
        nonce: BigInt(k), syscnt: 0n, gasPrice: GAS_PRICE, gas: 21_000n, to, value: 1n, data: new Uint8Array(0), shardingFlag: 0n, via: null,
      }, key, CHAIN_ID));
    }
    const decodeOnly = await perCall(T, (i) => decodeTrustedTransaction(txs[i].raw, from));
    const decodeRecover = await perCall(T, (i) => decodeTransaction(txs[i].raw, CHAIN_ID));
    const decoded = txs.map((tx) => decodeTransaction(tx.raw, CHAIN_ID));
    let c0 = cpuNow();
    for (const tx of decoded) await node.pool.add(tx);
    const admission = (cpuNow() - c0) / T;
    c0 = cpuNow();
    const built = await node.miner.buildPending();
    const buildPerTx = (cpuNow() - c0) / built.transactions.length;
    node.world.nodes.discardWrites();
    // One block of all T, then single-transaction blocks as instant mining makes them.
    c0 = cpuNow();
    await node.miner.mineOne();
    const bigBlock = cpuNow() - c0;
    const singles: number[] = [];
    for (let k = 0; k < 50; k++) {
      await node.pool.add(decodeTransaction(signTransaction({
        nonce: BigInt(T + k), syscnt: 0n, gasPrice: GAS_PRICE, gas: 21_000n, to, value: 1n, data: new Uint8Array(0), shardingFlag: 0n, via: null,
      }, key, CHAIN_ID).raw, CHAIN_ID));
      const s = cpuNow();
      await node.miner.mineOne();
      singles.push(cpuNow() - s);
    }
    singles.sort((a, b) => a - b);
    // The proof-of-work part of those blocks, alone: a fixed cost per block at this difficulty.
    const difficulty = node.chain.head.header.difficulty;
    const sealer = new Sealer({ threads: 1 });
    const sealHashes = Array.from({ length: 300 }, (_, i) => keccak256(Uint8Array.of(i & 255, i >> 8)));
    const sealOne = await perCall(sealHashes.length, (i) => sealer.seal(sealHashes[i % sealHashes.length], difficulty));
    await sealer.close();
    rows.push(
      ['transfer: RLP decode + field checks', us(decodeOnly)],
      ['transfer: signature recovery (extra)', us(decodeRecover - decodeOnly)],
      ['transfer: pool admission with journal write (decoded already)', us(admission)],
      [`transfer: block build, per tx (block of ${built.transactions.length})`, us(buildPerTx)],
      [`transfer: build + seal + commit, per tx (block of ${T})`, us(bigBlock / T)],
      ['transfer: build + seal + commit of a 1-tx block (median of 50)', us(singles[25])],
      [`transfer: of which the proof-of-work seal at difficulty ${difficulty} (mean)`, us(sealOne)],
    );
    const width = Math.max(...rows.map((r) => r[0].length));
    for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value.padStart(12)}`);
  } finally {
    await node.stop();
    rmSync(datadir, { recursive: true, force: true });
  }
}
