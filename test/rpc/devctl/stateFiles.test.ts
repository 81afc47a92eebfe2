// State files in Anvil's format, both ways, with the real Anvil (npm @foundry-rs/anvil):
// anvil_dumpState of mcnode loads into Anvil and the reverse over RPC, --dump-state of each is
// --load-state of the other, and the block a load makes exports and re-imports to the same head.

import t from 'tap';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { CLI, startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { anvilBinary, startAnvil, type AnvilNode } from '../../helpers/anvil.js';
import { DEV } from '../../helpers/accounts.js';
import { contract } from '../../helpers/abi.js';
import { testDir } from '../../helpers/testDir.js';

const run = promisify(execFile);
const flags = ['--mining.mode', 'instant', '--minerthreads', '1'];
const X = '0x' + '71'.repeat(20);
const Y = '0x' + '72'.repeat(20);
const SLOT = '0x' + '00'.repeat(31) + '05';

type Reader = { rpc(method: string, params?: unknown[]): Promise<any> };
/** What a state holds for `address`, read the same way on both nodes. */
async function account(node: Reader, address: string, slots: string[] = []) {
  return {
    balance: BigInt(await node.rpc('eth_getBalance', [address, 'latest'])),
    nonce: BigInt(await node.rpc('eth_getTransactionCount', [address, 'latest'])),
    code: await node.rpc('eth_getCode', [address, 'latest']),
    storage: await Promise.all(slots.map((s) => node.rpc('eth_getStorageAt', [address, s, 'latest']))),
  };
}

t.test('state files move between mcnode and Anvil', { skip: anvilBinary() ? false : 'no anvil binary' }, async (t) => {
  const base = testDir(t);
  const datadir = path.join(base, 'node');
  let node: TestNode = await startNode(datadir, flags);
  t.teardown(() => node.stop());
  const anvils: AnvilNode[] = [];
  t.teardown(() => Promise.all(anvils.map((a) => a.stop())));
  const anvil = async (args: string[] = []) => {
    const a = await startAnvil(args);
    anvils.push(a);
    return a;
  };

  // mcnode's state: a contract created by a transaction (storage from its constructor), setters
  await node.rpc('anvil_setBalance', [X, '0x1234']);
  await node.rpc('anvil_setCode', [X, '0x600160005500']);
  await node.rpc('anvil_setNonce', [X, '0x7']);
  await node.rpc('anvil_setStorageAt', [X, SLOT, '0x' + '00'.repeat(31) + '2a']);
  const deploy = await node.rpc('mc_sendTransaction', [{ from: DEV[0].address, data: contract('Store').bytecode + '00'.repeat(31) + '63', gas: '0x100000' }]);
  const store = (await waitFor(() => node.rpc('mc_getTransactionReceipt', [deploy]), 'deploy receipt')).contractAddress as string;

  const dump = await node.rpc('anvil_dumpState', []);
  const json = JSON.parse(gunzipSync(Buffer.from(dump.slice(2), 'hex')).toString('utf8'));
  t.same(Object.keys(json).sort(), ['accounts', 'best_block_number', 'block', 'blocks', 'historical_states', 'transactions']);
  t.same(json.accounts[X], { nonce: 7, balance: '0x1234', code: '0x600160005500', storage: { [SLOT]: '0x' + '00'.repeat(31) + '2a' } });
  t.equal(json.best_block_number, Number(await node.rpc('mc_blockNumber')));
  t.ok(json.accounts[DEV[0].address], 'the dev accounts (genesis) are in it');

  // … loads into Anvil, which then reads the same accounts
  const a1 = await anvil();
  t.equal(await a1.rpc('anvil_loadState', [dump]), true);
  for (const [address, slots] of [[X, [SLOT]], [store, ['0x0']], [DEV[0].address, []]] as const) {
    t.same(await account(a1, address, [...slots]), await account(node, address, [...slots]), `Anvil reads ${address} as mcnode does`);
  }

  // Anvil's state loads into mcnode, as one block
  await a1.rpc('anvil_setBalance', [Y, '0x99']);
  await a1.rpc('anvil_setCode', [Y, '0x6002']);
  await a1.rpc('anvil_setStorageAt', [Y, SLOT, '0x' + '00'.repeat(31) + '07']);
  await a1.rpc('anvil_setNonce', [Y, '0x3']);
  const fromAnvil = await a1.rpc('anvil_dumpState', []);
  const before = BigInt(await node.rpc('mc_blockNumber'));
  t.equal(await node.rpc('anvil_loadState', [fromAnvil]), true);
  t.equal(BigInt(await node.rpc('mc_blockNumber')), before + 1n, 'one block');
  const block = await node.rpc('mc_getBlockByNumber', ['latest', true]);
  t.equal(block.transactions.length, 1);
  t.equal(block.transactions[0].from, '0x0000000000000000000000000000000000000064', 'a setter system transaction');
  t.same(await account(node, Y, [SLOT]), await account(a1, Y, [SLOT]), 'mcnode reads Y as Anvil does');
  const bad = await node.call('anvil_loadState', ['0x1234']);
  t.equal(bad.error?.code, -32602);
  t.match(bad.error?.message, /invalid argument 0: state:/);

  // files: mcnode --dump-state at shutdown → Anvil --load-state
  await node.stop();
  const mcFile = path.join(base, 'mcnode-state.json');
  node = await startNode(datadir, [...flags, '--dump-state', mcFile]);
  await node.stop();
  const written = JSON.parse(readFileSync(mcFile, 'utf8'));
  t.same(written.accounts[Y], { nonce: 3, balance: '0x99', code: '0x6002', storage: { [SLOT]: '0x' + '00'.repeat(31) + '07' } }, 'plain JSON');
  const a2 = await anvil(['--load-state', mcFile]);
  node = await startNode(datadir, flags);
  t.same(await account(a2, X, [SLOT]), await account(node, X, [SLOT]), 'Anvil --load-state reads mcnode\'s file');

  // Anvil --dump-state at its exit → mcnode --load-state at start
  const anvilFile = path.join(base, 'anvil-state.json');
  const a3 = await anvil(['--dump-state', anvilFile]);
  const Z = '0x' + '73'.repeat(20);
  await a3.rpc('anvil_setBalance', [Z, '0x4242']);
  await a3.rpc('anvil_setCode', [Z, '0x6003']);
  await a3.stop();
  await node.stop();
  node = await startNode(datadir, [...flags, '--load-state', anvilFile]);
  t.same(await account(node, Z), { balance: 0x4242n, nonce: 0n, code: '0x6003', storage: [] }, 'mcnode --load-state reads Anvil\'s file');

  // the loads are history: export, import into a fresh datadir, same head
  const head = await node.rpc('mc_getBlockByNumber', ['latest', false]);
  await node.stop();
  const file = path.join(base, 'chain.rlp');
  await run(process.execPath, [CLI, '--datadir', datadir, 'export', file], { timeout: 120_000 });
  const fresh = path.join(base, 'fresh');
  await run(process.execPath, [CLI, '--datadir', fresh, 'import', file], { timeout: 120_000 });
  node = await startNode(fresh, flags);
  t.same(await node.rpc('mc_getBlockByNumber', ['latest', false]), head, 'the imported chain reaches the same head');
  // the imported datadir recorded the preimages while re-executing: it dumps the same accounts
  const again = JSON.parse(gunzipSync(Buffer.from((await node.rpc('anvil_dumpState', [])).slice(2), 'hex')).toString('utf8'));
  t.same(again.accounts[Z], { nonce: 0, balance: '0x4242', code: '0x6003', storage: {} });
  t.same(again.accounts[Y], written.accounts[Y]);
});
