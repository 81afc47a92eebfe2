// The miner in process, with a seal function under the test's control: a block stored from
// submitted work does not wait for a running local search, and stops it.

import t, { type Test } from 'tap';
import path from 'node:path';
import { defaultConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/log.js';
import { Database } from '../../../src/store/database.js';
import { openChainCore, difficultyRule } from '../../../src/node/chainCore.js';
import { TxPool } from '../../../src/txpool/txPool.js';
import { PoolEntries } from '../../../src/store/poolEntries.js';
import { Miner, type Seal } from '../../../src/miner/miner.js';
import { TrieNodeStore } from '../../../src/state/trieNodeStore.js';
import { powMix } from '../../../src/consensus/pow.js';
import { bigintToFixed } from '../../../src/encoding/bytes.js';
import { testDir } from '../../helpers/testDir.js';

/** A miner on a fresh devnet chain whose local search never finds a seal: it ends only when aborted. */
async function stuckMiner(t: Test) {
  const config = defaultConfig();
  const datadir = testDir(t);
  const db = await Database.open(path.join(datadir, 'chaindata'));
  t.teardown(() => db.close());
  const core = await openChainCore(config, db, createLogger(0));
  const pool = new TxPool(new PoolEntries(db), {
    minGasPrice: 1n, priceBump: 10n, globalSlots: 4096, globalQueue: 1024, accountQueue: 64,
    blockGasLimit: () => core.chain.head.header.gasLimit,
    accountAt: async () => ({ nonce: 0n, balance: 0n }),
    journalPath: path.join(datadir, 'txpool.journal'),
  });
  let searchStarted!: () => void;
  const started = new Promise<void>((resolve) => (searchStarted = resolve));
  let aborted = false;
  // A local search that never finds anything: it only ends when its signal fires.
  const seal = (_hash: Uint8Array, _difficulty: bigint, signal: AbortSignal) =>
    new Promise<Seal | undefined>((resolve) => {
      searchStarted();
      signal.addEventListener('abort', () => {
        aborted = true;
        resolve(undefined);
      });
    });
  const miner = new Miner(core.chain, pool, core.builder, core.nodes, seal, {
    mode: 'off', period: 1, coinbase: new Uint8Array(20), extraData: new Uint8Array(),
    targetGasLimit: 9_000_000n, difficulty: difficultyRule(config, core.chain.genesis),
  });
  return { db, core, miner, started, aborted: () => aborted };
}

t.test('a submitted block lands while the local search runs, and stops it', async (t) => {
  const { db, core, miner, started, aborted } = await stuckMiner(t);
  t.teardown(() => miner.stop());

  const local = miner.mineBlocks(1);
  await started;
  // A remote miner's package, solved for real at the devnet difficulty.
  const nodes = new TrieNodeStore(db);
  const built = await miner.buildPending(nodes);
  const { sealHash } = await import('../../../src/chain/block.js');
  const hash = sealHash(built.header);
  let solution: Seal | undefined;
  for (let n = 0n; !solution; n++) {
    const mix = powMix(hash, bigintToFixed(n, 8));
    if (BigInt('0x' + Buffer.from(mix).toString('hex')) <= (1n << 256n) / built.header.difficulty) solution = { nonce: n, mix };
  }
  const block = await miner.commitSealed(built, solution, nodes);
  t.ok(block, 'the submitted block is stored while the search runs');
  t.equal(core.chain.head.header.number, 1n);
  t.same(await local, [], 'the local round ends without a block');
  t.equal(aborted(), true, 'the new head aborted the local search');
});

t.test('stopping the miner stops a running local search, and no listener is left behind', async (t) => {
  const { core, miner, started, aborted } = await stuckMiner(t);
  const newHeadListeners = core.chain.listenerCount('newHead');
  const local = miner.mineBlocks(1);
  await started;
  t.equal(core.chain.listenerCount('newHead'), newHeadListeners + 1, 'the search listens for a new head');
  await miner.stop();
  t.equal(aborted(), true, 'stop aborted the search');
  t.same(await local, [], 'no block');
  t.equal(core.chain.listenerCount('newHead'), newHeadListeners, 'its head listener is gone');
  t.equal(core.chain.head.header.number, 0n);
});

/** Solves the devnet's keccak-pow for `hash` (difficulty 0x200: a few hundred tries). */
function solve(hash: Uint8Array, difficulty: bigint): Seal {
  for (let n = 0n; ; n++) {
    const mix = powMix(hash, bigintToFixed(n, 8));
    if (BigInt('0x' + Buffer.from(mix).toString('hex')) <= (1n << 256n) / difficulty) return { nonce: n, mix };
  }
}

/** A miner whose searches wait until the test releases them (then, and from then on, they solve at once). */
async function heldMiner(t: Test) {
  const config = defaultConfig();
  const datadir = testDir(t);
  const db = await Database.open(path.join(datadir, 'chaindata'));
  t.teardown(() => db.close());
  const core = await openChainCore(config, db, createLogger(0));
  const pool = new TxPool(new PoolEntries(db), {
    minGasPrice: 1n, priceBump: 10n, globalSlots: 4096, globalQueue: 1024, accountQueue: 64,
    blockGasLimit: () => core.chain.head.header.gasLimit,
    accountAt: async () => ({ nonce: 0n, balance: 0n }),
    journalPath: path.join(datadir, 'txpool.journal'),
  });
  let released = false;
  const waiting = new Set<() => void>();
  let searches = 0;
  let searchStarted!: () => void;
  let started = new Promise<void>((resolve) => (searchStarted = resolve));
  const seal = (hash: Uint8Array, difficulty: bigint, signal: AbortSignal) =>
    new Promise<Seal | undefined>((resolve) => {
      searches++;
      searchStarted();
      if (released) return resolve(solve(hash, difficulty));
      const go = () => resolve(signal.aborted ? undefined : solve(hash, difficulty));
      waiting.add(go);
      signal.addEventListener('abort', () => {
        waiting.delete(go);
        resolve(undefined);
      });
    });
  const miner = new Miner(core.chain, pool, core.builder, core.nodes, seal, {
    mode: 'off', period: 1, coinbase: new Uint8Array(20), extraData: new Uint8Array(),
    targetGasLimit: 9_000_000n, difficulty: difficultyRule(config, core.chain.genesis),
  });
  t.teardown(() => miner.stop());
  // The miner's interval timer does not hold the process open; the test's waits need it to.
  const keepAlive = setInterval(() => undefined, 1000);
  t.teardown(() => clearInterval(keepAlive));
  return {
    core, miner,
    started: () => started,
    searches: () => searches,
    release() {
      released = true;
      for (const go of waiting) go();
      waiting.clear();
      started = new Promise<void>((resolve) => (searchStarted = resolve));
    },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 50));

t.test('an interval search running when interval blocks stop seals nothing', async (t) => {
  const { core, miner, started, release } = await heldMiner(t);
  miner.setPeriod(1);
  void miner.setMode('interval');
  await started();
  t.equal(core.chain.head.header.number, 0n, 'the interval round is searching');
  const switched = miner.setMode('instant');
  release();
  await switched;
  await settle();
  t.equal(core.chain.head.header.number, 0n, 'no interval block after the switch');
});

t.test('a timer tick queued behind a running round seals nothing after the switch', async (t) => {
  const { core, miner, started, release, searches } = await heldMiner(t);
  const explicit = miner.mineBlocks(1); // holds the rounds' queue until released
  await started();
  miner.setPeriod(1);
  void miner.setMode('interval');
  await settle(); // the 1 ms timer has fired: its round waits behind the held one
  const switched = miner.setMode('off');
  release();
  t.equal((await explicit).length, 1, 'the explicit block is sealed');
  await switched;
  await settle();
  t.equal(core.chain.head.header.number, 1n, 'the queued tick sealed no block');
  t.equal(searches(), 1, 'and started no search');
});
