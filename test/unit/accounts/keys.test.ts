import t from 'tap';
import { HDKey } from 'ethereum-cryptography/hdkey.js';
import { mnemonicToSeedSync } from 'ethereum-cryptography/bip39/index.js';
import secp256k1 from 'secp256k1';
import { deriveDevAccounts, deriveDevKeys, isPrivateKey, privateKeyToAddress, publicKeyOf, publicKeyToAddress, randomPrivateKey } from '../../../src/accounts/keys.js';
import { DEFAULT_DEV_MNEMONIC, defaultDevAccounts } from '../../../src/accounts/defaultDevKeys.js';
import { SECP256K1_N } from '../../../src/chain/secp256k1.js';
import { bigintToFixed } from '../../../src/encoding/bytes.js';
import { toChecksumAddress } from '../../../src/encoding/address.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { ConfigError } from '../../../src/errors.js';

const TEST_MNEMONIC = 'test test test test test test test test test test test junk';
// Computed once with this code and pinned: a change here would move every dev account.
const FIRST_DEV_ADDRESS = '0xc4c4fb5146a694d58521b4a135564765b6cec4fa';

t.test('address of the Vector A key', async (t) => {
  const key = hexToBytes('0xc75a5f85ef779dcf95c651612efb3c3b9a6dfafb1bb5375905454d9fc8be8a6b');
  t.equal(bytesToHex(privateKeyToAddress(key)), '0x7312f4b8a4457a36827f185325fd6b66a3f8bb8b');
  t.throws(() => privateKeyToAddress(new Uint8Array(32)), RangeError, 'zero key');
  t.throws(() => privateKeyToAddress(new Uint8Array(31).fill(1)), RangeError, 'short key');
  t.throws(() => publicKeyToAddress(new Uint8Array(33)), RangeError, 'compressed public key');
});

t.test('EIP-55 checksum', async (t) => {
  // the mixed-case `to` of Vector A as published by chain3
  t.equal(toChecksumAddress(hexToBytes('0xd814f2ac2c4ca49b33066582e4e97ebae02f2ab9')), '0xD814F2ac2c4cA49b33066582E4e97EBae02F2aB9');
  // EIP-55 examples
  t.equal(toChecksumAddress(hexToBytes('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')), '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
  t.equal(toChecksumAddress(hexToBytes('0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359')), '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359');
  t.throws(() => toChecksumAddress(new Uint8Array(19)), RangeError);
});

t.test('dev keys are deterministic, distinct and follow m/44\'/314\'/0\'/0/i', async (t) => {
  const keys = deriveDevKeys(TEST_MNEMONIC, 10);
  t.equal(keys.length, 10);
  t.equal(new Set(keys.map(bytesToHex)).size, 10, '10 distinct keys');
  t.same(deriveDevKeys(TEST_MNEMONIC, 10).map(bytesToHex), keys.map(bytesToHex), 'same keys on a second run');
  t.same(deriveDevKeys(TEST_MNEMONIC, 3).map(bytesToHex), keys.slice(0, 3).map(bytesToHex), 'a prefix for a smaller count');
  t.same(deriveDevKeys(`  ${TEST_MNEMONIC.replace(/ /g, '\n ')}  `, 1).map(bytesToHex), [bytesToHex(keys[0])], 'extra whitespace ignored');
  t.equal(deriveDevKeys(TEST_MNEMONIC, 0).length, 0);

  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(TEST_MNEMONIC));
  for (const i of [0, 7]) {
    t.equal(bytesToHex(keys[i]), bytesToHex(root.derive(`m/44'/314'/0'/0/${i}`).privateKey!), `full path for index ${i}`);
  }
  t.not(bytesToHex(keys[0]), bytesToHex(root.derive("m/44'/60'/0'/0/0").privateKey!), 'not the Ethereum coin type');
  t.equal(bytesToHex(privateKeyToAddress(keys[0])), FIRST_DEV_ADDRESS, 'first dev address is stable');
});

