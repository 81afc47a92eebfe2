// Filters as the real client library uses them: chain3 deploys through mc_sendTransaction and a
// block filter (`mc_newBlockFilter` + batched polling every 500 ms), then watches a contract event.

import t from 'tap';
import Chain3 from 'chain3';
import { setTimeout as sleep } from 'node:timers/promises';
import { startNode } from '../../helpers/node.js';
import { DEV } from '../../helpers/accounts.js';
import { contract } from '../../helpers/abi.js';
import { testDir } from '../../helpers/testDir.js';

type Callback<T> = (err: Error | null, value: T) => void;

t.test('chain3: contract.new through a block filter, then event.watch', async (t) => {
  // mixed mode: a block per transaction, and an empty one each second, as chain3's deploy
  // check waits for a block after its filter is installed.
  const node = await startNode(testDir(t), ['--mining.mode', 'mixed', '--mining.period', '1']);
  t.teardown(() => node.stop());
  const chain3 = new Chain3(new Chain3.providers.HttpProvider(node.url));
  t.teardown(() => chain3.reset());
  const store = contract('Store');
  const from = DEV[0].address;

  const deployed: any = await new Promise((resolve, reject) => {
    const done: Callback<any> = (err, c) => (err ? reject(err) : c.address && resolve(c));
    chain3.mc.contract(store.abi).new(41, { from, data: store.bytecode, gas: 400_000 }, done);
  });
  t.match(deployed.address, /^0x[0-9a-f]{40}$/);
  t.equal(deployed.value.call().toString(10), '41', 'deployed with the constructor argument');

  const event = deployed.Stored();
  const seen = new Promise<any>((resolve, reject) => {
    event.watch((err: Error | null, e: any) => (err ? reject(err) : resolve(e)));
  });
  // The event filter must be installed before the transaction is mined.
  for (let i = 0; event.filterId === null && i < 200; i++) await sleep(10);
  t.match(event.filterId, /^0x[0-9a-f]+$/);

  const txHash: string = await new Promise((resolve, reject) => {
    deployed.set(7, { from, gas: 200_000 }, (err: Error | null, hash: string) => (err ? reject(err) : resolve(hash)));
  });
  const e = await seen;
  event.stopWatching(() => undefined);
  t.equal(e.event, 'Stored');
  t.equal(e.address, deployed.address);
  t.equal(e.transactionHash, txHash);
  t.equal(e.args.from, from);
  t.equal(e.args.value.toString(10), '7', 'decoded from TxData');
  t.equal(deployed.value.call().toString(10), '7');

  // get(): mc_newFilter + mc_getFilterLogs over the whole history.
  const all: any[] = await new Promise((resolve, reject) => {
    deployed.Stored({}, { fromBlock: 0, toBlock: 'latest' }).get((err: Error | null, logs: any[]) => (err ? reject(err) : resolve(logs)));
  });
  t.same(all.map((l) => l.args.value.toString(10)), ['7']);
  t.equal(all[0].blockNumber, e.blockNumber);
});
