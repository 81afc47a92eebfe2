import t from 'tap';
import { readFileSync } from 'node:fs';
import { RLP } from '@ethereumjs/rlp';
import Chain3 from 'chain3';
import secp256k1 from 'secp256k1';
import {
  contractAddress, decodeTransaction, decodeTrustedTransaction, encodeSignedTransaction, encodeSigningPayload, signingHash, signTransaction,
} from '../../../src/chain/transaction.js';
import type { SignedTx, TxFields } from '../../../src/chain/types.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { concatBytes, keccak256 } from '../../../src/encoding/bytes.js';
import { DecodeError, NodeError } from '../../../src/errors.js';

type T = Pick<typeof t, 'ok' | 'equal' | 'match' | 'fail' | 'not'>;

const vectors = JSON.parse(readFileSync(new URL('../../fixtures/moac-vectors.json', import.meta.url), 'utf8'));
const key = hexToBytes(vectors.key);
const sender: string = vectors.address;

interface JsonTx {
  nonce: string; gasPrice: string; gas: string; to: string | null; value: string; data: string;
  shardingFlag: string; via: string | null;
}

const fromJson = (tx: JsonTx): TxFields => ({
  nonce: BigInt(tx.nonce),
  syscnt: 0n,
  gasPrice: BigInt(tx.gasPrice),
  gas: BigInt(tx.gas),
  to: tx.to === null ? null : hexToBytes(tx.to),
  value: BigInt(tx.value),
  data: hexToBytes(tx.data),
  shardingFlag: BigInt(tx.shardingFlag),
  via: tx.via === null ? null : hexToBytes(tx.via),
});

const txA = fromJson(vectors.transactions.A.fields);
const txB = fromJson(vectors.transactions.B.tx);
const txC = fromJson(vectors.transactions.C.tx);

/** Asserts the decoded fields, sender and hash against the source fields and the vector. */
function checkDecoded(t: T, decoded: SignedTx, fields: TxFields, raw: string, hash: string) {
  t.equal(decoded.nonce, fields.nonce, 'nonce');
  t.equal(decoded.syscnt, 0n, 'syscnt');
  t.equal(decoded.gasPrice, fields.gasPrice, 'gasPrice');
  t.equal(decoded.gas, fields.gas, 'gas');
  t.equal(decoded.to && bytesToHex(decoded.to), fields.to && bytesToHex(fields.to), 'to');
  t.equal(decoded.value, fields.value, 'value');
  t.equal(bytesToHex(decoded.data), bytesToHex(fields.data), 'data');
  t.equal(decoded.shardingFlag, fields.shardingFlag, 'shardingFlag');
  t.equal(decoded.via && bytesToHex(decoded.via), fields.via && bytesToHex(fields.via), 'via');
  t.equal(bytesToHex(decoded.from), sender, 'sender');
  t.equal(bytesToHex(decoded.hash), hash, 'hash');
  t.equal(bytesToHex(decoded.raw), raw, 'raw');
}

t.test('Vector A on every chain id: payload, signing hash, v/r/s, raw and hash', async (t) => {
  for (const chain of vectors.transactions.A.chains) {
    const chainId = BigInt(chain.chainId);
    t.test(`chain ${chain.chainId}`, async (t) => {
      if (chain.payload) t.equal(bytesToHex(encodeSigningPayload(txA, chainId)), chain.payload, 'payload');
      t.equal(bytesToHex(signingHash(txA, chainId)), chain.signingHash, 'signing hash');
      const signed = signTransaction(txA, key, chainId);
      t.equal(signed.v, BigInt(chain.v), 'v');
      if (chain.r) t.equal(signed.r, BigInt(chain.r), 'r');
      if (chain.s) t.equal(signed.s, BigInt(chain.s), 's');
      t.equal(bytesToHex(signed.raw), chain.raw, 'raw');
      t.equal(bytesToHex(signed.hash), chain.hash, 'hash');
      t.equal(bytesToHex(signed.from), sender, 'from');
      t.equal(bytesToHex(encodeSignedTransaction(signed)), chain.raw, 'encodeSignedTransaction');

      const decoded = decodeTransaction(hexToBytes(chain.raw), chainId);
      checkDecoded(t, decoded, txA, chain.raw, chain.hash);
      t.equal(decoded.v, signed.v);
      t.equal(decoded.r, signed.r);
      t.equal(decoded.s, signed.s);
    });
  }
});

