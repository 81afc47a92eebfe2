// In-process regressions of what the reliability runs found: a batch stops running calls once
// its replies pass the size limit and runs at most BATCH_WINDOW at once; EVMs do not pile up as
// listeners of the shared Common; the canonical hash cache is an LRU.

import t from 'tap';
import { Mainnet, createCustomCommon } from '@ethereumjs/common';
import { BATCH_WINDOW, Dispatcher } from '../../src/rpc/dispatch.js';
import type { RpcMethod } from '../../src/rpc/types.js';
import { BlockProcessor } from '../../src/execution/blockProcessor.js';
import { HASH_CACHE_SIZE } from '../../src/blockchain/blockchain.js';
import { Lru } from '../../src/store/lru.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('a batch runs calls in windows and stops at the reply limit', async (t) => {
  let running = 0;
  let peak = 0;
  let ran = 0;
  const methods = new Map<string, RpcMethod>([
    ['tick', { handler: async () => {
      ran++;
      peak = Math.max(peak, ++running);
      await sleep(2);
      running--;
      return 1;
    } }],
    // 5 MB and a little per reply: the fifth passes 25,000,000 bytes
    ['big', { handler: () => { ran++; return 'x'.repeat(5_000_000); } }],
  ]);
  const d = new Dispatcher({ methods, invoker: 'direct' });
  const calls = (method: string, n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method })));

  const small = JSON.parse((await d.handle(calls('tick', 100), { transport: 'ipc' }))!);
  t.equal(small.length, 100, 'all answered');
  t.equal(peak, BATCH_WINDOW, `at most ${BATCH_WINDOW} calls at once`);

  ran = 0;
  const big = JSON.parse((await d.handle(calls('big', 200), { transport: 'ipc' }))!);
  t.equal(big.length, 200, 'every call has a reply');
  t.equal(big.filter((r: any) => 'result' in r).length, 5, 'replies up to the one crossing the limit');
  t.ok(big.slice(5).every((r: any) => r.error?.code === -32003), 'the rest: -32003');
  t.equal(ran, BATCH_WINDOW, 'calls after the limit were never run (only the first window)');
});

t.test('EVMs do not stay subscribed to the shared Common', async (t) => {
  const common = createCustomCommon({ chainId: 100 }, Mainnet, { hardfork: 'petersburg' });
  const builder = new BlockProcessor({} as never, common, { getBlockByNumber: async () => undefined });
  const before = common.events.listenerCount('hardforkChanged');
  for (let i = 0; i < 20; i++) await builder.createEvm({} as never);
  t.equal(common.events.listenerCount('hardforkChanged'), before, 'no listener per EVM on the shared Common');
});

t.test('the canonical hash cache is bounded', async (t) => {
  t.ok(HASH_CACHE_SIZE > 0 && HASH_CACHE_SIZE <= 65_536);
  const lru = new Lru<bigint, number>(3);
  for (let i = 0n; i < 10n; i++) lru.set(i, Number(i));
  t.equal(lru.size, 3);
  t.equal(lru.get(0n), undefined, 'the oldest went');
  t.equal(lru.get(9n), 9);
});
