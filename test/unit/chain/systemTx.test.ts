// System transactions on the wire: each kind round-trips through the block decoder with its
// sender given by the rules; users may not send them; every break of the form is refused
// with a reason.

import t from 'tap';
import { RLP } from '@ethereumjs/rlp';
import {
  SYSTEM_CONTRACT, SYSTEM_SENDER, decodeBlockTransaction, decodeSystemPayload, encodePayouts, gasLimitSetBy, impersonatedTx, settlementTx, setterTx,
  type DevSetter,
} from '../../../src/chain/systemTx.js';
import { decodeTransaction, encodeSignedTransaction, signTransaction } from '../../../src/chain/transaction.js';
import type { SignedTx } from '../../../src/chain/types.js';
import { bigintToBytes, keccak256 } from '../../../src/encoding/bytes.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { DEV } from '../../helpers/accounts.js';
import { formatTransaction } from '../../../src/rpc/format.js';

const A = hexToBytes('0x' + 'aa'.repeat(20));
const B = hexToBytes('0x' + 'bb'.repeat(20));
const payouts = [{ from: A, to: B, amount: 5n }, { from: A, to: hexToBytes(DEV[0].address), amount: 10n ** 18n }];

/** Re-encodes `tx` with some fields changed, signature values included (no re-signing). */
function variant(tx: SignedTx, change: Partial<SignedTx>): Uint8Array {
  return encodeSignedTransaction({ ...tx, ...change });
}

t.test('each kind round-trips through the block decoder', async (t) => {
  const settlement = settlementTx(3n, payouts);
  const setters: DevSetter[] = [
    { op: 'setBalance', address: A, value: 123n },
    { op: 'setCode', address: A, code: Uint8Array.of(0x60, 0x01) },
    { op: 'setNonce', address: A, nonce: 9n },
    { op: 'setStorageAt', address: A, slot: 1n, value: 2n ** 255n },
    { op: 'setCoinbase', address: B },
    { op: 'setBlockGasLimit', gasLimit: 30_000_000n },
    { op: 'loadState', accounts: [
      { address: A, nonce: 1n, balance: 10n ** 18n, code: Uint8Array.of(0x60, 0x02), storage: [[0n, 5n], [2n ** 200n, 1n]] },
      { address: B, nonce: 0n, balance: 0n, code: new Uint8Array(), storage: [] },
    ] },
  ];
  const impersonated = impersonatedTx({ from: B, nonce: 4n, to: null, value: 7n, data: Uint8Array.of(0x60, 0x00), gas: 90_000n, gasPrice: 1n });
  for (const tx of [settlement, ...setters.map((s, i) => setterTx(BigInt(i), s)), impersonated]) {
    const back = decodeBlockTransaction(tx.raw, 100n);
    t.equal(bytesToHex(back.hash), bytesToHex(keccak256(tx.raw)), 'hash = keccak256(raw)');
    t.same([back.v, back.r, back.s], [0n, 0n, 0n], 'no signature');
    t.equal(back.syscnt, tx.syscnt);
    t.equal(bytesToHex(back.from), bytesToHex(tx.from));
    t.same(decodeSystemPayload(back), decodeSystemPayload(tx));
  }
  t.equal(bytesToHex(settlement.from), '0x0000000000000000000000000000000000000064');
  t.same([settlement.syscnt, settlement.gas, settlement.gasPrice, settlement.value], [1n, 0n, 0n, 0n]);
  t.equal(bytesToHex(settlement.to!), bytesToHex(SYSTEM_CONTRACT));
  t.same(decodeSystemPayload(settlement), { kind: 'settlement', payouts });
  t.equal(bytesToHex(settlement.data), bytesToHex(RLP.encode(payouts.map((p) => [p.from, p.to, bigintToBytes(p.amount)]))));
  t.equal(bytesToHex(impersonated.from), bytesToHex(B), 'the impersonated sender comes from via');
  t.same([impersonated.syscnt, impersonated.gas, impersonated.to], [3n, 90_000n, null]);
  t.not(bytesToHex(setterTx(0n, setters[0]).hash), bytesToHex(setterTx(1n, setters[0]).hash), 'the 0x…64 nonce keeps equal changes apart');
});

t.test('a setBlockGasLimit setter names the gas limit its block carries; nothing else does', async (t) => {
  t.equal(gasLimitSetBy([setterTx(0n, { op: 'setBlockGasLimit', gasLimit: 12_345_678n })]), 12_345_678n);
  t.equal(gasLimitSetBy([setterTx(0n, { op: 'setBalance', address: A, value: 1n }), settlementTx(1n, payouts)]), undefined);
  t.equal(gasLimitSetBy([]), undefined);
  const loadState = RLP.decode(setterTx(0n, { op: 'loadState', accounts: [] }).data) as unknown as Uint8Array[];
  t.equal(Number(bigintToBytes(7n)[0]), loadState[0][0], 'loadState is op 7');
});