t.test('Vectors B (plain transfer) and C (app-chain DirectCall)', async (t) => {
  for (const [name, fields] of [['B', txB], ['C', txC]] as const) {
    const vector = vectors.transactions[name];
    const chainId = BigInt(vector.chainId);
    const signed = signTransaction(fields, key, chainId);
    t.equal(bytesToHex(signed.raw), vector.raw, `${name} raw`);
    t.equal(bytesToHex(signed.hash), vector.hash, `${name} hash`);
    if (vector.v) t.equal(signed.v, BigInt(vector.v), `${name} v`);
    checkDecoded(t, decodeTransaction(hexToBytes(vector.raw), chainId), fields, vector.raw, vector.hash);
  }
});

t.test('contract address of the vector key at nonce 0', async (t) => {
  t.equal(bytesToHex(contractAddress(hexToBytes(sender), 0n)), vectors.contractAddressOfKeyAtNonce0);
  t.not(bytesToHex(contractAddress(hexToBytes(sender), 1n)), vectors.contractAddressOfKeyAtNonce0);
});

t.test('contract creation (to = null) round-trips', async (t) => {
  const create: TxFields = { ...txB, to: null, data: Uint8Array.from([0x60, 0x00, 0x60, 0x00]) };
  const signed = signTransaction(create, key, 100n);
  const items = RLP.decode(signed.raw) as Uint8Array[];
  t.equal(items[4].length, 0, 'to is the empty string');
  const decoded = decodeTransaction(signed.raw, 100n);
  t.equal(decoded.to, null);
  t.equal(bytesToHex(decoded.from), sender);
});

// --- rejections ---------------------------------------------------------------------------

/** `kind` is a NodeError kind, or 'decode' for a DecodeError (malformed RLP). */
function rejects(t: T, raw: Uint8Array, chainId: bigint, kind: string, pattern: RegExp, what: string) {
  try {
    decodeTransaction(raw, chainId);
    t.fail(`${what}: accepted`);
  } catch (err) {
    if (kind === 'decode') t.ok(err instanceof DecodeError, `${what}: DecodeError`);
    else t.ok(err instanceof NodeError, `${what}: NodeError`);
    if (kind !== 'decode') t.equal((err as NodeError).kind, kind, `${what}: kind`);
    t.match((err as Error).message, pattern, `${what}: message`);
  }
}

const itemsOf = (raw: string): Uint8Array[] => RLP.decode(hexToBytes(raw)) as Uint8Array[];
const rawB = vectors.transactions.B.raw as string;

