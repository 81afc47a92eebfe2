// What the design says must come back for a body (docs/transports.md), written independently of the
// dispatcher: whether any reply is due (a valid notification, or a batch of only those, gets
// none), and, over IPC, which values the stream carries.

import { JsonSplitter } from '../../src/rpc/jsonSplitter.js';

export const MAX_DEPTH = 128;
export const MAX_BATCH = 1000;
export const MAX_BODY = 5 * 1024 * 1024;

/** True when the text opens more than `max` arrays/objects at once (strings skipped). */
export function tooDeep(text: string, max = MAX_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') {
      if (++depth > max) return true;
    } else if (ch === ']' || ch === '}') depth--;
  }
  return false;
}

function isNotification(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const m = v as Record<string, unknown>;
  if ('id' in m) return false;
  const p = m.params;
  return m.jsonrpc === '2.0' && typeof m.method === 'string' && (p === undefined || (typeof p === 'object' && p !== null));
}

/** Whether a reply is due for one message (an HTTP body, or one IPC value). */
export function expectsReply(body: Buffer): boolean {
  const text = body.toString('utf8');
  if (tooDeep(text)) return true;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return true;
  }
  if (Array.isArray(value)) return value.length === 0 || value.length > MAX_BATCH || !value.every(isNotification);
  return !isNotification(value);
}

/**
 * The values an IPC stream carries for `body` followed by a newline, and whether they end
 * cleanly (false: an unfinished value is left open and would swallow what follows).
 */
export function ipcValues(body: Buffer): { values: Buffer[]; clean: boolean } {
  const splitter = new JsonSplitter(MAX_BODY);
  const values = splitter.push(Buffer.concat([body, Buffer.from('\n')]));
  const probe = '{"probe":1}';
  const after = splitter.push(Buffer.from(probe + '\n'));
  const clean = !splitter.overflowed && after.length === 1 && after[0].toString() === probe;
  return { values, clean };
}

/** The request ids a single-object body names, for checking the reply echoes it. */
export function singleId(body: Buffer): { has: boolean; id?: unknown } {
  try {
    const text = body.toString('utf8');
    if (tooDeep(text)) return { has: false };
    const v = JSON.parse(text);
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !('id' in v)) return { has: false };
    const id = (v as { id: unknown }).id;
    if (id !== null && typeof id !== 'string' && typeof id !== 'number') return { has: false };
    if (typeof id === 'number' && !Number.isFinite(id)) return { has: false };
    return { has: true, id };
  } catch {
    return { has: false };
  }
}
