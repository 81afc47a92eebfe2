import t from 'tap';
import { Interface } from 'ethers';
import { contract } from '../../helpers/abi.js';
import type { CallRequest } from '../../../src/execution/call.js';
import { Engine } from '../../../src/execution/fastCall/engine.js';
import {
  CALLER, DEPLOYER, FORKS, MISSING, POOR, addr, buildState, bytes, compare, hexAddress, headerFor, pairFor,
} from './fastCall/harness.js';

// The committed test contracts (test/fixtures/contracts, solc, evmVersion petersburg), deployed by
// their constructors, called through every function on both engines under every hardfork
// (older hardforks lack some opcodes solc uses: both engines must fail the same way).

t.test('test contracts: every function, creation, on our interpreter and the library', async (t) => {
  const { sm, deployed, root } = await buildState(new Map());
  const header = headerFor(root);
  const iface = (name: string) => new Interface(contract(name).abi);
  const store = iface('Store');
  const counter = iface('Counter');
  const nest = iface('Nest');
  const dapp = iface('DappBase');
  const max = (1n << 256n) - 1n;
  const calls: [string, bigint, string, bigint?][] = [
    ['Store.value', deployed.store, store.encodeFunctionData('value')],
    ['Store.add', deployed.store, store.encodeFunctionData('add', [2n, 3n])],
    ['Store.add overflow', deployed.store, store.encodeFunctionData('add', [max, 1n])],
    ['Store.byOwner', deployed.store, store.encodeFunctionData('byOwner', [hexAddress(DEPLOYER)])],
    ['Store.byOwner none', deployed.store, store.encodeFunctionData('byOwner', [hexAddress(CALLER)])],
    ['Store.fail', deployed.store, store.encodeFunctionData('fail')],
    ['Store.set', deployed.store, store.encodeFunctionData('set', [9n])],
    ['Store.set with value', deployed.store, store.encodeFunctionData('set', [9n]), 5n],
    ['Store unknown selector', deployed.store, '0x12345678'],
    ['Store no data', deployed.store, '0x'],
    ['Store short data', deployed.store, '0x3fa4f2'],
    ['Counter.count', deployed.counter, counter.encodeFunctionData('count')],
    ['Counter.get', deployed.counter, counter.encodeFunctionData('get')],
    ['Counter.byUser', deployed.counter, counter.encodeFunctionData('byUser', [hexAddress(DEPLOYER)])],
    ['Counter.info', deployed.counter, counter.encodeFunctionData('info', [hexAddress(DEPLOYER)])],
    ['Counter.label', deployed.counter, counter.encodeFunctionData('label')],
    ['Counter.sum', deployed.counter, counter.encodeFunctionData('sum', [[1n, 2n, 3n, 1000n], -5])],
    ['Counter.sum empty', deployed.counter, counter.encodeFunctionData('sum', [[], 7])],
    ['Counter.echo', deployed.counter, counter.encodeFunctionData('echo', ['0x1234567890', '0xdeadbeef', [1, 2]])],
    ['Counter.echo long', deployed.counter, counter.encodeFunctionData('echo', ['0x' + 'ab'.repeat(300), '0x00000001', [65535, 0]])],
    ['Counter.increment', deployed.counter, counter.encodeFunctionData('increment', [3n]), 1n],
    ['Counter.fail', deployed.counter, counter.encodeFunctionData('fail')],
    ['Nest.run', deployed.nest, nest.encodeFunctionData('run', [5n])],
    ['Nest.boom', deployed.nest, nest.encodeFunctionData('boom', [1n])],
    ['Nest.spin', deployed.nest, nest.encodeFunctionData('spin', [100n])],
    ['Nest.store', deployed.nest, nest.encodeFunctionData('store')],
    ['DappBase.owner', deployed.dappBase, dapp.encodeFunctionData('owner')],
    ['DappBase.dappCount', deployed.dappBase, dapp.encodeFunctionData('dappCount')],
    ['DappBase.getDappList', deployed.dappBase, dapp.encodeFunctionData('getDappList')],
    ['DappBase.registerDapp', deployed.dappBase, dapp.encodeFunctionData('registerDapp', [hexAddress(CALLER), hexAddress(POOR), 'abi json'])],
    ['DappBase.redeem', deployed.dappBase, dapp.encodeFunctionData('redeemFromMicroChain'), 10n],
    ['DappBase.redeem nothing', deployed.dappBase, dapp.encodeFunctionData('redeemFromMicroChain')],
  ];
  const word = (n: bigint) => n.toString(16).padStart(64, '0');
  const creations: [string, string][] = [
    ['create Store', contract('Store').bytecode + word(5n)],
    ['create Counter', contract('Counter').bytecode],
    ['create Nest', contract('Nest').bytecode + word(deployed.store)],
    ['create DappBase', contract('DappBase').bytecode],
    ['create Store without argument', contract('Store').bytecode],
  ];
  for (const fork of FORKS) {
    const pair = pairFor(fork, sm);
    let fastRuns = 0;
    let runs = 0;
    for (const from of [CALLER, DEPLOYER, POOR, MISSING]) {
      for (const [label, to, data, value] of calls) {
        const req: CallRequest = { from: addr(from), to: addr(to), data: bytes(data), value };
        if (await compare(t, pair, req, header, `${label} from ${from.toString(16).slice(0, 4)}`, from === CALLER)) fastRuns++;
        runs++;
      }
    }
    for (const [label, code] of creations) {
      for (const gas of [undefined, 200_000n, 600_000n]) {
        const req: CallRequest = { from: addr(CALLER), data: bytes(code), gas };
        if (await compare(t, pair, req, header, `${label} gas ${gas}`, gas === undefined)) fastRuns++;
        runs++;
      }
    }
    t.equal(fastRuns, runs, `${fork}: every message ran on our interpreter`);
  }
});

