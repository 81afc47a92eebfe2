// System transactions through block building and import, in process: setters and impersonated
// transactions sealed one per block on a devControls chain, the chain exported and re-imported
// into a fresh datadir to the same head; the same file refused where the genesis has no dev
// controls; a forged settlement refused with the block number and reason.

import t, { type Test } from 'tap';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { defaultConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { Database } from '../../src/store/database.js';
import { openChainCore, difficultyRule, type ChainCore } from '../../src/node/chainCore.js';
import { TxPool } from '../../src/txpool/txPool.js';
import { PoolEntries } from '../../src/store/poolEntries.js';
import { Miner, type SealFunction } from '../../src/miner/miner.js';
import { searchNonce, targetBytes } from '../../src/consensus/pow.js';
import { SYSTEM_SENDER, decodeBlockTransaction, decodeSystemPayload, impersonatedTx, settlementTx, setterTx } from '../../src/chain/systemTx.js';
import type { BalanceMove, BlockParticipant } from '../../src/execution/blockParticipants.js';
import { encodeBlock, orderedTrieRoot } from '../../src/chain/block.js';
import { contractAddress, signTransaction } from '../../src/chain/transaction.js';
import { bigintToFixed, bytesToBigint } from '../../src/encoding/bytes.js';
import { bytesToHex, hexToBytes } from '../../src/encoding/hex.js';
import { exportChain } from '../../src/chainFile/exportChain.js';
import { ImportError, importChain } from '../../src/chainFile/importChain.js';
import { BlockImporter } from '../../src/importer/blockImporter.js';
import { DEV } from '../helpers/accounts.js';
import { testDir } from '../helpers/testDir.js';

const A = hexToBytes('0x' + 'a1'.repeat(20));
const B = hexToBytes('0x' + 'b2'.repeat(20));
const C = hexToBytes('0x' + 'c3'.repeat(20));
/** An impersonated account nobody holds a key for. */
const WHALE = hexToBytes('0x' + 'ee'.repeat(20));

/** One test directory per test (testDir(t) empties it on each call). */
const dirs = new Map<Test, string>();

const seal: SealFunction = async (hash, difficulty) => searchNonce(hash, targetBytes(difficulty), 0n, 1 << 22);

function configWith(devControls: boolean): Config {
  const config = defaultConfig();
  return { ...config, genesis: { ...config.genesis, devControls } };
}

async function open(t: Test, devControls: boolean, name = 'node'): Promise<ChainCore & { miner: Miner; config: Config }> {
  const config = configWith(devControls);
  const datadir = path.join(dirs.get(t) ?? dirs.set(t, testDir(t)).get(t)!, name);
  const db = await Database.open(path.join(datadir, 'chaindata'));
  t.teardown(() => db.close());
  const core = await openChainCore(config, db, createLogger(0));
  const pool = new TxPool(new PoolEntries(db), {
    minGasPrice: 1n, priceBump: 10n, globalSlots: 4096, globalQueue: 1024, accountQueue: 64,
    blockGasLimit: () => core.chain.head.header.gasLimit, accountAt: async () => ({ nonce: 0n, balance: 0n }),
    journalPath: path.join(datadir, 'txpool.journal'),
  });
  const miner = new Miner(core.chain, pool, core.builder, core.nodes, seal, {
    mode: 'off', period: 1, coinbase: hexToBytes(DEV[0].address), extraData: new Uint8Array(), targetGasLimit: 9_000_000n,
    difficulty: difficultyRule(config, core.chain.genesis),
  });
  t.teardown(() => miner.stop());
  return { ...core, miner, config };
}

const importDeps = (core: ChainCore & { config: Config }) => ({
  chain: core.chain,
  importer: new BlockImporter({
    chain: core.chain, builder: core.builder, nodes: core.nodes, chainId: 100n,
    difficulty: difficultyRule(core.config, core.chain.genesis), pow: core.pow,
  }),
});

t.test('setters and impersonation seal one block each, and re-import elsewhere', async (t) => {
  const core = await open(t, true);
  t.equal(core.rules.devControls, true);
  const at = () => core.chain.head.header.stateRoot;
  const account = async (a: Uint8Array) => core.world.getAccount(at(), a);

  const b1 = await core.miner.sealSetter({ op: 'setBalance', address: A, value: 123n });
  t.equal(b1.header.number, 1n);
  t.equal(b1.transactions.length, 1, 'one block holding the one system transaction');
  t.equal((await account(A))?.balance, 123n, 'visible at the head at once');
  await core.miner.sealSetter({ op: 'setNonce', address: A, nonce: 7n });
  await core.miner.sealSetter({ op: 'setCode', address: B, code: hexToBytes('0x600160005500') });
  await core.miner.sealSetter({ op: 'setStorageAt', address: B, slot: 1n, value: 42n });
  const rootBefore = at();
  await core.miner.sealSetter({ op: 'setCoinbase', address: C });
  t.equal((await account(A))?.nonce, 7n);
  t.equal(bytesToHex(await core.world.getCode(at(), B)), '0x600160005500');
  t.equal(bytesToBigint(await core.world.getStorage(at(), B, bigintToFixed(1n, 32))), 42n);
  t.equal((await account(SYSTEM_SENDER))?.nonce, 5n, 'each setter takes the next 0x…64 nonce');
  t.not(bytesToHex(at()), bytesToHex(rootBefore), 'setCoinbase changes only 0x…64\'s nonce');

  // Impersonation: a transfer and a creation from an address without a key.
  await core.miner.sealSetter({ op: 'setBalance', address: WHALE, value: 10n ** 18n });
  const transfer = await core.miner.sealTransaction(async () =>
    impersonatedTx({ from: WHALE, nonce: 0n, to: A, value: 1000n, data: new Uint8Array(), gas: 21_000n, gasPrice: 2n }));
  t.equal(bytesToHex(transfer.transactions[0].from), bytesToHex(WHALE));
  t.equal((await account(A))?.balance, 123n + 1000n);
  t.equal((await account(WHALE))?.balance, 10n ** 18n - 1000n - 1000n * 2n, 'the impersonated account pays its gas (1000 at price 2)');
  const receipts = await core.chain.getReceipts(transfer.hash);
  t.same(receipts?.map((r) => [r.status, r.gasUsed]), [[1, 1000n]]);
  const create = await core.miner.sealTransaction(async () =>
    impersonatedTx({ from: WHALE, nonce: 1n, to: null, value: 0n, data: hexToBytes('0x600a600c600039600a6000f3602a60005260206000f3'), gas: 200_000n, gasPrice: 1n }));
  const created = (await core.chain.getReceipts(create.hash))![0].contractAddress!;
  t.equal(bytesToHex(created), bytesToHex(contractAddress(WHALE, 1n)));
  t.ok((await core.world.getCode(at(), created)).length > 0, 'the impersonated creation deployed code');

  // The builder makes settlements itself; a stale setter nonce is refused.
  await t.rejects(core.miner.sealTransaction(() => settlementTx(6n, [{ from: A, to: B, amount: 1n }])), /settlements are made by the block builder/);
  await t.rejects(core.miner.sealTransaction(() => setterTx(0n, { op: 'setCoinbase', address: C })), /nonce 0, account 0x…64 is at 6/);

  const file = path.join(dirs.get(t)!, 'dev.rlp');
  await exportChain(core.chain, file);
  const copy = await open(t, true, 'copy');
  const result = await importChain(importDeps(copy), file);
  t.equal(result.imported, Number(core.chain.head.header.number));
  t.equal(bytesToHex(copy.chain.head.hash), bytesToHex(core.chain.head.hash), 'the same head hash');
  t.equal(bytesToHex(copy.chain.head.header.stateRoot), bytesToHex(at()), 'the same state root');
  t.same(await copy.world.getAccount(copy.chain.head.header.stateRoot, WHALE), await account(WHALE));

  // Where the genesis has no dev controls, the same blocks are refused at the first setter.
  const strict = await open(t, false, 'strict');
  t.equal(bytesToHex(strict.chain.genesis.hash), bytesToHex(core.chain.genesis.hash), 'the flag is not part of the genesis block');
  const refused = await importChain(importDeps(strict), file).catch((e) => e);
  t.ok(refused instanceof ImportError);
  t.equal(refused.number, 1n);
  t.match(refused.reason, /transaction 0 \(0x[0-9a-f]+\) cannot be applied: dev-control system transactions need a chain whose genesis has config.devControls/);
  t.equal(strict.chain.head.header.number, 0n, 'nothing written');
});

t.test('a chain without dev controls refuses to seal setters and impersonation', async (t) => {
  const core = await open(t, false);
  await t.rejects(core.miner.sealSetter({ op: 'setBalance', address: A, value: 1n }), /dev-control system transactions need/);
  await t.rejects(
    core.miner.sealTransaction(() => impersonatedTx({ from: WHALE, nonce: 0n, to: A, value: 0n, data: new Uint8Array(), gas: 21_000n, gasPrice: 0n })),
    /dev-control system transactions need/,
  );
  t.equal(core.chain.head.header.number, 0n);
});

t.test('a block with an invented settlement is refused on import, naming block and reason', async (t) => {
  const core = await open(t, false);
  // Block 1 as the miner would build it, then with a settlement paying a dev account's funds away.
  const built = await core.miner.buildPending();
  core.nodes.discardWrites();
  const forged = settlementTx(0n, [{ from: hexToBytes(DEV[1].address), to: A, amount: 10n ** 18n }]);
  const header = { ...built.header, transactionsRoot: orderedTrieRoot([forged.raw]) };
  const file = path.join(dirs.get(t)!, 'forged.rlp');
  writeFileSync(file, encodeBlock(header, [forged]));
  const refused = await importChain(importDeps(core), file).catch((e) => e);
  t.ok(refused instanceof ImportError);
  t.equal(refused.number, 1n);
  t.match(refused.message, /^block 1: transaction 0 \(0x[0-9a-f]+\) cannot be applied: settlement payout 0 cannot be paid \(the payer's balance or deposit escrow is below 1000000000000000000\)/);

  // A settlement that is not the last transaction of its block is refused too.
  const setter = setterTx(1n, { op: 'setCoinbase', address: A });
  const twice = { ...built.header, transactionsRoot: orderedTrieRoot([forged.raw, setter.raw]) };
  writeFileSync(file, encodeBlock(twice, [forged, setter]));
  const early = await importChain(importDeps(core), file).catch((e) => e);
  t.match(early.message, /^block 1: transaction 0 .*: a settlement is the last transaction of its block/);
  t.equal(core.chain.head.header.number, 0n);
});

t.test('the flag is stored with the genesis: a later config cannot change it', async (t) => {
  const chaindata = path.join(testDir(t), 'chaindata');
  for (const [written, later] of [[true, false], [false, true]]) {
    let db = await Database.open(chaindata);
    t.equal((await openChainCore(configWith(written), db, createLogger(0))).rules.devControls, written);
    await db.close();
    db = await Database.open(chaindata);
    t.equal((await openChainCore(configWith(later), db, createLogger(0))).rules.devControls, written, `written ${written}, started with ${later}`);
    await db.close();
    const { rmSync } = await import('node:fs');
    rmSync(chaindata, { recursive: true });
  }
});

t.test('settlements: built from the participants\' payouts, checked on import by a node serving the payer', async (t) => {
  const X = hexToBytes('0x' + '5a'.repeat(20));
  const participant = (amount: bigint, seen: BalanceMove[][] = []): BlockParticipant => ({
    balanceMoves: async (n) => (n === 2n ? [{ from: X, to: B, amount, ref: 'record' }] : []),
    servesPayer: (payer) => bytesToHex(payer) === bytesToHex(X),
    beforeCommit: async (_block, _receipts, applied) => {
      seen.push(applied);
      return { ops: [], done: () => undefined };
    },
  });
  const core = await open(t, false);
  core.builder.participants.add(participant(5n));
  // Block 1: a deposit of 10 sha into X (buyMintToken); block 2 pays 5 of it back out.
  const deposit = signTransaction(
    { nonce: 0n, syscnt: 0n, gasPrice: 1n, gas: 50_000n, to: X, value: 10n, data: hexToBytes('0x6bbded70'), shardingFlag: 0n, via: null },
    hexToBytes(DEV[1].key), 100n,
  );
  await core.miner.sealTransaction(() => deposit);
  const [b2] = await core.miner.mineBlocks(1);
  t.equal(b2.transactions.length, 1);
  const settlement = b2.transactions[0];
  t.equal(settlement.syscnt, 1n);
  t.same(decodeSystemPayload(settlement), { kind: 'settlement', payouts: [{ from: X, to: B, amount: 5n }] });
  t.equal(settlement.nonce, 1n, 'the first escrow gave 0x…64 nonce 1');
  t.equal((await core.world.getAccount(b2.header.stateRoot, B))?.balance, 5n);
  t.equal((await core.world.getAccount(b2.header.stateRoot, X))?.balance, 5n);
  const file = path.join(dirs.get(t)!, 'settled.rlp');
  await exportChain(core.chain, file);

  // A node serving X with other records refuses block 2.
  const other = await open(t, false, 'other');
  other.builder.participants.add(participant(4n));
  const refused = await importChain(importDeps(other), file).catch((e) => e);
  t.equal(refused.number, 2n);
  t.match(refused.reason, /cannot be applied: settlement payouts of app chain 0x5a5a.* differ from its records \(1 payouts due here, block has 1\)/);
  t.equal(other.chain.head.header.number, 1n, 'block 1 kept');

  // A node serving X with the same records accepts it and hands the payout to its participant.
  const same = await open(t, false, 'same');
  const seen: BalanceMove[][] = [];
  same.builder.participants.add(participant(5n, seen));
  // Committed through the miner, as on a running node: the participants' hooks see the block.
  const viaMiner = {
    chain: same.chain,
    importer: new BlockImporter({
      chain: same.chain, builder: same.builder, nodes: same.nodes, chainId: 100n,
      difficulty: difficultyRule(same.config, same.chain.genesis), miner: same.miner, pow: same.pow,
    }),
  };
  await importChain(viaMiner, file);
  t.equal(bytesToHex(same.chain.head.hash), bytesToHex(b2.hash));
  t.same(seen.map((moves) => moves.map((m) => m.ref)), [[], ['record']], 'block 2 settled the record');

  // A node serving no app chain checks the rules only (covered by X's balance and escrow).
  const plain = await open(t, false, 'plain');
  await importChain(importDeps(plain), file);
  t.equal(bytesToHex(plain.chain.head.hash), bytesToHex(b2.hash));
});

t.test('an impersonated transaction in the pool survives a restart (the journal decodes with decodeBlockTransaction)', async (t) => {
  const datadir = testDir(t);
  const db = await Database.open(path.join(datadir, 'chaindata'));
  t.teardown(() => db.close());
  const options = {
    minGasPrice: 1n, priceBump: 10n, globalSlots: 4096, globalQueue: 1024, accountQueue: 64,
    blockGasLimit: () => 9_000_000n, accountAt: async () => ({ nonce: 0n, balance: 10n ** 18n }),
    journalPath: path.join(datadir, 'txpool.journal'),
  };
  const tx = impersonatedTx({ from: WHALE, nonce: 0n, to: A, value: 5n, data: new Uint8Array(), gas: 21_000n, gasPrice: 2n });
  const before = new TxPool(new PoolEntries(db), options);
  await before.add(tx);
  before.close();
  const after = new TxPool(new PoolEntries(db), options);
  t.teardown(() => after.close());
  t.same(await after.restore((raw) => decodeBlockTransaction(raw, 100n)), { restored: 1, dropped: 0 });
  const [back] = after.pendingTransactions();
  t.equal(bytesToHex(back.hash), bytesToHex(tx.hash));
  t.equal(bytesToHex(back.from), bytesToHex(WHALE), 'the sender comes back from via');
});