t.test('users may not send system transactions (mc_sendRawTransaction decodes with decodeTransaction)', async (t) => {
  t.throws(() => decodeTransaction(settlementTx(0n, payouts).raw, 100n), /syscnt must be 0 for user transactions/);
  t.throws(() => decodeTransaction(impersonatedTx({ from: A, nonce: 0n, to: B, value: 1n, data: new Uint8Array(), gas: 21_000n, gasPrice: 1n }).raw, 100n), /syscnt must be 0/);
  // A signed transaction with syscnt > 0 is no system transaction either: it carries a signature.
  const signed = signTransaction({ ...settlementTx(0n, payouts), syscnt: 1n }, hexToBytes(DEV[0].key), 100n);
  t.throws(() => decodeBlockTransaction(signed.raw, 100n), /system transaction: a system transaction carries no signature/);
  // A user transaction still decodes with its signature checked.
  const user = signTransaction({ ...settlementTx(0n, payouts), syscnt: 0n, data: new Uint8Array() }, hexToBytes(DEV[0].key), 100n);
  t.equal(bytesToHex(decodeBlockTransaction(user.raw, 100n).from), DEV[0].address);
  t.throws(() => decodeBlockTransaction(variant(user, { v: 27n }), 100n), /unprotected transaction/, 'a user transaction keeps its refusals');
});

t.test('every break of the form is refused with its reason', async (t) => {
  const s = settlementTx(0n, payouts);
  const cases: [string, Uint8Array, RegExp][] = [
    ['unknown kind', variant(s, { syscnt: 101n }), /unknown system transaction kind \(syscnt 101\)/],
    ['gas', variant(s, { gas: 1n }), /gas, gas price and value 0/],
    ['value', variant(s, { value: 1n }), /gas, gas price and value 0/],
    ['recipient', variant(s, { to: A }), /goes to 0x0000000000000000000000000000000000000065/],
    ['via on a settlement', variant(s, { via: A }), /without via/],
    ['sharding flag', variant(s, { shardingFlag: 1n }), /shardingFlag 0/],
    ['empty payout list', variant(s, { data: RLP.encode([]) }), /no payouts/],
    ['zero payout', variant(s, { data: RLP.encode([[A, B, new Uint8Array()]]) }), /payout 0 pays nothing/],
    ['short address', variant(s, { data: RLP.encode([[A.subarray(1), B, Uint8Array.of(1)]]) }), /has 19 bytes, want 20/],
    ['non-canonical amount', variant(s, { data: RLP.encode([[A, B, Uint8Array.of(0, 1)]]) }), /not canonical/],
    ['garbage payload', variant(s, { data: Uint8Array.of(0xff, 0x01) }), /settlement payload/],
    ['unknown setter', variant(setterTx(0n, { op: 'setCoinbase', address: A }), { data: RLP.encode([Uint8Array.of(9), A]) }), /unknown operation/],
    ['setter arity', variant(setterTx(0n, { op: 'setCoinbase', address: A }), { data: RLP.encode([Uint8Array.of(1), A]) }), /setBalance takes 3 items, got 2/],
    ['impersonation without sender', variant(impersonatedTx({ from: A, nonce: 0n, to: B, value: 0n, data: new Uint8Array(), gas: 21_000n, gasPrice: 0n }), { via: null }), /names its sender in via/],
  ];
  for (const [what, raw, reason] of cases) t.throws(() => decodeBlockTransaction(raw, 100n), reason, what);
  t.equal(bytesToHex(encodePayouts(payouts)), bytesToHex(s.data));
  t.equal(bytesToHex(SYSTEM_SENDER), '0x0000000000000000000000000000000000000064');
});

t.test('in JSON they look like any transaction with syscnt > 0, v/r/s 0x0 and the rule-given sender', async (t) => {
  const setter = formatTransaction(setterTx(2n, { op: 'setBalance', address: A, value: 1n }));
  t.match(setter, { from: '0x0000000000000000000000000000000000000064', to: '0x0000000000000000000000000000000000000065', syscnt: '0x2', nonce: '0x2', gas: '0x0', gasPrice: '0x0', v: '0x0', r: '0x0', s: '0x0' });
  t.equal(setter.input, bytesToHex(RLP.encode([Uint8Array.of(1), A, Uint8Array.of(1)])));
  const impersonated = formatTransaction(impersonatedTx({ from: B, nonce: 0n, to: A, value: 3n, data: new Uint8Array(), gas: 21_000n, gasPrice: 5n }));
  t.match(impersonated, { from: bytesToHex(B), to: bytesToHex(A), syscnt: '0x3', value: '0x3', gas: '0x5208', gasPrice: '0x5', v: '0x0', r: '0x0', s: '0x0' });
});
