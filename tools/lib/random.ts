// A small seeded PRNG (sfc32) for the fuzzer: every body is drawn from its own generator, seeded
// from (run seed, endpoint, index), so one failing body reproduces without replaying the rest.

export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(...seeds: number[]) {
    // Mix the seeds into four 32-bit words (splitmix32 over each seed).
    let h = 0x9e3779b9;
    const words: number[] = [];
    for (let i = 0; i < 4; i++) {
      for (const s of seeds) h = splitmix32(h ^ (s >>> 0) ^ i);
      words.push(h);
    }
    [this.a, this.b, this.c, this.d] = words;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** uniform in [0, 2^32) */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** uniform integer in [0, n) */
  int(n: number): number {
    return Math.floor((this.next() / 2 ** 32) * n);
  }

  /** integer in [lo, hi] */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() / 2 ** 32 < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** A size with a long tail: mostly small, sometimes large (up to `max`). */
  size(max: number): number {
    const r = this.next() / 2 ** 32;
    return Math.min(max, Math.floor(2 ** (r * r * Math.log2(max + 1))));
  }
}

function splitmix32(x: number): number {
  x = (x + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** A 32-bit seed from text or a number; a fresh one when undefined. */
export function seedOf(raw: string | undefined): number {
  if (raw === undefined || raw === '') return (Date.now() ^ Math.floor(Math.random() * 2 ** 32)) >>> 0;
  const n = Number(raw);
  if (Number.isInteger(n) && n >= 0 && n < 2 ** 32) return n;
  let h = 2166136261;
  for (let i = 0; i < raw.length; i++) h = Math.imul(h ^ raw.charCodeAt(i), 16777619);
  return h >>> 0;
}
