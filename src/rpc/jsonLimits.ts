// Size and shape limits checked on raw request text, before (or instead of) JSON.parse, so a
// hostile body can neither blow the stack nor make us buffer without bound.

export const MAX_JSON_DEPTH = 128;
export const MAX_REQUEST_BYTES = 5 * 1024 * 1024;
export const MAX_BATCH_ITEMS = 1000;
export const MAX_BATCH_RESPONSE_BYTES = 25_000_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * True when `text` opens more than `max` nested arrays/objects at some point. A flat scan that
 * skips string contents: no recursion, no parse. Malformed text is left for JSON.parse to reject.
 */
export function exceedsDepth(text: string, max = MAX_JSON_DEPTH): boolean {
  const n = text.length;
  if (n <= max) return false; // cannot hold max+1 opening brackets
  // Usual requests hold a handful of brackets: counting them all (strings included, so never too
  // few) by indexOf is quicker than the scan, and under the limit nothing can be nested deeper.
  if (countAtMost(text, '{', '[', max)) return false;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

/** True when `text` holds at most `max` of the characters `a` and `b` together. */
function countAtMost(text: string, a: string, b: string, max: number): boolean {
  let count = 0;
  for (let i = text.indexOf(a); i !== -1; i = text.indexOf(a, i + 1)) if (++count > max) return false;
  for (let i = text.indexOf(b); i !== -1; i = text.indexOf(b, i + 1)) if (++count > max) return false;
  return true;
}
