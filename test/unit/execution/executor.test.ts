// applyTransaction's state rules that the Ethereum state tests found missing: self-destructed
// accounts removed, accounts a transaction touches and leaves empty removed from spuriousDragon
// (EIP-161), and a chainstart creation that cannot pay for its code kept as a success.

import path from 'node:path';
import t, { type Test } from 'tap';
import { Account, Address } from '@ethereumjs/util';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { commonFor } from '../../../src/node/chainCore.js';
import type { SignedTx } from '../../../src/chain/types.js';
import type { Hardfork } from '../../../src/config/schema.js';
import { keccak256 } from '../../../src/encoding/bytes.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { createChainEvm } from '../../../src/execution/evm.js';
import { applyTransaction, type ApplyResult, type BlockEnv } from '../../../src/execution/executor.js';
import { TrieNodeStore } from '../../../src/state/trieNodeStore.js';
import { WorldState } from '../../../src/state/worldState.js';
import { Database } from '../../../src/store/database.js';
import { testDir } from '../../helpers/testDir.js';

const at = (byte: string) => hexToBytes(`0x${byte.repeat(20)}`);
const SENDER = at('11');
const CONTRACT = at('a0');
const HEIR = at('b0');
const EMPTY = at('c0');
const MINER = at('d0');
const ENV: BlockEnv = { number: 1n, timestamp: 1000n, miner: MINER, difficulty: 1n, gasLimit: 10_000_000n };

interface Setup { code?: string; empty?: boolean; miner?: boolean }

async function stateFor(t: Test, hardfork: Hardfork, s: Setup): Promise<{ sm: MerkleStateManager; run: (tx: Partial<SignedTx>) => Promise<ApplyResult> }> {
  const db = await Database.open(path.join(testDir(t), `${hardfork}-${Math.random()}`));
  t.teardown(() => db.close());
  const common = commonFor(1n, hardfork);
  const sm = await new WorldState(new TrieNodeStore(db), common).buildingStateAt(keccak256(Uint8Array.of(0x80)));
  await sm.putAccount(new Address(SENDER), new Account(0n, 10n ** 18n));
  if (s.code) {
    await sm.putAccount(new Address(CONTRACT), new Account(1n, 777n));
    await sm.putCode(new Address(CONTRACT), hexToBytes(`0x${s.code}`));
  }
  if (s.empty) await sm.putAccount(new Address(EMPTY), new Account());
  if (s.miner) await sm.putAccount(new Address(MINER), new Account());
  const evm = await createChainEvm(common, sm, { getBlockByNumber: async () => undefined });
  const run = (tx: Partial<SignedTx>) => applyTransaction(evm, sm, {
    nonce: 0n, syscnt: 0n, gasPrice: 1n, gas: 200_000n, to: CONTRACT, value: 0n, data: new Uint8Array(), shardingFlag: 0n,
    via: null, v: 0n, r: 0n, s: 0n, hash: new Uint8Array(32), raw: new Uint8Array(), from: SENDER, ...tx,
  }, ENV, 0n);
  return { sm, run };
}

const account = (sm: MerkleStateManager, a: Uint8Array) => sm.getAccount(new Address(a));

t.test('a self-destructed contract is gone after its transaction, its balance with the heir', async (t) => {
  for (const hardfork of ['chainstart', 'spuriousDragon', 'petersburg'] as const) {
    // SELFDESTRUCT(HEIR)
    const { sm, run } = await stateFor(t, hardfork, { code: `73${'b0'.repeat(20)}ff` });
    const result = await run({});
    t.equal(result.ok && result.receipt.status, 1, `${hardfork}: succeeded`);
    t.equal(await account(sm, CONTRACT), undefined, `${hardfork}: the contract no longer exists`);
    t.equal((await account(sm, HEIR))?.balance, 777n, `${hardfork}: the heir holds its balance`);
  }
});

t.test('an account a transaction touches and leaves empty is removed from spuriousDragon (EIP-161)', async (t) => {
  for (const [hardfork, kept] of [['homestead', true], ['spuriousDragon', false], ['petersburg', false]] as const) {
    // a zero-value transfer to an existing empty account, at gas price 0 to a miner that has an empty account
    const { sm, run } = await stateFor(t, hardfork, { empty: true, miner: true });
    const result = await run({ to: EMPTY, gasPrice: 0n });
    t.ok(result.ok, `${hardfork}: applied`);
    t.equal((await account(sm, EMPTY)) !== undefined, kept, `${hardfork}: recipient ${kept ? 'kept' : 'removed'}`);
    t.equal((await account(sm, MINER)) !== undefined, kept, `${hardfork}: miner paid nothing ${kept ? 'kept' : 'removed'}`);
  }
  // the same through the EVM: a contract call that sends nothing, miner absent
  for (const [hardfork, created] of [['homestead', true], ['spuriousDragon', false]] as const) {
    const { sm, run } = await stateFor(t, hardfork, { code: '00' });
    t.ok((await run({ gasPrice: 0n })).ok);
    t.equal((await account(sm, MINER)) !== undefined, created, `${hardfork}: an absent miner paid nothing is ${created ? '' : 'not '}created`);
  }
});

t.test('under chainstart a creation that cannot pay for its code succeeds without it, logs and all', async (t) => {
  // LOG0 of nothing, then RETURN 4096 bytes: 819,200 gas of code deposit, more than the transaction has
  const init = hexToBytes('0x60006000a0611000' + '6000f3');
  for (const [hardfork, status, logs] of [['chainstart', 1, 1], ['homestead', 0, 0]] as const) {
    const { sm, run } = await stateFor(t, hardfork, {});
    const result = await run({ to: null, data: init, gas: 100_000n });
    if (!result.ok) throw new Error(result.reason);
    t.equal(result.receipt.status, status, `${hardfork}: status`);
    t.equal(result.receipt.logs.length, logs, `${hardfork}: logs`);
    const created = result.receipt.contractAddress;
    t.equal(created !== null, hardfork === 'chainstart', `${hardfork}: contract address`);
    if (created) t.same(await sm.getCode(new Address(created)), new Uint8Array(), 'the account exists without code');
  }
});
