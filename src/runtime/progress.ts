// Progress of long block jobs (import, export, fixture builds) on the terminal: a redrawn bar
// with blocks/s on a TTY, plain lines otherwise (logs, CI, pipes), e.g.
// `imported 1000/5000 blocks (812 blocks/s)`.

export interface ProgressSink {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ProgressOptions {
  /** past-tense verb of the line: imported, exported, built */
  verb: string;
  /** what is counted; default `blocks` (the Ethash dataset counts `items`) */
  unit?: string;
  /** total number of blocks, when known */
  total?: number;
  out?: ProgressSink;
  /** monotonic milliseconds; injectable for tests */
  now?: () => number;
}

export interface Progress {
  /** `done` blocks handled so far (not a delta) */
  update(done: number): void;
  /** prints the final line (and ends the bar) */
  finish(done: number): void;
}

const BAR_WIDTH = 30;
/** TTY redraws at most this often. */
const REDRAW_MS = 100;
/** Plain lines come at every tenth of the total but at most every this many blocks, or at every thousand when the total is unknown. */
const PLAIN_MIN_STEP = 100;
const PLAIN_STEP_UNKNOWN = 1000;

export function createProgress(opts: ProgressOptions): Progress {
  const out = opts.out ?? process.stdout;
  const now = opts.now ?? (() => performance.now());
  const total = opts.total !== undefined && opts.total > 0 ? opts.total : undefined;
  const started = now();
  const tty = out.isTTY === true;
  const unit = opts.unit ?? 'blocks';
  const step = total !== undefined ? Math.max(PLAIN_MIN_STEP, Math.ceil(total / 10)) : PLAIN_STEP_UNKNOWN;
  let lastDraw = -Infinity;
  let nextLine = step;
  let drawn = false;

  const rate = (done: number): string => {
    const seconds = (now() - started) / 1000;
    const perSecond = seconds > 0 ? done / seconds : 0;
    return `${perSecond >= 10 ? Math.round(perSecond) : Number(perSecond.toFixed(1))} ${unit}/s`;
  };
  const count = (done: number) => (total !== undefined ? `${done}/${total}` : `${done}`);
  const line = (done: number) => `${opts.verb} ${count(done)} ${unit} (${rate(done)})`;
  const bar = (done: number): string => {
    if (total === undefined) return line(done);
    const filled = Math.min(BAR_WIDTH, Math.floor((done / total) * BAR_WIDTH));
    return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${line(done)}`;
  };

  return {
    update(done) {
      if (tty) {
        const t = now();
        if (t - lastDraw < REDRAW_MS) return;
        lastDraw = t;
        out.write(`\r${bar(done)}\x1b[K`);
        drawn = true;
        return;
      }
      if (done < nextLine) return;
      while (nextLine <= done) nextLine += step;
      // The final line is finish()'s.
      if (total === undefined || done < total) out.write(line(done) + '\n');
    },
    finish(done) {
      if (tty) out.write(`${drawn ? '\r' : ''}${bar(done)}\x1b[K\n`);
      else out.write(line(done) + '\n');
    },
  };
}
