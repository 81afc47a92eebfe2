// Cuts a byte stream into top-level JSON values for the IPC transport. Values may be separated by
// newlines, packed back to back (`{..}{..}`) or split across chunks. It tracks only nesting depth
// and string state (UTF-8 multi-byte sequences never contain ASCII bytes), so it never recurses
// and never parses; the dispatcher does the real parsing and reports malformed values.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The scanner's states, plain numbers on the hot path. */
const State = {
  Between: 0, // skipping whitespace between values
  Container: 1, // inside [...] or {...}
  String: 2, // inside a string (top-level or nested; depth tells which)
  Scalar: 3, // a bare top-level literal: number, true, false, null or garbage
} as const;
type State = (typeof State)[keyof typeof State];

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

// Bytes that end a bare literal; they start the next value (or are skipped).
function endsScalar(b: number): boolean {
  return isSpace(b) || b === 0x7b || b === 0x5b || b === 0x7d || b === 0x5d || b === QUOTE;
}

export class JsonSplitter {
  private state: State = State.Between;
  private depth = 0;
  private escaped = false;
  /** Bytes of the value in progress that came in earlier chunks. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private tooLarge = false;

  constructor(private readonly maxValueBytes: number) {}

  /**
   * Feeds one chunk; returns every value it completes. Once a value grows past the cap it stops,
   * returns what it completed before, and `overflowed` stays true (the stream cannot resync).
   */
  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    if (this.tooLarge) return out;
    // Index in `chunk` where the value in progress starts; 0 when it began in an earlier chunk.
    let start = 0;
    const n = chunk.length;
    for (let i = 0; i < n && !this.tooLarge; i++) {
      const b = chunk[i];
      switch (this.state) {
        case State.Between:
          if (isSpace(b)) break;
          start = i;
          if (b === 0x7b || b === 0x5b) {
            this.state = State.Container;
            this.depth = 1;
          } else if (b === QUOTE) {
            this.state = State.String;
            this.depth = 0;
          } else if (b === 0x7d || b === 0x5d) {
            this.take(chunk, start, i + 1, out); // a stray closer: let the parser reject it
          } else {
            this.state = State.Scalar;
          }
          break;
        case State.Container:
          if (b === QUOTE) this.state = State.String;
          else if (b === 0x7b || b === 0x5b) this.depth++;
          else if ((b === 0x7d || b === 0x5d) && --this.depth === 0) {
            this.take(chunk, start, i + 1, out);
            this.state = State.Between;
          }
          break;
        case State.String:
          if (this.escaped) this.escaped = false;
          else if (b === BACKSLASH) this.escaped = true;
          else if (b === QUOTE) {
            if (this.depth === 0) {
              this.take(chunk, start, i + 1, out);
              this.state = State.Between;
            } else {
              this.state = State.Container;
            }
          }
          break;
        case State.Scalar:
          if (endsScalar(b)) {
            this.take(chunk, start, i, out);
            this.state = State.Between;
            i--; // this byte begins the next value or is whitespace
          }
          break;
      }
    }
    if (this.state !== State.Between && !this.tooLarge) {
      const rest = chunk.subarray(start);
      this.pendingBytes += rest.length;
      this.pending.push(rest);
      if (this.pendingBytes > this.maxValueBytes) this.overflow();
    }
    return out;
  }

  /** True once a single value went past the cap; the splitter then ignores all input. */
  get overflowed(): boolean {
    return this.tooLarge;
  }

  private take(chunk: Buffer, start: number, end: number, out: Buffer[]): void {
    const tail = chunk.subarray(start, end);
    const size = this.pendingBytes + tail.length;
    if (size > this.maxValueBytes) return this.overflow();
    if (this.pending.length === 0) {
      out.push(tail);
      return;
    }
    this.pending.push(tail);
    out.push(Buffer.concat(this.pending, size));
    this.pending = [];
    this.pendingBytes = 0;
  }

  private overflow(): void {
    this.tooLarge = true;
    this.pending = [];
    this.pendingBytes = 0;
  }
}
