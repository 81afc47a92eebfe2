// Depth scan and the IPC stream splitter: no recursion, strings skipped, chunk boundaries anywhere.

import t from 'tap';
import { exceedsDepth } from '../../../src/rpc/jsonLimits.js';
import { JsonSplitter } from '../../../src/rpc/jsonSplitter.js';

t.test('exceedsDepth counts brackets outside strings', async (t) => {
  const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);
  t.equal(exceedsDepth(nest(128)), false);
  t.equal(exceedsDepth(nest(129)), true);
  t.equal(exceedsDepth('{"a":' + nest(127) + '}'), false);
  t.equal(exceedsDepth('{"a":' + nest(128) + '}'), true);
  t.equal(exceedsDepth('["' + '[{'.repeat(500) + '"]'), false, 'brackets in strings do not count');
  t.equal(exceedsDepth('["\\"' + '['.repeat(500) + '"]'), false, 'an escaped quote does not end the string');
  t.equal(exceedsDepth('["\\\\"' + ',' + nest(200) + ']'), true, 'an escaped backslash does end it');
  t.equal(exceedsDepth('[' + '[]'.repeat(1000) + ']'), false, 'siblings are not nesting');
  t.equal(exceedsDepth('['.repeat(2_000_000)), true, 'no stack is used');
  t.equal(exceedsDepth(nest(3), 2), true);
  t.equal(exceedsDepth(nest(2), 2), false);
});

const text = (values: Buffer[]) => values.map((v) => v.toString('utf8'));

t.test('splitter: newline-delimited and back-to-back values', async (t) => {
  const s = new JsonSplitter(1024);
  t.same(text(s.push(Buffer.from('{"a":1}\n{"b":[2,{"c":"}"}]}\n'))), ['{"a":1}', '{"b":[2,{"c":"}"}]}']);
  t.same(text(s.push(Buffer.from('{"x":1}{"y":2}[3]"str"  42 true\nnull\n'))), [
    '{"x":1}', '{"y":2}', '[3]', '"str"', '42', 'true', 'null',
  ]);
  t.same(text(s.push(Buffer.from('7{"after":"scalar"}'))), ['7', '{"after":"scalar"}']);
  t.same(text(s.push(Buffer.from('}{"z":0}'))), ['}', '{"z":0}'], 'a stray closer is its own (bad) value');
  t.equal(s.overflowed, false);
});

t.test('splitter: values split at every possible byte', async (t) => {
  const input = Buffer.from('{"m":"a\\"}b ✓ ü","p":[{"q":"]"}]}\r\n["x"]\n"lone\\\\"\n12\n');
  const expected = ['{"m":"a\\"}b ✓ ü","p":[{"q":"]"}]}', '["x"]', '"lone\\\\"', '12'];
  for (let cut = 0; cut <= input.length; cut++) {
    const s = new JsonSplitter(1024);
    const got = [...s.push(input.subarray(0, cut)), ...s.push(input.subarray(cut))];
    t.same(text(got), expected, `cut at ${cut}`);
  }
  const s = new JsonSplitter(1024);
  const got: Buffer[] = [];
  for (let i = 0; i < input.length; i++) got.push(...s.push(input.subarray(i, i + 1)));
  t.same(text(got), expected, 'one byte at a time');
});

t.test('splitter: a value past the cap stops the stream', async (t) => {
  const s = new JsonSplitter(100);
  t.same(text(s.push(Buffer.from('{"ok":1}\n{"big":"' + 'x'.repeat(60)))), ['{"ok":1}']);
  t.equal(s.overflowed, false);
  t.same(text(s.push(Buffer.from('x'.repeat(60) + '"}\n{"later":1}\n'))), []);
  t.equal(s.overflowed, true);
  t.same(text(s.push(Buffer.from('{"more":1}\n'))), [], 'ignores everything afterwards');

  const whole = new JsonSplitter(10);
  t.same(text(whole.push(Buffer.from('{"a":1}{"bbbbbbbbbbbb":2}{"c":3}'))), ['{"a":1}'], 'also within one chunk');
  t.equal(whole.overflowed, true);

  const exact = new JsonSplitter(7);
  t.same(text(exact.push(Buffer.from('{"a":1'))), []);
  t.same(text(exact.push(Buffer.from('}'))), ['{"a":1}'], 'exactly at the cap is fine');
  t.equal(exact.overflowed, false);
});
