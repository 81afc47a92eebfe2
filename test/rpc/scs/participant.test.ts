// The SCS as a main-chain block participant, in process: deposit records written with the main
// block that makes them, flushes at the right heights, withdrawal moves that a stored block
// repeats exactly, the check of a settlement from outside, and moves the payer cannot cover.

import t from 'tap';
import { Mainnet, createCustomCommon } from '@ethereumjs/common';
import { Account, Address } from '@ethereumjs/util';
import { Database } from '../../../src/store/database.js';
import { TrieNodeStore } from '../../../src/state/trieNodeStore.js';
import { WorldState } from '../../../src/state/worldState.js';
import { ScsService } from '../../../src/scs/scsService.js';
import { BlockParticipants } from '../../../src/execution/blockParticipants.js';
import { payWhatCovers, recordDeposit } from '../../../src/execution/systemTxs.js';
import { EMPTY_TRIE_ROOT, EMPTY_UNCLES_HASH, blockFromParts } from '../../../src/chain/block.js';
import { contractAddress, signTransaction } from '../../../src/chain/transaction.js';
import type { Block, Header, Receipt, SignedTx, TxFields } from '../../../src/chain/types.js';
import { createLogger } from '../../../src/log.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { DEV } from '../../helpers/accounts.js';
import { contract } from '../../helpers/abi.js';
import { testDir } from '../../helpers/testDir.js';

const common = createCustomCommon({ chainId: 100 }, Mainnet, { hardfork: 'petersburg' });
const CHAIN = hexToBytes('0x' + 'f1'.repeat(20));
const RATE = 10n;
const [owner, user] = [DEV[0], DEV[1]];
const via = hexToBytes(owner.address);

function tx(key: string, fields: Partial<TxFields> & { nonce: bigint }): SignedTx {
  const base: Omit<TxFields, 'nonce'> = { syscnt: 0n, gasPrice: 0n, gas: 0n, to: CHAIN, value: 0n, data: new Uint8Array(), shardingFlag: 0n, via: null };
  return signTransaction({ ...base, ...fields }, hexToBytes(key), 100n);
}

function mainBlock(number: bigint, txs: SignedTx[] = []): { block: Block; receipts: Receipt[] } {
  const header: Header = {
    parentHash: new Uint8Array(32), sha3Uncles: EMPTY_UNCLES_HASH, miner: new Uint8Array(20), stateRoot: EMPTY_TRIE_ROOT,
    transactionsRoot: EMPTY_TRIE_ROOT, receiptsRoot: EMPTY_TRIE_ROOT, logsBloom: new Uint8Array(256), difficulty: 1n, number,
    gasLimit: 9_000_000n, gasUsed: 0n, timestamp: 1_700_000_000n + number, extraData: new Uint8Array(), mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
  };
  const receipts = txs.map(() => ({ status: 1 as const, cumulativeGasUsed: 0n, gasUsed: 0n, logsBloom: new Uint8Array(256), logs: [], contractAddress: null }));
  return { block: blockFromParts(header, txs), receipts };
}

