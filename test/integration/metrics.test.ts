// The opt-in Prometheus endpoint: `--metrics` serves text format 0.0.4 at /metrics with the
// head, pool sizes, hash rate, RPC calls and latencies by method, and the database size.

import t from 'tap';
import { startNode } from '../helpers/node.js';
import { DEV, rawTx } from '../helpers/accounts.js';
import { hexToBytes } from '../../src/encoding/hex.js';
import { testDir } from '../helpers/testDir.js';

/** `name{labels} value` → value, for one exact series. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

t.test('metrics endpoint content', async (t) => {
  const node = await startNode(testDir(t), ['--mining.mode', 'off', '--metrics', '--metrics.port', '0']);
  t.teardown(() => node.stop());
  const url = /^metrics\s+(http:\/\/\S+\/metrics)$/m.exec(node.stdout())?.[1];
  t.ok(url, 'the banner shows the metrics endpoint');

  await node.rpc('mc_blockNumber');
  await node.ipcCall('mc_blockNumber');
  const bad = await node.call('mc_getBalance', ['0x12', 'latest']);
  t.ok(bad.error, 'a failing call');
  await node.call('no_suchMethod');
  const to = hexToBytes(DEV[2].address);
  await node.rpc('mc_sendRawTransaction', [rawTx(DEV[1].key, { nonce: 0n, to, value: 1n, gas: 21_000n }).raw]);
  await node.rpc('mc_sendRawTransaction', [rawTx(DEV[1].key, { nonce: 5n, to, value: 1n, gas: 21_000n }).raw]);

  const res = await fetch(url!);
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  const text = await res.text();
  t.match(text, /^# HELP mcnode_chain_head_block .+\n# TYPE mcnode_chain_head_block gauge\nmcnode_chain_head_block 0\n/m);
  t.equal(value(text, 'mcnode_txpool_pending'), 1);
  t.equal(value(text, 'mcnode_txpool_queued'), 1);
  t.equal(value(text, 'mcnode_miner_hashrate'), 0, 'mining is off');
  t.equal(value(text, 'mcnode_miner_mining'), 0);
  t.ok((value(text, 'mcnode_db_size_bytes') ?? 0) > 0, 'database size');
  t.ok((value(text, 'process_resident_memory_bytes') ?? 0) > 0);
  for (const space of ['new', 'old', 'code', 'large_object']) {
    t.ok((value(text, `nodejs_heap_space_size_total_bytes{space="${space}"}`) ?? 0) > 0, `V8 ${space} space size`);
  }
  t.match(text, /^mcnode_info\{version="\d+\.\d+\.\d+"\} 1$/m);
  t.match(text, /# TYPE mcnode_rpc_requests_total counter/);
  t.equal(value(text, 'mcnode_rpc_requests_total{method="mc_blockNumber",result="ok"}'), 2, 'HTTP and IPC calls both count');
  t.equal(value(text, 'mcnode_rpc_requests_total{method="mc_getBalance",result="error"}'), 1);
  t.equal(value(text, 'mcnode_rpc_requests_total{method="mc_sendRawTransaction",result="ok"}'), 2);
  t.notOk(text.includes('no_suchMethod'), 'unknown methods do not become label values');
  t.match(text, /# TYPE mcnode_rpc_request_duration_seconds histogram/);
  t.equal(value(text, 'mcnode_rpc_request_duration_seconds_count{method="mc_blockNumber"}'), 2);
  t.equal(value(text, 'mcnode_rpc_request_duration_seconds_bucket{method="mc_blockNumber",le="+Inf"}'), 2);
  t.ok((value(text, 'mcnode_rpc_request_duration_seconds_sum{method="mc_blockNumber"}') ?? -1) >= 0);
  // Every sample line has the `name{labels} value` shape.
  for (const line of text.trimEnd().split('\n').filter((l) => !l.startsWith('#'))) t.match(line, /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})? [-+0-9.eEInfNa]+$/, line);

  t.equal((await fetch(url!.replace('/metrics', '/'))).status, 404);
  t.equal((await fetch(url!, { method: 'POST', body: '' })).status, 405);
});

t.test('--http.fastpath=false turns the HTTP fast path off: its counters stay at 0', async (t) => {
  const counters = async (args: string[]) => {
    const node = await startNode(testDir(t), ['--mining.mode', 'off', '--metrics', '--metrics.port', '0', ...args]);
    try {
      const url = /^metrics\s+(http:\/\/\S+\/metrics)$/m.exec(node.stdout())?.[1];
      for (let i = 0; i < 5; i++) t.equal(await node.rpc('mc_blockNumber'), '0x0');
      const text = await (await fetch(url!)).text();
      return {
        requests: value(text, 'mcnode_http_fastpath_requests_total'),
        handOvers: value(text, 'mcnode_http_fastpath_handovers_total'),
        calls: value(text, 'mcnode_rpc_requests_total{method="mc_blockNumber",result="ok"}'),
      };
    } finally {
      await node.stop();
    }
  };
  const on = await counters([]);
  t.equal(on.calls, 5);
  t.ok(on.requests !== undefined && on.requests >= 5, `on by default: the calls went through the fast path (${on.requests})`);
  const off = await counters(['--http.fastpath=false']);
  t.equal(off.calls, 5, 'the calls were answered');
  t.same([off.requests, off.handOvers], [0, 0], 'by node:http alone');
});
