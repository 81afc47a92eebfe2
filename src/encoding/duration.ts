// Go's duration text ("5s", "300ms", "1m30s", "1.5h"): what geth's flags and trace options take,
// and what geth's messages print (`execution aborted (timeout = 5s)`). One parser and one
// formatter, in nanoseconds, so that the node's values read back exactly as geth would show them.

const NS_PER: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 6e10, h: 3.6e12 };
const PART = /([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)/y;

/** A non-negative Go duration in nanoseconds, or undefined when `text` is not one ("0" alone is allowed, as in Go). */
export function parseDuration(text: string): number | undefined {
  if (text === '0') return 0;
  if (text === '') return undefined;
  let ns = 0;
  let at = 0;
  while (at < text.length) {
    PART.lastIndex = at;
    const m = PART.exec(text);
    if (m === null || m[1] === '' || m[1] === '.') return undefined;
    ns += Number(m[1]) * NS_PER[m[2]];
    at = PART.lastIndex;
  }
  return Math.round(ns);
}

/** Go's Duration.String() of `ns` nanoseconds: 0s, 750µs, 500ms, 5s, 1.5s, 1m0s, 1h2m3s. */
export function formatDuration(ns: number): string {
  let u = Math.round(Math.abs(ns));
  const sign = ns < 0 && u !== 0 ? '-' : '';
  if (u === 0) return '0s';
  if (u < 1e3) return `${sign}${u}ns`;
  if (u < 1e6) return `${sign}${fraction(u, 1e3, 3)}µs`;
  if (u < 1e9) return `${sign}${fraction(u, 1e6, 6)}ms`;
  const hours = Math.floor(u / 3.6e12);
  u -= hours * 3.6e12;
  const minutes = Math.floor(u / 6e10);
  u -= minutes * 6e10;
  const seconds = `${fraction(u, 1e9, 9)}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}`;
  return sign + seconds;
}

/** `value / unit` in decimal, without trailing zeros in the fraction. */
function fraction(value: number, unit: number, digits: number): string {
  const whole = Math.floor(value / unit);
  const rest = value - whole * unit;
  if (rest === 0) return String(whole);
  return `${whole}.${String(rest).padStart(digits, '0').replace(/0+$/, '')}`;
}