t.test('deposits, flushes and withdrawal moves through the participant hooks', async (t) => {
  const db = await Database.open(testDir(t));
  t.teardown(() => db.close());
  let head = mainBlock(0n).block;
  const scs = await ScsService.open(
    {
      db, common, scsId: hexToBytes(DEV[2].address), vnodeAddress: via, defaultOwner: via, mainHead: () => head, blockPeriod: 0,
      log: createLogger(0),
    },
    [{ address: bytesToHex(CHAIN), flushRound: 2, exchangeRate: Number(RATE), tokenSupply: '0x3635c9adc5dea00000' }],
  );
  t.teardown(() => scs.stop());
  const chain = scs.chain(CHAIN);
  const commit = async (number: bigint, txs: SignedTx[] = [], moves = scs.balanceMoves(number)) => {
    const { block, receipts } = mainBlock(number, txs);
    const hook = await scs.beforeCommit(block, receipts, await moves);
    await db.batch(hook.ops);
    hook.done(true);
    head = block;
  };
  const settledHeight = async (n: bigint) => {
    for (let i = 0; i < 200 && chain.head.header.number < n; i++) await new Promise((r) => setTimeout(r, 10));
    return chain.head.header.number;
  };

  await scs.submit(tx(owner.key, { nonce: 0n, shardingFlag: 3n, via, data: hexToBytes(contract('DappBase').bytecode) }));
  t.equal(await settledHeight(1n), 1n, 'one app-chain block for the deploy');
  const dappBase = contractAddress(via, 0n);
  t.same(chain.dappBase, dappBase);

  // Block 1: a deposit (a Depositing record, written with the block). Block 2: the flush.
  await commit(1n, [tx(user.key, { nonce: 0n, value: 5n, data: hexToBytes('0x6bbded70') })]);
  t.same(chain.records.map((r) => [r.kind, r.amount, r.settled]), [['deposit', 5n, undefined]]);
  t.same(await scs.balanceMoves(2n), [], 'no withdrawal waits');
  await commit(2n);
  t.equal(chain.head.header.number, 2n, 'the flush made an app-chain block');
  t.equal(await chain.balanceOf(hexToBytes(user.address)), 5n * RATE);
  t.same(chain.records[0].settled, { time: 1_700_000_002n, mainBlock: 2n });

  // A withdrawal waits for the next flush (block 4), which pays value / rate from the app chain address.
  await scs.submit(tx(user.key, { nonce: 0n, shardingFlag: 1n, via, value: 30n, data: hexToBytes(bytesToHex(dappBase) + '89739c5b') }));
  await settledHeight(3n);
  t.equal(chain.records[1].kind, 'withdraw');
  await commit(3n);
  t.same(await scs.balanceMoves(3n), [], 'block 3 is no flush');
  const moves = await scs.balanceMoves(4n);
  t.same(moves.map((m) => [bytesToHex(m.from), bytesToHex(m.to), m.amount]), [[bytesToHex(CHAIN), user.address, 3n]]);

  // The block builder pays the moves the payer covers (as the settlement system transaction);
  // a payer short of funds is skipped.
  const participants = new BlockParticipants();
  participants.add(scs);
  const world = new WorldState(new TrieNodeStore(db), common);
  const poor = await world.stateManagerAt(EMPTY_TRIE_ROOT);
  t.same(await payWhatCovers(poor, await participants.proposals(4n)), [], 'the app chain address holds nothing: no payout');
  const funded = await world.stateManagerAt(EMPTY_TRIE_ROOT);
  await funded.putAccount(new Address(CHAIN), new Account(0n, 5n));
  const ok = { status: 1 as const, cumulativeGasUsed: 0n, gasUsed: 0n, logsBloom: new Uint8Array(256), logs: [], contractAddress: null };
  t.same(await payWhatCovers(funded, await participants.proposals(4n)), [], 'a balance that no deposit put there pays nothing');
  await recordDeposit(funded, tx(user.key, { nonce: 0n, value: 5n, data: hexToBytes('0x6bbded70') }), ok);
  const applied = participants.attribute(await payWhatCovers(funded, await participants.proposals(4n)));
  t.equal(applied.get(scs)?.length, 1);
  t.equal((await funded.getAccount(new Address(hexToBytes(user.address))))?.balance, 3n);
  t.equal((await funded.getAccount(new Address(CHAIN)))?.balance, 2n);

  // A settlement from outside: for the app chain this SCS serves, exactly the due payouts, or none.
  const due = await participants.proposals(4n);
  const plain = moves.map(({ from, to, amount }) => ({ from, to, amount }));
  const exact = participants.matchSettlement(plain, due);
  t.ok('applied' in exact && exact.applied.get(scs)?.length === 1, 'the due payouts are accepted and attributed');
  const forged = participants.matchSettlement([{ ...plain[0], amount: 4n }], due);
  t.match(forged, { problem: /settlement payouts of app chain 0xf1f1.* differ from its records/ }, 'another amount is refused');
  const invented = participants.matchSettlement([...plain, { from: CHAIN, to: CHAIN, amount: 1n }], due);
  t.ok('problem' in invented, 'an extra payout of a served app chain is refused');
  const foreign = participants.matchSettlement([{ from: hexToBytes('0x' + 'ab'.repeat(20)), to: CHAIN, amount: 1n }], due);
  t.ok('applied' in foreign && foreign.applied.size === 0, 'payouts of an app chain served elsewhere are left to the rules');

  await commit(4n, [], Promise.resolve(applied.get(scs)!));
  t.same(chain.records[1].settled, { time: 1_700_000_004n, mainBlock: 4n });
  t.same(await scs.balanceMoves(5n), [], 'nothing waits any more');
  // Checking the stored block 4 again finds the same moves in the records.
  t.same(await scs.balanceMoves(4n), moves);

  // An abandoned batch changes nothing in memory.
  const { block, receipts } = mainBlock(5n, [tx(user.key, { nonce: 1n, value: 7n, data: hexToBytes('0x6bbded70') })]);
  const hook = await scs.beforeCommit(block, receipts, []);
  t.ok(hook.ops.length > 0);
  hook.done(false);
  t.equal(chain.records.length, 2);
});
