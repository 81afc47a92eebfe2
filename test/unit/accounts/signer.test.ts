// accounts/signer.ts fills a request's defaults as the real node does; txpool/submitter.ts routes
// by shardingFlag. The RPC side is pinned by test/rpc/golden (08-mc-send.txt, 05-personal.txt).

import t from 'tap';
import { DEFAULT_SEND_GAS, TxSigner } from '../../../src/accounts/signer.js';
import { Wallet } from '../../../src/accounts/wallet.js';
import { TxSubmitter } from '../../../src/txpool/submitter.js';
import type { SignedTx } from '../../../src/chain/types.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import type { WorldState } from '../../../src/state/worldState.js';
import { NodeError } from '../../../src/errors.js';

const KEY = hexToBytes('0xd318c56399426da38a80a354c89780d05ed2650017a63768e1b9cab0957de817');
const FROM = hexToBytes('0xc4c4fb5146a694d58521b4a135564765b6cec4fa');
const APP = hexToBytes('0x' + 'a1'.repeat(20));
const DAPP = hexToBytes('0x' + 'd0'.repeat(20));

function signerWith(wallet = new Wallet(100n)) {
  const world = { getAccount: async () => ({ nonce: 4n, balance: 0n }) } as unknown as WorldState;
  const chain = { head: { header: { stateRoot: new Uint8Array(32) } } } as never;
  const pool = { pendingNonce: (_: Uint8Array, state: bigint) => state + 2n };
  return new TxSigner({ wallet, gasPrice: () => 7n, world, chain, pool, appChainNonce: async () => 11n });
}

t.test('defaults: the pool-counted nonce, 90,000 gas, the suggested price; app chains gas 0 and their own nonce', async (t) => {
  const signer = signerWith();
  const main = await signer.fill({ from: FROM });
  t.same([main.nonce, main.gas, main.gasPrice, main.value, main.to, main.shardingFlag], [6n, DEFAULT_SEND_GAS, 7n, 0n, null, 0n]);
  const app = await signer.fill({ from: FROM, to: APP, shardingFlag: 1n, dappAddr: DAPP, data: Uint8Array.of(1, 2) });
  t.same([app.nonce, app.gas], [11n, 0n]);
  t.same(app.data, Uint8Array.from([...DAPP, 1, 2]), 'the Dapp address goes in front of the data');
  t.equal((await signer.fill({ from: FROM, nonce: 3n, gas: 5n })).nonce, 3n, 'given values stay');
  await t.rejects(signer.fill({ from: FROM, shardingFlag: 2n }), { message: 'an app-chain transaction needs `to` (the app chain address)' });
});

t.test('signing: the unlocked key, or one given for one use; refusals name the reason', async (t) => {
  const wallet = new Wallet(100n);
  const signer = signerWith(wallet);
  await t.rejects(signer.sign({ from: FROM }), { message: 'authentication needed: password or unlock' });
  const once = await signer.sign({ from: FROM, to: APP }, KEY);
  t.same(once.from, FROM);
  wallet.addAccount(KEY, true);
  t.same((await signer.sign({ from: FROM })).from, FROM);
  await t.rejects(signer.sign({}), { message: 'missing from address' });
  await t.rejects(signer.sign({ from: FROM, shardingFlag: 4n }), { message: 'shardingFlag error' });
});

t.test('the submitter routes by shardingFlag and needs the SCS for app chains', async (t) => {
  const seen: string[] = [];
  const pool = { add: async () => void seen.push('pool') };
  const scs = { submit: async () => void seen.push('scs'), chain: () => ({ nextNonce: async () => 9n }) };
  const tx = (shardingFlag: bigint) => ({ shardingFlag }) as SignedTx;
  await new TxSubmitter(pool, () => scs).submit(tx(0n));
  await new TxSubmitter(pool, () => scs).submit(tx(2n));
  t.same(seen, ['pool', 'scs']);
  const without = new TxSubmitter(pool, () => undefined);
  const err = await without.submit(tx(1n)).catch((e: unknown) => e);
  t.ok(err instanceof NodeError);
  t.equal((err as Error).message, 'app-chain transactions (shardingFlag 1-3) need the SCS service');
  await t.rejects(without.appChainNonce(APP, FROM), { message: /need the SCS service/ });
  t.equal(await new TxSubmitter(pool, () => scs).appChainNonce(APP, FROM), 9n);
});
