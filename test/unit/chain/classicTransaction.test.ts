// Classic (Ethereum legacy, EIP-155) transactions: signed by ethers' Wallet, decoded by us.

import t from 'tap';
import { RLP } from '@ethereumjs/rlp';
import { Transaction, Wallet } from 'ethers';
import {
  checkClassicAllowed, decodeTransaction, decodeTrustedTransaction, encodeClassicSigningPayload, encodeClassicTransaction,
} from '../../../src/chain/transaction.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { keccak256 } from '../../../src/encoding/bytes.js';
import { NodeError } from '../../../src/errors.js';
import { CHAIN_ID, DEV, rawTx } from '../../helpers/accounts.js';

const wallet = new Wallet(DEV[1].key);
const TO = '0x' + '42'.repeat(20);

async function signed(fields: Record<string, unknown>, chainId = CHAIN_ID): Promise<string> {
  return wallet.signTransaction({ type: 0, chainId, nonce: 7, gasPrice: 20_000_000_000n, gasLimit: 21_000n, to: TO, value: 1234n, data: '0x', ...fields });
}

t.test('decodes what ethers signs: fields, sender, hash = keccak(raw)', async (t) => {
  const raw = await signed({ data: '0xdeadbeef' });
  const tx = decodeTransaction(hexToBytes(raw), CHAIN_ID);
  const ethersTx = Transaction.from(raw);
  t.equal(tx.classic, true);
  t.equal(bytesToHex(tx.from), DEV[1].address, 'recovered sender');
  t.equal(bytesToHex(tx.hash), ethersTx.hash, 'hash as ethers computes it');
  t.equal(bytesToHex(tx.hash), bytesToHex(keccak256(hexToBytes(raw))));
  t.equal(bytesToHex(tx.raw), raw, 'raw kept as sent');
  t.same([tx.nonce, tx.gasPrice, tx.gas, tx.value, tx.syscnt, tx.shardingFlag], [7n, 20_000_000_000n, 21_000n, 1234n, 0n, 0n]);
  t.equal(tx.via, null);
  t.equal(bytesToHex(tx.to!), TO);
  t.equal(bytesToHex(tx.data), '0xdeadbeef');
  t.equal(tx.v, ethersTx.signature!.networkV);
  // our signing payload is the one ethers hashed (its unsignedHash)
  t.equal(bytesToHex(keccak256(encodeClassicSigningPayload(tx, CHAIN_ID))), ethersTx.unsignedHash);
  t.equal(bytesToHex(encodeClassicTransaction(tx)), raw, 're-encodes to the same bytes');
});

t.test('contract creation and both recovery ids', async (t) => {
  const seen = new Set<bigint>();
  for (let nonce = 0; nonce < 12 && seen.size < 2; nonce++) {
    const raw = await signed({ nonce, to: null, data: '0x6000', gasLimit: 100_000n });
    const tx = decodeTransaction(hexToBytes(raw), CHAIN_ID);
    t.equal(tx.to, null);
    t.equal(bytesToHex(tx.from), DEV[1].address);
    seen.add(tx.v);
  }
  t.same([...seen].sort(), [235n, 236n], 'v = 35 + 2·100 + {0,1}');
});

const kindOf = (fn: () => unknown): { kind?: string; message: string } => {
  try {
    fn();
  } catch (err) {
    return { kind: (err as NodeError).kind, message: (err as Error).message };
  }
  return { message: 'no error' };
};

t.test('refusals: wrong chain, unprotected, typed envelopes, malformed', async (t) => {
  const other = await signed({}, 5n);
  t.match(kindOf(() => decodeTransaction(hexToBytes(other), CHAIN_ID)), { kind: 'invalidTransaction', message: /invalid chain id: have 5, want 100/ });

  const unprotected = wallet.signingKey.sign(keccak256(RLP.encode([7, 1, 21000, hexToBytes(TO), 5, new Uint8Array()])));
  const legacy = RLP.encode([7, 1, 21000, hexToBytes(TO), 5, new Uint8Array(), unprotected.v, hexToBytes(unprotected.r), hexToBytes(unprotected.s)]);
  t.match(kindOf(() => decodeTransaction(legacy, CHAIN_ID)), { kind: 'invalidTransaction', message: /unprotected/ });

  const fees = [{ gasPrice: 1n }, { maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }];
  for (const type of [1, 2]) {
    const typed = await wallet.signTransaction({ type, chainId: CHAIN_ID, nonce: 0, gasLimit: 21000n, to: TO, ...fees[type - 1] });
    t.same(kindOf(() => decodeTransaction(hexToBytes(typed), CHAIN_ID)), { kind: 'invalidTransaction', message: 'transaction type not supported' }, `type ${type}`);
  }
  const items = RLP.decode(hexToBytes(await signed({}))) as Uint8Array[];
  t.match(kindOf(() => decodeTransaction(RLP.encode([Uint8Array.from([0, 7]), ...items.slice(1)]), CHAIN_ID)), { message: /non-canonical integer .* for nonce/ });
  const tampered = RLP.encode([items[0], items[1], items[2], items[3], Uint8Array.from([9]), ...items.slice(5)]);
  const other2 = decodeTransaction(tampered, CHAIN_ID);
  t.not(bytesToHex(other2.from), DEV[1].address, 'changed value: another sender is recovered');
});

t.test('activation block and stored form', async (t) => {
  const tx = decodeTransaction(hexToBytes(await signed({})), CHAIN_ID);
  t.equal(checkClassicAllowed(tx, 5n, 0n), tx);
  t.equal(checkClassicAllowed(tx, 5n, 5n), tx);
  t.match(kindOf(() => checkClassicAllowed(tx, 4n, 5n)), { kind: 'invalidTransaction', message: /^transaction type not supported: classic transactions from block 5/ });
  t.match(kindOf(() => checkClassicAllowed(tx, 4n, undefined)), { kind: 'invalidTransaction', message: /^transaction type not supported/ });
  const moac = decodeTransaction(hexToBytes(rawTx(DEV[0].key, { nonce: 0n }).raw), CHAIN_ID);
  t.equal(checkClassicAllowed(moac, 0n, undefined), moac, 'MOAC transactions are not affected');
  t.equal(moac.classic, undefined);

  const stored = decodeTrustedTransaction(tx.raw, tx.from);
  t.equal(stored.classic, true);
  t.equal(bytesToHex(stored.hash), bytesToHex(tx.hash));
  t.same(stored, tx);
});
