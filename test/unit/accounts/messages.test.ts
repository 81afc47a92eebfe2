import t from 'tap';
import { readFileSync } from 'node:fs';
import { hashMessage, recoverHashSigner, signHash } from '../../../src/accounts/messages.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { NodeError } from '../../../src/errors.js';

const vectors = JSON.parse(readFileSync(new URL('../../fixtures/moac-vectors.json', import.meta.url), 'utf8'));
const key = hexToBytes(vectors.key);
const utf8 = (s: string) => new TextEncoder().encode(s);

t.test('32-byte hex messages: prefixed hash, signature, recovery', async (t) => {
  for (const v of vectors.messages.hex) {
    const hash = hashMessage(hexToBytes(v.msg));
    t.equal(bytesToHex(hash), v.hash, 'hash');
    t.equal(bytesToHex(signHash(hash, key)), v.sig, 'signature');
    t.equal(bytesToHex(recoverHashSigner(hash, hexToBytes(v.sig))), vectors.address, 'recovered signer');
  }
});

t.test('"hello" as UTF-8', async (t) => {
  const v = vectors.messages.hello;
  t.equal(bytesToHex(utf8(v.msg)), v.hex);
  const hash = hashMessage(utf8(v.msg));
  t.equal(bytesToHex(hash), v.hash);
  t.equal(bytesToHex(signHash(hash, key)), v.sig);
  t.equal(bytesToHex(recoverHashSigner(hash, hexToBytes(v.sig))), vectors.address);
});

t.test('UTF-8 message signed by another key (chain3 test vector)', async (t) => {
  const v = vectors.messages.utf8;
  const signer = recoverHashSigner(hashMessage(utf8(v.msg)), hexToBytes(v.sig));
  t.equal(bytesToHex(signer), v.signer);
  // one changed byte of the message yields a different signer
  const other = recoverHashSigner(hashMessage(utf8(v.msg + ' ')), hexToBytes(v.sig));
  t.not(bytesToHex(other), v.signer);
});

t.test('the length prefix is the decimal byte length', async (t) => {
  // 100 bytes → "100", not "0x64" or a single byte
  const message = new Uint8Array(100).fill(0x61);
  const { keccak256, concatBytes } = await import('../../../src/encoding/bytes.js');
  const expected = keccak256(concatBytes(utf8('\x19MoacNode Signed Message:\n100'), message));
  t.equal(bytesToHex(hashMessage(message)), bytesToHex(expected));
  t.equal(bytesToHex(hashMessage(new Uint8Array())), bytesToHex(keccak256(utf8('\x19MoacNode Signed Message:\n0'))));
});

t.test('signature checks', async (t) => {
  const v = vectors.messages.hello;
  const hash = hexToBytes(v.hash);
  const sig = hexToBytes(v.sig);
  const fail = (s: Uint8Array, kind: string, pattern: RegExp, what: string) => {
    try {
      recoverHashSigner(hash, s);
      t.fail(`${what}: accepted`);
    } catch (err) {
      t.ok(err instanceof NodeError, what);
      t.equal((err as NodeError).kind, kind, `${what}: kind`);
      t.match((err as Error).message, pattern, `${what}: message`);
    }
  };
  for (const badV of [0, 1, 26, 29, 37]) {
    const s = sig.slice();
    s[64] = badV;
    fail(s, 'invalidSignature', /^invalid MoacNode signature \(V is not 27 or 28\)$/, `v = ${badV}`);
  }
  fail(sig.subarray(0, 64), 'invalidParams', /65 bytes/, '64-byte signature');
  fail(Uint8Array.from([...sig, 0]), 'invalidParams', /65 bytes/, '66-byte signature');
  const zeroR = sig.slice();
  zeroR.fill(0, 0, 32);
  fail(zeroR, 'invalidSignature', /invalid signature/, 'r = 0');
  // the other recovery id gives a different (valid) key, not the signer
  const flipped = sig.slice();
  flipped[64] = flipped[64] === 27 ? 28 : 27;
  try {
    t.not(bytesToHex(recoverHashSigner(hash, flipped)), vectors.address, 'flipped v');
  } catch (err) {
    t.equal((err as NodeError).kind, 'invalidSignature', 'flipped v');
  }
});