t.test('rejects unprotected, foreign-chain and badly signed transactions', async (t) => {
  // Re-sign Vector B the pre-EIP-155 way: v = 27/28 over the hash of the nine fields alone.
  const sig = secp256k1.ecdsaSign(keccak256(RLP.encode(itemsOf(rawB).slice(0, 9))), key);
  const unprotected = RLP.encode([...itemsOf(rawB).slice(0, 9), 27 + sig.recid, sig.signature.subarray(0, 32), sig.signature.subarray(32)]);
  rejects(t, unprotected, 101n, 'invalidTransaction', /^invalid sender: unprotected transaction \(v = 27\/28\) is not accepted$/, 'v=27/28');

  rejects(t, hexToBytes(rawB), 100n, 'invalidTransaction', /^invalid chain id: have 101, want 100$/, 'wrong chain id');
  rejects(t, hexToBytes(vectors.transactions.A.chains[0].raw), 1099n, 'invalidTransaction', /^invalid chain id: have 106, want 1099$/, 'chain 106 on 1099');

  const items = itemsOf(rawB);
  const withS = (s: Uint8Array) => RLP.encode([...items.slice(0, 11), s]);
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const highS = n - BigInt(bytesToHex(items[11]));
  rejects(t, withS(hexToBytes('0x' + highS.toString(16).padStart(64, '0'))), 101n, 'invalidTransaction', /^invalid sender: invalid signature$/, 'high s');
  rejects(t, withS(new Uint8Array()), 101n, 'invalidTransaction', /^invalid sender: invalid signature$/, 's = 0');
  rejects(t, RLP.encode([...items.slice(0, 10), new Uint8Array(), items[11]]), 101n, 'invalidTransaction', /invalid signature/, 'r = 0');
  rejects(t, RLP.encode([...items.slice(0, 10), hexToBytes('0x' + n.toString(16)), items[11]]), 101n, 'invalidTransaction', /invalid signature/, 'r = n');
  rejects(t, RLP.encode([...items.slice(0, 9), 30, items[10], items[11]]), 101n, 'invalidTransaction', /invalid signature/, 'v = 30');

  // A changed field makes the signature recover a different sender, or none at all.
  const tampered = RLP.encode([items[0], ...items.slice(1, 5), hexToBytes('0x0de0b6b3a7640001'), ...items.slice(6)]);
  try {
    const decoded = decodeTransaction(tampered, 101n);
    t.not(bytesToHex(decoded.from), sender, 'tampered value recovers another sender');
  } catch (err) {
    t.equal((err as NodeError).kind, 'invalidTransaction');
  }
  // r = 5: x³ + 7 is a quadratic non-residue mod p, so no curve point has x = 5 and recovery fails
  rejects(t, RLP.encode([...items.slice(0, 10), 5, items[11]]), 101n, 'invalidTransaction', /^invalid sender: invalid signature$/, 'r off the curve');
});

t.test('rejects malformed RLP with a decode error (rpc/params.ts names the argument)', async (t) => {
  const items = itemsOf(rawB);
  const rlpError = (raw: Uint8Array, pattern: RegExp, what: string) =>
    rejects(t, raw, 101n, 'decode', new RegExp('^rlp: ' + pattern.source), what);

  rlpError(RLP.encode(items.slice(0, 8)), /too few elements for transaction/, '8-item list');
  rlpError(RLP.encode(items.slice(0, 10)), /too few elements for transaction/, '10-item list');
  rlpError(RLP.encode(items.slice(0, 11)), /too few elements/, '11-item list');
  rlpError(RLP.encode([...items, new Uint8Array()]), /input list has too many elements/, '13-item list');
  rlpError(RLP.encode([Uint8Array.from([0, 1]), ...items.slice(1)]), /non-canonical integer \(leading zero bytes\) for nonce/, 'nonce 0x0001');
  rlpError(RLP.encode([...items.slice(0, 5), Uint8Array.from([0, ...items[5]]), ...items.slice(6)]), /non-canonical integer .* for value/, 'value with leading zero');
  rlpError(RLP.encode([Uint8Array.from([0]), ...items.slice(1)]), /non-canonical integer/, 'nonce as byte 0x00');
  rlpError(RLP.encode([...items.slice(0, 4), items[4].subarray(1), ...items.slice(5)]), /input string too short for to/, '19-byte to');
  rlpError(RLP.encode([...items.slice(0, 8), new Uint8Array(21), ...items.slice(9)]), /input string too long for via/, '21-byte via');
  rlpError(RLP.encode([new Uint8Array(9).fill(1), ...items.slice(1)]), /input string too long for nonce/, '9-byte nonce');
  rlpError(RLP.encode([...items.slice(0, 6), [new Uint8Array(1)], ...items.slice(7)]), /expected input string or byte for input/, 'list as data');
  rlpError(Uint8Array.from([...hexToBytes(rawB), 0x80]), /input contains more than one value/, 'trailing bytes');
  rlpError(hexToBytes(rawB).subarray(0, 50), /./, 'truncated');
  rlpError(hexToBytes('0x8180'), /expected input list/, 'a string, not a list');
  rlpError(new Uint8Array(), /empty input/, 'empty');
  // hand-built lists, for encodings RLP.encode would never produce
  const encoded = items.map((item) => RLP.encode(item));
  const listWith = (index: number, replacement: string) => {
    const body = concatBytes(...encoded.map((e, i) => (i === index ? hexToBytes(replacement) : e)));
    return concatBytes(Uint8Array.from([0xf8, body.length]), body);
  };
  t.equal(bytesToHex(listWith(6, '0x80')), rawB, 'hand-built list matches the vector');
  rlpError(listWith(6, '0xb80101'), /./, 'long-form size for a 1-byte string');
  rlpError(listWith(0, '0x8105'), /invalid prefix, single byte/, 'single byte < 0x80 with a prefix');
});