t.test('bad mnemonics are rejected with a clear error', async (t) => {
  t.throws(() => deriveDevKeys('test test test test test test test test test test test test', 1),
    { name: 'ConfigError', message: /invalid BIP-39 mnemonic.*checksum/ }, 'bad checksum');
  t.throws(() => deriveDevKeys('test test test junk', 1), { message: /4 words/ }, 'too few words');
  t.throws(() => deriveDevKeys('test test test test test test test test test test test jumk', 1),
    { message: /unknown word "jumk"/ }, 'unknown word');
  t.throws(() => deriveDevKeys('', 1), ConfigError, 'empty');
  t.throws(() => deriveDevKeys(TEST_MNEMONIC, -1), RangeError, 'negative count');
});

t.test('random keys are valid and different', async (t) => {
  const a = randomPrivateKey();
  const b = randomPrivateKey();
  t.equal(a.length, 32);
  t.not(bytesToHex(a), bytesToHex(b));
  t.equal(privateKeyToAddress(a).length, 20);
});

t.test('the default mnemonic\'s table equals the derivation', async (t) => {
  t.equal(DEFAULT_DEV_MNEMONIC, TEST_MNEMONIC);
  const derived = deriveDevKeys(DEFAULT_DEV_MNEMONIC, defaultDevAccounts.length);
  t.same(defaultDevAccounts.map(([key]) => bytesToHex(key)), derived.map(bytesToHex), 'private keys');
  t.same(defaultDevAccounts.map(([, address]) => bytesToHex(address)), derived.map((k) => bytesToHex(privateKeyToAddress(k))), 'addresses');
  const accounts = deriveDevAccounts(`  ${TEST_MNEMONIC}\n`, 4);
  t.same(accounts.map((a) => bytesToHex(a.privateKey)), derived.slice(0, 4).map(bytesToHex), 'deriveDevAccounts takes the table');
  accounts[0].privateKey.fill(0);
  t.equal(bytesToHex(deriveDevAccounts(TEST_MNEMONIC, 1)[0].privateKey), bytesToHex(derived[0]), 'copies: a caller cannot change the table');
  const more = deriveDevAccounts(TEST_MNEMONIC, 12);
  t.equal(more.length, 12, 'beyond the table: derived');
  t.same(more.slice(0, 10).map((a) => bytesToHex(a.address)), defaultDevAccounts.map(([, a]) => bytesToHex(a)));
  t.same(more.map((a) => bytesToHex(a.address)), more.map((a) => bytesToHex(privateKeyToAddress(a.privateKey))));
  const other = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
  const otherAccounts = deriveDevAccounts(other, 2);
  t.same(otherAccounts.map((a) => bytesToHex(a.privateKey)), deriveDevKeys(other, 2).map(bytesToHex), 'another mnemonic: derived');
  t.notSame(bytesToHex(otherAccounts[0].privateKey), bytesToHex(derived[0]));
});

t.test('public keys from node:crypto equal the native library\'s', async (t) => {
  const keys = [bigintToFixed(1n, 32), bigintToFixed(SECP256K1_N - 1n, 32), ...Array.from({ length: 50 }, () => randomPrivateKey())];
  for (const key of keys) {
    t.equal(bytesToHex(publicKeyOf(key)), bytesToHex(secp256k1.publicKeyCreate(key, false)), 'uncompressed');
    t.equal(bytesToHex(publicKeyOf(key, true)), bytesToHex(secp256k1.publicKeyCreate(key, true)), 'compressed');
  }
  for (const bad of [new Uint8Array(32), bigintToFixed(SECP256K1_N, 32), bigintToFixed(SECP256K1_N + 1n, 32), new Uint8Array(33).fill(1)]) {
    t.equal(isPrivateKey(bad), secp256k1.privateKeyVerify(bad.length === 32 ? bad : new Uint8Array(32)) && bad.length === 32, 'range check as the library');
    t.throws(() => publicKeyOf(bad), RangeError);
  }
  t.ok(isPrivateKey(bigintToFixed(SECP256K1_N - 1n, 32)));
});
