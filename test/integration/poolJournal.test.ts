// The pool journal across a real SIGKILL: pending and queued transactions (and a replacement)
// come back as they were, the gap still holds the queued ones back, and they all get mined.

import t from 'tap';
import { startNode, waitFor } from '../helpers/node.js';
import { DEV, GWEI, rawTx } from '../helpers/accounts.js';
import { hexToBytes } from '../../src/encoding/hex.js';
import { testDir } from '../helpers/testDir.js';

t.test('kill -9 keeps pending and queued transactions', async (t) => {
  const datadir = testDir(t);
  const to = hexToBytes(DEV[2].address);
  const node = await startNode(datadir, ['--mining.mode', 'off']);
  const tx = (key: string, nonce: bigint, gasPrice = 20n * GWEI) => rawTx(key, { nonce, to, value: 1n, gas: 21_000n, gasPrice });
  const sent = [tx(DEV[1].key, 0n), tx(DEV[1].key, 1n), tx(DEV[1].key, 3n), tx(DEV[1].key, 4n), tx(DEV[2].key, 2n)];
  for (const s of sent) t.equal(await node.rpc('mc_sendRawTransaction', [s.raw]), s.hash);
  // A replaced transaction must not come back.
  const replaced = sent[1];
  const replacement = tx(DEV[1].key, 1n, 30n * GWEI);
  await node.rpc('mc_sendRawTransaction', [replacement.raw]);
  const content = await node.rpc('txpool_content');
  const status = await node.rpc('txpool_status');
  t.same(status, { pending: '0x2', queued: '0x3' });
  t.equal(await node.stop('SIGKILL'), null, 'killed, no clean exit');

  const again = await startNode(datadir, ['--mining.mode', 'off']);
  t.teardown(() => again.stop());
  t.same(await again.rpc('txpool_status'), status);
  t.same(await again.rpc('txpool_content'), content, 'same pool content after the restart');
  t.equal(await again.rpc('mc_getTransactionByHash', [replaced.hash]), null);

  // Fill both gaps, mine, and every acknowledged transaction lands.
  const fill = [tx(DEV[1].key, 2n), tx(DEV[2].key, 0n), tx(DEV[2].key, 1n)];
  for (const s of fill) await again.rpc('mc_sendRawTransaction', [s.raw]);
  t.same(await again.rpc('txpool_status'), { pending: '0x8', queued: '0x0' });
  await again.rpc('miner_start', []);
  for (const s of [...sent.filter((s) => s !== replaced), replacement, ...fill]) {
    const receipt = await waitFor(() => again.rpc('mc_getTransactionReceipt', [s.hash]), `receipt ${s.hash}`);
    t.equal(receipt.status, '0x1');
  }
  t.same(await again.rpc('txpool_status'), { pending: '0x0', queued: '0x0' });
});
