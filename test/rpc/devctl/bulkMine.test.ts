// anvil_mine / hardhat_mine of many blocks (runs of empty blocks share batches, Miner.mineRun):
// every block is stored, linked to its parent, paid its reward and announced to newHeads
// subscribers; the interval sets the timestamps; a pending transaction goes in the first block;
// `mcnode export` then `import` into a fresh datadir reaches the same head.

import t from 'tap';
import net from 'node:net';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, startNode, waitFor } from '../../helpers/node.js';
import { DEV, rawTx } from '../../helpers/accounts.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

const COUNT = 2_345; // more than two runs of RUN_BATCH_BLOCKS (1,000)
const INTERVAL = 3;
const REWARD = 2n * 10n ** 18n;

const mcnode = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120_000 });

t.test('anvil_mine of thousands of blocks: stored, linked, announced, re-importable', async (t) => {
  const dir = testDir(t);
  const datadir = path.join(dir, 'data');
  const node = await startNode(datadir, ['--mining.mode', 'off', '--minerthreads', '1']);
  let stopped = false;
  t.teardown(() => (stopped ? undefined : node.stop()));

  // newHeads over IPC: one notification per block, in order.
  const ipc = net.connect(node.ipcPath);
  t.teardown(() => ipc.destroy());
  const lines: any[] = [];
  let rest = '';
  ipc.on('data', (chunk) => {
    const parts = (rest + chunk.toString()).split('\n');
    rest = parts.pop()!;
    for (const p of parts) if (p.trim()) lines.push(JSON.parse(p));
  });
  ipc.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'mc_subscribe', params: ['newHeads'] }) + '\n');
  await waitFor(async () => lines.find((l) => l.id === 1), 'subscription');

  const tx = rawTx(DEV[1].key, { nonce: 0n, to: hexToBytes(DEV[2].address), value: 5n, gas: 21_000n });
  await node.rpc('mc_sendRawTransaction', [tx.raw]);
  t.equal(await node.rpc('anvil_mine', ['0x' + COUNT.toString(16), '0x' + INTERVAL.toString(16)]), null);
  const minedAt = Date.now();
  t.equal(Number(await node.rpc('mc_blockNumber')), COUNT);

  const blocks: any[] = [];
  while (blocks.length <= COUNT) {
    const numbers = Array.from({ length: Math.min(50, COUNT + 1 - blocks.length) }, (_, i) => blocks.length + i);
    blocks.push(...(await Promise.all(numbers.map((n) => node.rpc('mc_getBlockByNumber', ['0x' + n.toString(16), false])))));
  }
  const unlinked = blocks.slice(1).filter((b, i) => b.parentHash !== blocks[i].hash || Number(b.number) !== i + 1);
  t.same(unlinked.map((b) => b.number), [], 'every block is stored and names its parent');
  t.same(blocks[1].transactions, [tx.hash], 'the pending transaction is in the first block');
  t.same(blocks.slice(2).filter((b) => b.transactions.length > 0).map((b) => b.number), [], 'the other blocks are empty');
  const steps = blocks.slice(2).filter((b, i) => Number(b.timestamp) - Number(blocks[i + 1].timestamp) !== INTERVAL);
  t.same(steps.map((b) => b.number), [], `each block is ${INTERVAL} s after its parent`);
  t.equal(new Set(blocks.map((b) => b.stateRoot)).size, COUNT + 1, 'every block has its own state root (the reward)');

  const miner = blocks[1].miner;
  const balanceAt = async (n: number) => BigInt(await node.rpc('mc_getBalance', [miner, '0x' + n.toString(16)]));
  for (const n of [2, 1000, 1001, 2000, COUNT]) t.equal((await balanceAt(n)) - (await balanceAt(n - 1)), REWARD, `block ${n} pays its reward`);

  const notes = await waitFor(async () => {
    const found = lines.filter((l) => l.method === 'mc_subscription');
    return found.length >= COUNT ? found : undefined;
  }, 'every newHeads notification');
  t.equal(notes.length, COUNT);
  const misordered = notes.filter((note, i) => note.params.result.hash !== blocks[i + 1].hash);
  t.equal(misordered.length, 0, 'newHeads announced every block, in order');

  // Time goes on from the last chosen timestamp.
  await node.rpc('evm_mine');
  const after = await node.rpc('mc_getBlockByNumber', ['latest', false]);
  t.ok(Number(after.timestamp) >= Number(blocks[COUNT].timestamp), 'the next block is not before the run');
  const since = Math.ceil((Date.now() - minedAt) / 1000);
  t.ok(Number(after.timestamp) - Number(blocks[COUNT].timestamp) <= since + 1, 'the next block follows the run (time continues from it)');
  const head = after.hash;

  ipc.destroy();
  await node.stop();
  stopped = true;
  const file = path.join(dir, 'chain.rlp');
  const exported = mcnode('export', file, '--datadir', datadir, '--ipcdisable', '--verbosity', '1');
  t.equal(exported.status, 0, exported.stderr);
  const fresh = path.join(dir, 'fresh');
  const imported = mcnode('import', file, '--datadir', fresh, '--ipcdisable', '--verbosity', '1');
  t.equal(imported.status, 0, imported.stderr);
  t.match(imported.stdout, new RegExp(`imported ${COUNT + 1} blocks, head #${COUNT + 1} ${head}`), 're-executed to the same head');
});
