import t from 'tap';
import { formatDuration, parseDuration } from '../../../src/encoding/duration.js';

t.test('Go duration text in nanoseconds', async (t) => {
  const cases: [string, number][] = [
    ['5s', 5e9], ['300ms', 3e8], ['1m30s', 9e10], ['1.5h', 5.4e12], ['0', 0], ['0s', 0], ['250us', 2.5e5], ['250µs', 2.5e5],
    ['100ns', 100], ['1h2m3.5s', 3.7235e12], ['.5s', 5e8],
  ];
  for (const [text, ns] of cases) t.equal(parseDuration(text), ns, text);
  for (const bad of ['', '5', 's', '5 s', '-5s', '5x', '1.s2', '.s']) t.equal(parseDuration(bad), undefined, JSON.stringify(bad));
});

t.test("Go's Duration.String()", async (t) => {
  const cases: [number, string][] = [
    [0, '0s'], [5e9, '5s'], [5e8, '500ms'], [6e10, '1m0s'], [9e10, '1m30s'], [3.6e12, '1h0m0s'], [1.5e9, '1.5s'],
    [1.25e6, '1.25ms'], [7.5e5, '750µs'], [999, '999ns'], [3.7235e12, '1h2m3.5s'], [100e9, '1m40s'], [-2e9, '-2s'],
  ];
  for (const [ns, text] of cases) t.equal(formatDuration(ns), text, String(ns));
});