t.test('concurrent calls on one state: cold loads, queued calls and estimates give the library\'s answers', async (t) => {
  const { sm, deployed, root } = await buildState(new Map());
  const header = headerFor(root);
  const store = new Interface(contract('Store').abi);
  const nest = new Interface(contract('Nest').abi);
  const counter = new Interface(contract('Counter').abi);
  const reqs: CallRequest[] = [];
  for (let i = 0; i < 30; i++) {
    const [to, data] = [
      [deployed.nest, nest.encodeFunctionData('run', [BigInt(i)])],
      [deployed.store, store.encodeFunctionData('add', [BigInt(i), 1n])],
      [deployed.counter, counter.encodeFunctionData('byUser', [hexAddress(BigInt(i))])],
      [deployed.store, store.encodeFunctionData('byOwner', [hexAddress(BigInt(1000 + i))])],
    ][i % 4] as [bigint, string];
    reqs.push({ from: addr(CALLER), to: addr(to), data: bytes(data) });
  }
  const pair = pairFor('petersburg', sm);
  // all at once on a fresh executor: the first ones wait for state, the rest queue behind them
  const state = { header };
  const [fast, estimates] = await Promise.all([
    Promise.all(reqs.map((r) => pair.fast.run(r, state))),
    Promise.all(reqs.slice(0, 6).map((r) => pair.fast.estimateGas(r, state, 2_000_000n))),
  ]);
  const hex = (o: { returnValue: Uint8Array; gasUsed: bigint; error?: string }) => [Buffer.from(o.returnValue).toString('hex'), o.gasUsed, o.error];
  for (let i = 0; i < reqs.length; i++) t.same(hex(fast[i]), hex(await pair.library.run(reqs[i], state)), `call ${i}`);
  for (let i = 0; i < 6; i++) t.equal(estimates[i], await pair.library.estimateGas(reqs[i], state, 2_000_000n), `estimate ${i}`);
  t.equal(pair.fast.stats.library, 0, 'none went to the library');
  t.equal(pair.fast.monitor.counters.faults, 0);
});

t.test('a fault in our interpreter sends the call to the library, which answers it', async (t) => {
  const { sm, deployed, root } = await buildState(new Map());
  const header = headerFor(root);
  const pair = pairFor('petersburg', sm);
  const req: CallRequest = { from: addr(CALLER), to: addr(deployed.store), data: bytes(new Interface(contract('Store').abi).encodeFunctionData('value')) };
  const expected = await pair.library.run(req, { header });
  const original = Engine.prototype.start;
  Engine.prototype.start = () => {
    throw new Error('fault');
  };
  try {
    const out = await pair.fast.run(req, { header });
    t.same(out, expected, 'the library\'s answer');
    t.same(pair.fast.stats, { fast: 0, library: 1 });
    t.same(pair.fast.monitor.counters, { calls: 1, fallbacks: 0, faults: 1, verified: 0, disagreements: 0 }, 'a fault, not a fallback');
  } finally {
    Engine.prototype.start = original;
  }
  t.same(await pair.fast.run(req, { header }), { ...expected, engine: 'interpreter' }, 'and the next call runs on ours again');
  t.equal(pair.fast.stats.fast, 1);
});
