// personal_* against a real node: keystore accounts, unlock/lock, one-shot signing with a
// password, message signatures (vectors from the real client), over HTTP, IPC and chain3.

import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import Chain3 from 'chain3';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV } from '../../helpers/accounts.js';
import { testDir } from '../../helpers/testDir.js';

const vectors = JSON.parse(fs.readFileSync(new URL('../../fixtures/moac-vectors.json', import.meta.url), 'utf8'));
const MC = 10n ** 18n;
const AUTH = { code: -32000, message: 'authentication needed: password or unlock' };
const WRONG = { code: -32000, message: 'could not decrypt key with given password' };
const hex = (n: bigint) => '0x' + n.toString(16);

let node: TestNode;
t.before(async () => {
  node = await startNode(testDir(t), [
    '--mining.mode', 'instant', '--lightkdf', '--allow-insecure-unlock', '--rpcapi', 'chain3,mc,net,personal,txpool',
  ]);
});
t.teardown(() => node.stop());

const receiptOf = (hash: string) => waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), `receipt ${hash}`);
const transfer = (from: string) => ({ from, to: DEV[2].address, value: '0x1', gas: '0x5208' });

t.test('new account: keystore file, listed after the dev accounts, locked', async (t) => {
  const address = await node.rpc('personal_newAccount', ['pass one']);
  t.match(address, /^0x[0-9a-f]{40}$/);
  const list = await node.rpc('personal_listAccounts');
  t.equal(list.length, 11);
  t.equal(list[0], DEV[0].address, 'dev accounts first');
  t.equal(list[10], address, 'then keystore accounts');
  t.same(await node.rpc('mc_accounts'), list);
  t.same((await node.ipcCall('personal_listAccounts')).result, list);

  const dir = path.join(node.datadir, 'keystore');
  const files = fs.readdirSync(dir);
  t.equal(files.length, 1);
  t.match(files[0], new RegExp(`^UTC--\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d\\.\\d+Z--${address.slice(2)}$`));
  const json = JSON.parse(fs.readFileSync(path.join(dir, files[0]), 'utf8'));
  t.equal(json.version, 3);
  t.equal(json.address, address.slice(2));
  t.equal(json.crypto.kdf, 'scrypt');
  t.same({ n: json.crypto.kdfparams.n, r: json.crypto.kdfparams.r, p: json.crypto.kdfparams.p }, { n: 4096, r: 8, p: 6 }, '--lightkdf');
  t.equal(fs.statSync(path.join(dir, files[0])).mode & 0o777, 0o600);

  // Fund it from a dev account (always unlocked).
  const fund = await node.rpc('mc_sendTransaction', [{ from: DEV[1].address, to: address, value: hex(10n * MC) }]);
  await receiptOf(fund);

  t.same((await node.call('mc_sendTransaction', [transfer(address)])).error, AUTH, 'locked');
  t.same((await node.call('personal_unlockAccount', [address, 'wrong', 0])).error, WRONG);
  t.same((await node.ipcCall('personal_unlockAccount', [address, 'wrong', null])).error, WRONG, 'IPC too');
  t.same((await node.call('mc_sendTransaction', [transfer(address)])).error, AUTH, 'still locked');

  t.equal(await node.rpc('personal_unlockAccount', [address, 'pass one', 0]), true);
  await receiptOf(await node.rpc('mc_sendTransaction', [transfer(address)]));
  t.equal(await node.rpc('personal_lockAccount', [address]), true);
  t.same((await node.call('mc_sendTransaction', [transfer(address)])).error, AUTH, 'locked again');
  t.same((await node.call('mc_sign', [address, '0xdeadbeef'])).error, AUTH, 'mc_sign needs the unlock too');

  // An unlock for 1 second runs out.
  t.equal((await node.ipcCall('personal_unlockAccount', [address, 'pass one', 1])).result, true);
  t.match(await node.rpc('mc_sign', [address, '0xdeadbeef']), /^0x[0-9a-f]{130}$/);
  await new Promise((r) => setTimeout(r, 1300));
  t.same((await node.call('mc_sign', [address, '0xdeadbeef'])).error, AUTH, 'expired');

  // Default duration (null → 300 s) is not over any time soon.
  t.equal(await node.rpc('personal_unlockAccount', [address, 'pass one', null]), true);
  t.match(await node.rpc('mc_sign', [address, '0xdeadbeef']), /^0x/);
  await node.rpc('personal_lockAccount', [address]);

  // personal_sendTransaction: the password opens the key for this one transaction only.
  t.same((await node.call('personal_sendTransaction', [transfer(address), 'wrong'])).error, WRONG);
  const hash = await node.rpc('personal_sendTransaction', [transfer(address), 'pass one']);
  const receipt = await receiptOf(hash);
  t.equal(receipt.from, address);
  t.same((await node.call('mc_sendTransaction', [transfer(address)])).error, AUTH, 'nothing stays unlocked');
});

