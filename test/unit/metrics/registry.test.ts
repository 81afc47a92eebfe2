import t from 'tap';
import { LATENCY_BUCKETS, MetricsRegistry, RpcStats } from '../../../src/metrics/registry.js';

t.test('text format 0.0.4: HELP, TYPE, samples, escaping', async (t) => {
  const registry = new MetricsRegistry()
    .gauge('x_head', 'Head\nnumber \\ here', () => 42)
    .add({ name: 'x_info', help: 'info', type: 'gauge', samples: () => [{ labels: { v: 'a"b\\c\nd' }, value: 1 }] })
    .gauge('x_inf', 'inf', () => Infinity);
  t.equal(
    await registry.render(),
    '# HELP x_head Head\\nnumber \\\\ here\n# TYPE x_head gauge\nx_head 42\n' +
      '# HELP x_info info\n# TYPE x_info gauge\nx_info{v="a\\"b\\\\c\\nd"} 1\n' +
      '# HELP x_inf inf\n# TYPE x_inf gauge\nx_inf +Inf\n',
  );
  t.throws(() => registry.gauge('x_head', 'again', () => 1), /registered twice/);
});

t.test('RPC stats: counters by result, cumulative latency buckets', async (t) => {
  const stats = new RpcStats();
  stats.observe('mc_call', 0.3, true); // 0.0003 s: first bucket
  stats.observe('mc_call', 30, false); // 0.03 s
  stats.observe('mc_blockNumber', 20_000, true); // 20 s: only +Inf
  const registry = new MetricsRegistry();
  for (const f of stats.families('x')) registry.add(f);
  const text = await registry.render();
  t.match(text, /^x_rpc_requests_total\{method="mc_blockNumber",result="ok"\} 1$/m);
  t.match(text, /^x_rpc_requests_total\{method="mc_call",result="ok"\} 1$/m);
  t.match(text, /^x_rpc_requests_total\{method="mc_call",result="error"\} 1$/m);
  t.match(text, /^x_rpc_request_duration_seconds_bucket\{method="mc_call",le="0.0005"\} 1$/m);
  t.match(text, /^x_rpc_request_duration_seconds_bucket\{method="mc_call",le="0.025"\} 1$/m);
  t.match(text, /^x_rpc_request_duration_seconds_bucket\{method="mc_call",le="0.05"\} 2$/m);
  t.match(text, /^x_rpc_request_duration_seconds_bucket\{method="mc_call",le="\+Inf"\} 2$/m);
  t.match(text, /^x_rpc_request_duration_seconds_bucket\{method="mc_blockNumber",le="10"\} 0$/m);
  t.match(text, /^x_rpc_request_duration_seconds_bucket\{method="mc_blockNumber",le="\+Inf"\} 1$/m);
  t.match(text, /^x_rpc_request_duration_seconds_count\{method="mc_call"\} 2$/m);
  t.match(text, /^x_rpc_request_duration_seconds_sum\{method="mc_call"\} 0.0303$/m);
  const buckets = text.split('\n').filter((l) => l.startsWith('x_rpc_request_duration_seconds_bucket{method="mc_call"'));
  t.equal(buckets.length, LATENCY_BUCKETS.length + 1);
});
