// Web3 Secret Storage v3 files: the spec's test vectors (pbkdf2 and scrypt), round trips, and
// the keystore directory as geth lays it out.

import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { Keystore, LIGHT_SCRYPT, decryptKey, encryptKey, keyFileName } from '../../../src/accounts/keystore.js';
import { privateKeyToAddress } from '../../../src/accounts/keys.js';
import { bytesToHex } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

// From the Web3 Secret Storage definition (password "testpassword").
const SPEC_KEY = '0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d';
const PBKDF2 = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '6087dab2f9fdbbfaddc31a909735c1e6' },
    ciphertext: '5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46',
    kdf: 'pbkdf2',
    kdfparams: { c: 262144, dklen: 32, prf: 'hmac-sha256', salt: 'ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd' },
    mac: '517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
};
const SCRYPT = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '83dbcc02d8ccb40e466191a123791e0e' },
    ciphertext: 'd172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c',
    kdf: 'scrypt',
    kdfparams: { dklen: 32, n: 262144, r: 1, p: 8, salt: 'ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19' },
    mac: '2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
};
const WRONG = { kind: 'unauthorized', message: 'could not decrypt key with given password' };

t.test('the spec vectors decrypt; a wrong password is refused', async (t) => {
  t.equal(bytesToHex(await decryptKey(PBKDF2, 'testpassword')), SPEC_KEY, 'pbkdf2');
  t.equal(bytesToHex(await decryptKey(SCRYPT, 'testpassword')), SPEC_KEY, 'scrypt (r=1: computed in JS)');
  await t.rejects(decryptKey(PBKDF2, 'testpassworD'), WRONG);
  const capital = { ...PBKDF2, Crypto: PBKDF2.crypto, crypto: undefined };
  t.equal(bytesToHex(await decryptKey(capital, 'testpassword')), SPEC_KEY, '"Crypto" as some tools write it');
});

t.test('unsupported or malformed files', async (t) => {
  await t.rejects(decryptKey({ ...PBKDF2, version: 2 }, 'x'), { kind: 'keyFile', message: 'unsupported key file: version is not 3' });
  await t.rejects(decryptKey({ ...PBKDF2, crypto: { ...PBKDF2.crypto, cipher: 'aes-128-cbc' } }, 'x'), { message: 'unsupported key file: cipher aes-128-cbc' });
  await t.rejects(decryptKey({ ...PBKDF2, crypto: { ...PBKDF2.crypto, kdf: 'argon2' } }, 'x'), { message: 'unsupported key file: kdf argon2' });
  await t.rejects(decryptKey({ ...PBKDF2, crypto: { ...PBKDF2.crypto, mac: 'zz' } }, 'x'), { message: 'unsupported key file: malformed crypto section' });
  const huge = { ...SCRYPT, crypto: { ...SCRYPT.crypto, kdfparams: { ...SCRYPT.crypto.kdfparams, n: 2 ** 24, r: 8 } } };
  await t.rejects(decryptKey(huge, 'x'), { message: /scrypt parameters too large/ }, 'a file cannot make us allocate gigabytes');
  await t.rejects(decryptKey(null, 'x'), { name: 'NodeError', kind: 'keyFile' });
});

t.test('encrypt → decrypt round trip (light scrypt)', async (t) => {
  const key = new Uint8Array(32).fill(7);
  const file = await encryptKey(key, 'pw', LIGHT_SCRYPT);
  t.equal(file.version, 3);
  t.equal(file.address, bytesToHex(privateKeyToAddress(key)).slice(2));
  t.same(file.crypto.kdfparams.n, 4096);
  t.match(file.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.same(await decryptKey(JSON.parse(JSON.stringify(file)), 'pw'), key);
  await t.rejects(decryptKey(file, 'pw2'), WRONG);
});

t.test('the keystore directory', async (t) => {
  const dir = path.join(testDir(t, { keystore: { 'README.txt': 'not a key', '.hidden': '{}' } }), 'keystore');
  const ks = new Keystore(dir, LIGHT_SCRYPT);
  t.same(await ks.list(), [], 'non-key files are ignored');
  const a = await ks.newAccount('one');
  const b = await ks.importKey(new Uint8Array(32).fill(9), 'two');
  t.same((await ks.list()).map((e) => bytesToHex(e.address)), [a, b].map((e) => bytesToHex(e.address)));
  t.match(path.basename(a.file), new RegExp(`^UTC--\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d\\.\\d{3}Z--${bytesToHex(a.address).slice(2)}$`));
  t.equal(keyFileName(a.address, new Date('2024-01-02T03:04:05.678Z')), `UTC--2024-01-02T03-04-05.678Z--${bytesToHex(a.address).slice(2)}`);
  t.same(await ks.decrypt(b.address, 'two'), new Uint8Array(32).fill(9));
  await t.rejects(ks.decrypt(b.address, 'one'), WRONG);
  await t.rejects(ks.decrypt(new Uint8Array(20), 'one'), { kind: 'notFound', message: 'no key for given address or file' });
  await t.rejects(ks.importKey(new Uint8Array(32).fill(9), 'x'), { message: 'account already exists' });
  t.same(fs.readdirSync(dir).filter((f) => f.startsWith('.') && f.endsWith('.tmp')), [], 'no temp files left');
  t.same(await new Keystore(path.join(dir, 'missing')).list(), [], 'a missing directory is empty');
});