t.test('import a raw key; sign and recover with the reference vectors', async (t) => {
  const address = await node.rpc('personal_importRawKey', [vectors.key.slice(2), 'vector']);
  t.equal(address, vectors.address);
  t.same((await node.call('personal_importRawKey', [vectors.key, 'again'])).error, { code: -32000, message: 'account already exists' });
  t.equal((await node.call('personal_importRawKey', ['0x1234', 'x'])).error?.code, -32602);
  t.equal((await node.call('personal_importRawKey', ['00'.repeat(32), 'x'])).error?.code, -32602, 'zero is not a key');

  for (const v of vectors.messages.hex) {
    t.equal(await node.rpc('personal_sign', [v.msg, address, 'vector']), v.sig);
    t.equal(await node.rpc('personal_ecRecover', [v.msg, v.sig]), address);
  }
  t.equal((await node.ipcCall('personal_sign', [vectors.messages.hello.hex, address, 'vector'])).result, vectors.messages.hello.sig);
  const utf8 = vectors.messages.utf8;
  t.equal(await node.rpc('personal_ecRecover', ['0x' + Buffer.from(utf8.msg).toString('hex'), utf8.sig]), utf8.signer);
  t.same((await node.call('personal_sign', [vectors.messages.hello.hex, address, 'nope'])).error, WRONG);
  const badV = vectors.messages.hello.sig.slice(0, -2) + '1d';
  t.same((await node.call('personal_ecRecover', [vectors.messages.hello.hex, badV])).error, {
    code: -32000, message: 'invalid MoacNode signature (V is not 27 or 28)',
  });
  t.same((await node.call('personal_unlockAccount', ['0x' + '42'.repeat(20), 'x', 0])).error, {
    code: -32000, message: 'no key for given address or file',
  });
  t.equal((await node.call('personal_unlockAccount', ['0x1234', 'x', 0])).error?.code, -32602, 'bad address');
  t.same((await node.call('personal_unlockAccount', [address, 'vector', 2 ** 40])).error, {
    code: -32000, message: 'unlock duration too large',
  });
});

t.test('dev accounts stay unlocked and sign without a password', async (t) => {
  t.equal(await node.rpc('personal_lockAccount', [DEV[1].address]), true);
  await receiptOf(await node.rpc('mc_sendTransaction', [transfer(DEV[1].address)]));
  t.equal(await node.rpc('personal_unlockAccount', [DEV[1].address, 'anything', 10]), true);
  const sig = await node.rpc('personal_sign', ['0xdeadbeef', DEV[1].address, '']);
  t.equal(await node.rpc('personal_ecRecover', ['0xdeadbeef', sig]), DEV[1].address);
});

t.test('chain3.personal', async (t) => {
  const chain3 = new Chain3(new Chain3.providers.HttpProvider(node.url));
  const address = chain3.personal.newAccount('c3');
  t.match(address, /^0x[0-9a-f]{40}$/);
  t.ok(chain3.personal.listAccounts.includes(address));
  await receiptOf(await node.rpc('mc_sendTransaction', [{ from: DEV[1].address, to: address, value: hex(MC) }]));
  t.equal(chain3.personal.unlockAccount(address, 'c3', 60), true);
  t.equal(chain3.personal.lockAccount(address), true);
  const sig = chain3.personal.sign('0xdeadbeef', address, 'c3');
  t.equal(chain3.personal.ecRecover('0xdeadbeef', sig), address);
  const hash = chain3.personal.sendTransaction({ from: address, to: DEV[2].address, value: 5 }, 'c3');
  t.equal((await receiptOf(hash)).status, '0x1');
  const key = 'ab'.repeat(32);
  const imported = chain3.personal.importRawKey(key, 'k');
  t.match(imported, /^0x[0-9a-f]{40}$/);
  t.throws(() => chain3.personal.unlockAccount(imported, 'wrong', 1), /could not decrypt key with given password/);
});

t.test('without --allow-insecure-unlock: no unlocking while HTTP runs; personal only where served', async (t) => {
  const strict = await startNode(testDir(t), ['--mining.mode', 'instant', '--lightkdf', '--rpcapi', 'mc,personal']);
  t.teardown(() => strict.stop());

  const address = (await strict.ipcCall('personal_newAccount', ['pw'])).result;
  t.match(address, /^0x[0-9a-f]{40}$/, 'IPC serves personal');
  const forbidden = { code: -32000, message: 'account unlock with HTTP access is forbidden' };
  t.same((await strict.ipcCall('personal_unlockAccount', [address, 'pw', 0])).error, forbidden);
  t.same((await strict.call('personal_unlockAccount', [address, 'pw', 0])).error, forbidden, 'and over HTTP');
  t.same((await strict.ipcCall('mc_sendTransaction', [{ from: address, to: DEV[2].address }])).error, AUTH, 'IPC: locked');
  t.equal((await strict.ipcCall('personal_lockAccount', [address])).result, true);
  t.equal((await strict.ipcCall('personal_importRawKey', ['cd'.repeat(32), 'k'])).result, '0x' + Buffer.from(
    (await import('../../../src/accounts/keys.js')).privateKeyToAddress(new Uint8Array(32).fill(0xcd)),
  ).toString('hex'));
  t.same((await strict.ipcCall('personal_importRawKey', ['cd'.repeat(32), 'k'])).error, { code: -32000, message: 'account already exists' });
  // One-shot use with the password stays allowed.
  const sig = (await strict.ipcCall('personal_sign', ['0x01', address, 'pw'])).result;
  t.equal((await strict.ipcCall('personal_ecRecover', ['0x01', sig])).result, address);
  const fund = await strict.rpc('mc_sendTransaction', [{ from: DEV[1].address, to: address, value: hex(MC) }]);
  await waitFor(() => strict.rpc('mc_getTransactionReceipt', [fund]), 'fund');
  const sent = await strict.ipcCall('personal_sendTransaction', [{ from: address, to: DEV[2].address, value: '0x1' }, 'pw']);
  t.match(sent.result, /^0x[0-9a-f]{64}$/);

  // With the HTTP endpoint stopped, unlocking is fine.
  t.equal((await strict.ipcCall('admin_stopRPC')).result, true);
  t.equal((await strict.ipcCall('personal_unlockAccount', [address, 'pw', 0])).result, true);
  t.match((await strict.ipcCall('mc_sign', [address, '0x01'])).result, /^0x[0-9a-f]{130}$/);
});