t.test('rejects shardingFlag >= 4 and non-zero syscnt', async (t) => {
  const fields = { ...txB, shardingFlag: 4n };
  const signed = signTransaction(fields, key, 101n);
  rejects(t, signed.raw, 101n, 'invalidTransaction', /^shardingFlag error$/, 'shardingFlag 4');
  const ok = signTransaction({ ...txB, shardingFlag: 3n }, key, 101n);
  t.equal(decodeTransaction(ok.raw, 101n).shardingFlag, 3n, 'shardingFlag 3 accepted');
  const sys = signTransaction({ ...txB, syscnt: 101n }, key, 101n);
  rejects(t, sys.raw, 101n, 'invalidTransaction', /syscnt must be 0/, 'syscnt 101');
});

t.test('decodeTrustedTransaction: stored bytes and sender, no policy checks', async (t) => {
  const c = vectors.transactions.C;
  const from = hexToBytes(sender);
  const decoded = decodeTrustedTransaction(hexToBytes(c.raw), from);
  checkDecoded(t, decoded, txC, c.raw, c.hash);
  t.equal(decoded.v, BigInt(c.v));
  t.equal(decoded.from, from, 'sender taken as given');
  // a system transaction (syscnt 101, v = r = s = 0) is stored as such
  const system = encodeSignedTransaction({ ...txB, syscnt: 101n, v: 0n, r: 0n, s: 0n });
  t.equal(decodeTrustedTransaction(system, new Uint8Array(20)).syscnt, 101n);
  t.throws(() => decodeTrustedTransaction(hexToBytes(c.raw).subarray(1), from), { message: /^stored transaction is corrupt: / });
});

// --- cross-check with the real client -----------------------------------------------------

const hex = (n: bigint) => '0x' + n.toString(16);
const randomBigint = (bytes: number) => {
  const b = new Uint8Array(bytes);
  crypto.getRandomValues(b);
  return BigInt(bytesToHex(b)) >> BigInt(Math.floor(Math.random() * bytes * 8));
};
const randomBytes = (n: number) => crypto.getRandomValues(new Uint8Array(n));

t.test('chain3.signTransaction produces the same raw bytes (chain id 100)', async (t) => {
  const chain3 = new Chain3();
  const quiet = console.log;
  console.log = () => {}; // chain3 prints debug R/S values
  try {
    for (let i = 0; i < 12; i++) {
      const signer = randomBytes(32);
      const withVia = i % 3 === 0;
      const fields: TxFields = {
        nonce: randomBigint(4),
        syscnt: 0n,
        gasPrice: randomBigint(6),
        gas: randomBigint(3) + 1n,
        to: i % 4 === 1 ? null : randomBytes(20),
        value: randomBigint(12),
        data: randomBytes(i * 9),
        shardingFlag: withVia ? BigInt(1 + (i % 3)) : 0n,
        via: withVia ? randomBytes(20) : null,
      };
      const mine = signTransaction(fields, signer, 100n);
      const theirs = chain3.signTransaction({
        nonce: hex(fields.nonce),
        gasPrice: hex(fields.gasPrice),
        gasLimit: hex(fields.gas),
        to: fields.to ? bytesToHex(fields.to) : undefined,
        value: hex(fields.value),
        data: bytesToHex(fields.data),
        shardingFlag: Number(fields.shardingFlag),
        via: fields.via ? bytesToHex(fields.via) : undefined,
        chainId: 100,
      }, bytesToHex(signer));
      t.equal(theirs, bytesToHex(mine.raw), `random tx ${i}`);
      const decoded = decodeTransaction(mine.raw, 100n);
      t.equal(bytesToHex(decoded.hash), bytesToHex(mine.hash), `random tx ${i} decodes`);
      t.equal(bytesToHex(decoded.from), bytesToHex(mine.from), `random tx ${i} sender`);
    }
  } finally {
    console.log = quiet;
  }
});
