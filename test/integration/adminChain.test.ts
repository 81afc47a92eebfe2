// admin_exportChain / admin_importChain on a running node: served over IPC (not over HTTP unless
// `admin` is in --rpcapi), same bytes as `mcnode export`, a refused file names the block, and
// local mining resumes after an import.

import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startNode } from '../helpers/node.js';
import { readItems } from '../../src/chainFile/rlpStream.js';
import { decodeBlockParts } from '../../src/chain/block.js';
import { mcnode, openPrebuilt, prebuilt } from '../fixtures/chains/prebuilt.js';
import { testDir } from '../helpers/testDir.js';

const chain = prebuilt('transfers');

t.test('admin_exportChain writes the same bytes as mcnode export, over IPC only', async (t) => {
  const dir = testDir(t);
  const datadir = path.join(dir, 'data');
  openPrebuilt('transfers', datadir);
  const node = await startNode(datadir, ['--mining.mode', 'off']);
  t.teardown(() => node.stop());
  const file = path.join(dir, 'out.rlp');
  const exported = await node.ipcCall('admin_exportChain', [file]);
  t.equal(exported.result, true, JSON.stringify(exported.error));
  t.ok(readFileSync(file).equals(readFileSync(chain.rlp)), 'byte-identical to transfers.rlp');
  const again = await node.ipcCall('admin_exportChain', [file]);
  t.equal(again.error?.code, -32000);
  t.match(again.error?.message, /exists; export does not overwrite files/);
  const range = await node.ipcCall('admin_exportChain', [path.join(dir, 'range.rlp'), 2, '0x3']);
  t.equal(range.result, true);
  let count = 0;
  for await (const item of readItems([readFileSync(path.join(dir, 'range.rlp'))])) t.equal(decodeBlockParts(item).header.number, BigInt(2 + count++));
  t.equal(count, 2);
  const overHttp = await node.call('admin_exportChain', [path.join(dir, 'http.rlp')]);
  t.equal(overHttp.error?.code, -32601, 'not served over HTTP without admin in --rpcapi');
});

t.test('admin_importChain verifies, stops at a bad block and resumes mining afterwards', async (t) => {
  const dir = testDir(t);
  const datadir = path.join(dir, 'data');
  const init = mcnode('init', chain.genesis, '--datadir', datadir, '--ipcdisable');
  t.equal(init.status, 0, init.stderr);
  const node = await startNode(datadir, ['--mining.mode', 'instant']);
  t.teardown(() => node.stop());

  // Block 4's state root flipped: blocks 1-3 import, 4 is refused.
  const original = readFileSync(chain.rlp);
  const items: Uint8Array[] = [];
  for await (const item of readItems([original])) items.push(item);
  const offset = items.slice(0, 3).reduce((n, b) => n + b.length, 0) + Buffer.from(items[3]).indexOf(Buffer.from(decodeBlockParts(items[3]).header.stateRoot));
  const tampered = Buffer.from(original);
  tampered[offset] ^= 0x80;
  const bad = path.join(dir, 'bad.rlp');
  writeFileSync(bad, tampered);
  const refused = await node.ipcCall('admin_importChain', [bad]);
  t.equal(refused.error?.code, -32000);
  t.match(refused.error?.message, /^block 4: state root mismatch/);
  t.equal((await node.ipcCall('mc_blockNumber')).result, '0x3', 'blocks 1-3 kept');

  const good = await node.ipcCall('admin_importChain', [chain.rlp]);
  t.equal(good.result, true, JSON.stringify(good.error));
  const head = (await node.ipcCall('mc_getBlockByNumber', ['latest', false])).result;
  t.equal(head.hash, chain.expect.hash);
  t.equal((await node.ipcCall('mc_mining')).result, true, 'local mining is back on');
  t.equal((await node.ipcCall('mc_getBalance', ['0x000000000000000000000000000000000000beef', 'latest'])).result, '0x2');
  const missing = await node.ipcCall('admin_importChain', [path.join(dir, 'nope.rlp')]);
  t.match(missing.error?.message, /cannot read .*nope\.rlp/);
});
