// The SCS id on a fresh datadir: its key file (scrypt, tens of milliseconds) is written when first
// needed, once the main endpoint is open, and nothing names the id before the file is stored:
// app-chain writes wait for it, the SCS endpoint opens after it, a restart reads the same id back.

import t, { type Test } from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Mainnet, createCustomCommon } from '@ethereumjs/common';
import { openScsId, SCS_KEYSTORE_PASSWORD } from '../../../src/scs/scsId.js';
import { decryptKey } from '../../../src/accounts/keystore.js';
import { privateKeyToAddress } from '../../../src/accounts/keys.js';
import { Database } from '../../../src/store/database.js';
import { ScsService } from '../../../src/scs/scsService.js';
import { EMPTY_TRIE_ROOT, EMPTY_UNCLES_HASH, blockFromParts } from '../../../src/chain/block.js';
import type { Header } from '../../../src/chain/types.js';
import { createLogger } from '../../../src/log.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { startNode } from '../../helpers/node.js';
import { testDir } from '../../helpers/testDir.js';

const common = createCustomCommon({ chainId: 100 }, Mainnet, { hardfork: 'petersburg' });
const keyFiles = (datadir: string) => readdirSync(path.join(datadir, 'scskeystore')).filter((f) => !f.startsWith('.'));
const keyFileAddress = (datadir: string) => {
  const [file] = keyFiles(datadir);
  return '0x' + (JSON.parse(readFileSync(path.join(datadir, 'scskeystore', file), 'utf8')) as { address: string }).address;
};

t.test('a new SCS id is known at once, stored when asked and read back', async (t) => {
  const dir = testDir(t);
  const first = await openScsId(dir);
  t.equal(existsSync(path.join(dir, 'scskeystore')), false, 'nothing written before it is needed');
  await first.stored();
  t.equal(keyFiles(dir).length, 1, 'one key file');
  t.equal(keyFileAddress(dir), bytesToHex(first.id).toLowerCase(), 'the file holds the id');
  const [file] = keyFiles(dir);
  const key = await decryptKey(JSON.parse(readFileSync(path.join(dir, 'scskeystore', file), 'utf8')), SCS_KEYSTORE_PASSWORD);
  t.same(privateKeyToAddress(key), first.id, 'with the key of the id, under the scsserver password');
  const again = await openScsId(dir);
  t.same(again.id, first.id, 'the next start reads the same id');
  await again.stored();
  t.equal(keyFiles(dir).length, 1, 'and writes nothing');
});

function genesisHead() {
  const header: Header = {
    parentHash: new Uint8Array(32), sha3Uncles: EMPTY_UNCLES_HASH, miner: new Uint8Array(20), stateRoot: EMPTY_TRIE_ROOT,
    transactionsRoot: EMPTY_TRIE_ROOT, receiptsRoot: EMPTY_TRIE_ROOT, logsBloom: new Uint8Array(256), difficulty: 1n, number: 0n,
    gasLimit: 9_000_000n, gasUsed: 0n, timestamp: 1_700_000_000n, extraData: new Uint8Array(), mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
  };
  return blockFromParts(header, []);
}

async function openService(t: Test, storeId: () => Promise<void>) {
  const db = await Database.open(testDir(t));
  t.teardown(() => db.close());
  const owner = hexToBytes('0x' + '11'.repeat(20));
  const head = genesisHead();
  return ScsService.open(
    { db, common, scsId: hexToBytes('0x' + '22'.repeat(20)), storeId, vnodeAddress: owner, defaultOwner: owner, mainHead: () => head, blockPeriod: 0, log: createLogger(0) },
    [],
  );
}

t.test('app-chain writes wait until the SCS id is stored', async (t) => {
  let stored!: () => void;
  let calls = 0;
  const storing = new Promise<void>((resolve) => (stored = resolve));
  const scs = await openService(t, () => (calls++, storing));
  t.equal(calls, 0, 'opening does not store the id');
  let created: Uint8Array | undefined;
  const creating = scs.create({ flushRound: 2 }).then((address) => (created = address));
  await new Promise((r) => setTimeout(r, 50));
  t.equal(created, undefined, 'no app chain before the id is stored');
  t.equal(scs.list().length, 0);
  t.equal(calls, 1, 'the first write asked for it');
  stored();
  await creating;
  t.ok(created, 'created once it is');
  await scs.create({ flushRound: 3 });
  t.equal(calls, 1, 'and only the first');
  t.equal(scs.list().length, 2);
  await scs.stop();
});

t.test('an SCS id that cannot be stored fails the writes', async (t) => {
  const scs = await openService(t, () => Promise.reject(new Error('disk full')));
  await t.rejects(scs.create({ flushRound: 2 }), /disk full/);
  t.equal(scs.list().length, 0);
  await scs.stop(); // and it still stops
});

t.test('a node on a fresh datadir: the SCS endpoint names the id of the stored key file', async (t) => {
  const node = await startNode(testDir(t));
  t.teardown(() => node.stop());
  const reply = (await (await fetch(node.scsUrl!, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'scs_getSCSId', params: [] }),
  })).json()) as { result: string };
  t.equal(reply.result.toLowerCase(), keyFileAddress(node.datadir), 'the id answered is the one on disk');
  t.equal(keyFiles(node.datadir).length, 1);
});
