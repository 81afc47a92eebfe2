import t from 'tap';
import { createProgress } from '../../../src/runtime/progress.js';

function sink(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, out: { isTTY, write: (s: string) => writes.push(s) } };
}

t.test('plain lines off a terminal: every tenth (at least 100 blocks apart), then the final line', async (t) => {
  let now = 0;
  const { writes, out } = sink(false);
  const p = createProgress({ verb: 'imported', total: 5000, out, now: () => now });
  for (let done = 1; done <= 5000; done++) {
    now = done * 2; // 500 blocks/s
    p.update(done);
  }
  p.finish(5000);
  t.equal(writes.length, 10);
  t.equal(writes[0], 'imported 500/5000 blocks (500 blocks/s)\n');
  t.equal(writes[1], 'imported 1000/5000 blocks (500 blocks/s)\n');
  t.equal(writes[9], 'imported 5000/5000 blocks (500 blocks/s)\n');
  t.notOk(writes.join('').includes('\r'));
});

t.test('small jobs print only the final line; unknown totals print every thousand', async (t) => {
  const small = sink(false);
  let clock = 0;
  const p = createProgress({ verb: 'built', total: 5, out: small.out, now: () => clock });
  clock = 1000;
  for (let i = 1; i <= 5; i++) p.update(i);
  p.finish(5);
  t.same(small.writes, ['built 5/5 blocks (5 blocks/s)\n']);

  const open = sink(false);
  let now = 0;
  const q = createProgress({ verb: 'imported', out: open.out, now: () => now });
  for (let i = 1; i <= 2500; i++) {
    now = i * 4;
    q.update(i);
  }
  q.finish(2500);
  t.same(open.writes, ['imported 1000 blocks (250 blocks/s)\n', 'imported 2000 blocks (250 blocks/s)\n', 'imported 2500 blocks (250 blocks/s)\n']);
});

t.test('a bar redrawn in place on a terminal, at most every 100 ms', async (t) => {
  let now = 0;
  const { writes, out } = sink(true);
  const p = createProgress({ verb: 'exported', total: 100, out, now: () => now });
  for (let done = 1; done <= 100; done++) {
    now = done * 10; // a redraw every 10 blocks
    p.update(done);
  }
  p.finish(100);
  t.equal(writes.length, 11);
  t.match(writes[0], /^\r\[\.{30}\] exported 1\/100 blocks \(100 blocks\/s\)\x1b\[K$/);
  t.match(writes[5], /^\r\[#{15}\.{15}\] exported 51\/100 blocks/);
  t.equal(writes[10], `\r[${'#'.repeat(30)}] exported 100/100 blocks (100 blocks/s)\x1b[K\n`);
});
