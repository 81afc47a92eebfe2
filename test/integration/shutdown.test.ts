// Graceful shutdown: SIGTERM in the middle of a burst of transactions, with blocks being sealed
// and written, exits 0 and leaves a consistent chain: every stored block re-executes to the
// same roots (export, then import into a fresh datadir with the same genesis), and after a
// restart the chain goes on: every transaction is mined once, acknowledged ones included.

import t from 'tap';
import path from 'node:path';
import { startNode, waitFor } from '../helpers/node.js';
import { DEV, rawTx } from '../helpers/accounts.js';
import { hexToBytes } from '../../src/encoding/hex.js';
import { mcnode } from '../fixtures/chains/prebuilt.js';
import { testDir } from '../helpers/testDir.js';

const PER_SENDER = 15;

t.test('SIGTERM during a burst leaves a consistent chain', async (t) => {
  const dir = testDir(t);
  const datadir = path.join(dir, 'data');
  const node = await startNode(datadir, ['--mining.mode', 'instant']);
  const to = hexToBytes(DEV[0].address);
  const txs: { raw: string; hash: string }[] = [];
  for (let nonce = 0n; nonce < BigInt(PER_SENDER); nonce++) {
    for (const sender of DEV.slice(1)) txs.push(rawTx(sender.key, { nonce, to, value: 1000n + nonce, gas: 21_000n }));
  }
  const acknowledged: string[] = [];
  let sent = 0;
  const stopAfter = Math.floor(txs.length / 2);
  let exit: Promise<number | null> | undefined;
  // Four clients in parallel; SIGTERM once half the transactions are acknowledged.
  await Promise.all(
    [0, 1, 2, 3].map(async () => {
      while (sent < txs.length) {
        const tx = txs[sent++];
        try {
          const reply = await node.call('mc_sendRawTransaction', [tx.raw]);
          if (reply.result === tx.hash) acknowledged.push(tx.hash);
        } catch {
          return; // the node is gone
        }
        if (acknowledged.length === stopAfter && !exit) {
          // Acknowledgements can outrun the first block (its seal starts the worker pool): stop once
          // one is stored, so the export below has blocks to re-execute. The other clients keep sending.
          exit = waitFor(async () => Number(await node.rpc('mc_blockNumber')) >= 1 || undefined, 'a first block').then(() => node.stop('SIGTERM'));
        }
      }
    }),
  );
  t.equal(await exit, 0, 'clean exit on SIGTERM');
  t.ok(acknowledged.length >= stopAfter);

  const file = path.join(dir, 'chain.rlp');
  const exported = mcnode('export', file, '--datadir', datadir, '--ipcdisable', '--verbosity', '1');
  t.equal(exported.status, 0, exported.stderr);
  const copy = path.join(dir, 'copy');
  const imported = mcnode('import', file, '--datadir', copy, '--ipcdisable', '--verbosity', '1');
  t.equal(imported.status, 0, `every stored block re-executes to its roots: ${imported.stderr}`);
  const blocks = Number(/imported (\d+) blocks/.exec(imported.stdout)?.[1]);
  t.ok(blocks >= 1, `${blocks} blocks were written before the stop`);

  const again = await startNode(datadir, ['--mining.mode', 'instant']);
  t.teardown(() => again.stop());
  // Sends cut by the stop may leave nonce gaps: send everything again (known ones are refused).
  for (const tx of txs) await again.call('mc_sendRawTransaction', [tx.raw]);
  for (const { hash } of txs) {
    const receipt = await waitFor(() => again.rpc('mc_getTransactionReceipt', [hash]), `receipt ${hash}`);
    t.equal(receipt.status, '0x1');
  }
  for (const sender of DEV.slice(1)) {
    t.equal(await again.rpc('mc_getTransactionCount', [sender.address, 'latest']), `0x${PER_SENDER.toString(16)}`, 'each nonce mined once');
  }
});
