// The heads the HTTP fast path answers itself (httpFastPath.ts): a narrow, canonical form of a
// JSON-RPC POST, chosen so that node:http, whatever version of its parser runs, reads the same
// request from the same bytes. Anything outside it (a tab where a space is usual, trailing
// whitespace, an obs-fold, a control byte, a header node:http interprets that this path does not)
// is left to node:http, which applies its own rules; that costs only speed, never a different answer.
// Partial heads are judged too: the fast path waits for more bytes only while what has arrived can
// still become such a head, because node:http refuses many malformed heads before they end.

import type { Dispatcher } from './dispatch.js';

export interface FastPathRules {
  bodyLimit: number;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  route(path: string): Dispatcher | undefined;
  hostAllowed(header: string | undefined): boolean;
  /** the Access-Control-Allow-Origin value for an allowed origin, else undefined */
  allowedOrigin(origin: string): string | undefined;
  isJsonContentType(header: string | undefined): boolean;
}

/** A request head the fast path answers itself. */
export interface SimpleHead {
  dispatcher: Dispatcher;
  /** bytes of the head, the blank line included */
  headLength: number;
  /** bytes of the body (its Content-Length) */
  length: number;
  /** Connection: close */
  close: boolean;
  cors: string | undefined;
}

// node:http answers a longer head 431; such a head is node:http's to judge.
export const MAX_HEAD_BYTES = 16 * 1024;
const MAX_HEADERS = 64;
const REQUEST_START = 'POST ';
const REQUEST_END = ' HTTP/1.1';
// A conservative set of target characters: every parser version takes these in a path or query.
const TARGET = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/;
const TARGET_PREFIX = /^(\/[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*)?$/;
const NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const NAME_PREFIX = /^[!#$%&'*+.^_`|~0-9A-Za-z-]*$/;
// Visible ASCII with single spaces inside: no tab, no whitespace at either end, nothing else.
const VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const VALUE_PREFIX = /^[\x20-\x7e]*$/;
const DIGITS = /^[0-9]{1,15}$/;
const DIGITS_PREFIX = /^[0-9]{0,15}$/;
const CONNECTION_OPTIONS = ['close', 'keep-alive'];

/** The header fields a simple head may carry once each; the rest pass unread. */
interface Fields {
  'content-length'?: string;
  host?: string;
  'content-type'?: string;
  origin?: string;
  connection?: string;
}

type FieldName = keyof Fields;
const READ: ReadonlySet<string> = new Set<FieldName>(['content-length', 'host', 'content-type', 'origin', 'connection']);
// Fields that change how node:http frames or keeps the connection: never on the fast path.
const FOREIGN: ReadonlySet<string> = new Set(['transfer-encoding', 'expect', 'upgrade', 'proxy-connection']);

/**
 * The simple head in `text` (a head without its closing blank line), or undefined when node:http
 * must see it: another method or version, a field it interprets, a value not in canonical form,
 * a foreign host, a non-JSON type, an unknown path, a body over the limit.
 */
export function parseSimpleHead(text: string, rules: FastPathRules): SimpleHead | undefined {
  if (text.length + 4 > MAX_HEAD_BYTES) return undefined;
  const lines = text.split('\r\n');
  if (lines.length > MAX_HEADERS + 1) return undefined;
  const line = lines[0];
  if (!line.startsWith(REQUEST_START) || !line.endsWith(REQUEST_END)) return undefined;
  const target = line.slice(REQUEST_START.length, -REQUEST_END.length);
  if (!TARGET.test(target)) return undefined;
  const fields: Fields = {};
  for (let i = 1; i < lines.length; i++) if (!readField(lines[i], fields, false)) return undefined;
  const length = fields['content-length'];
  // node:http refuses an HTTP/1.1 request without Host (400); an over-limit length is its 413.
  if (length === undefined || Number(length) > rules.bodyLimit) return undefined;
  const { host, 'content-type': type, origin, connection } = fields;
  if (host === undefined || !rules.hostAllowed(host) || (type !== 'application/json' && !rules.isJsonContentType(type))) return undefined;
  const query = target.indexOf('?');
  const dispatcher = rules.route(query < 0 ? target : target.slice(0, query));
  if (dispatcher === undefined) return undefined;
  const cors = origin === undefined ? undefined : rules.allowedOrigin(origin);
  return { dispatcher, headLength: text.length + 4, length: Number(length), close: connection === 'close', cors };
}

/**
 * Whether `text`, the start of a head whose end has not arrived, can still become a simple head.
 * Only then does the fast path wait; otherwise node:http takes the bytes and judges them now.
 */
export function couldBeSimpleHead(text: string): boolean {
  if (text.length >= MAX_HEAD_BYTES) return false;
  const lines = text.split('\r\n');
  if (lines.length > MAX_HEADERS + 2) return false;
  const last = lines.length - 1;
  // A carriage return may end what has arrived: its line feed is still to come.
  const tail = lines[last].endsWith('\r') ? lines[last].slice(0, -1) : lines[last];
  if (last === 0) return requestLinePrefix(tail, tail.length < lines[last].length);
  if (!requestLinePrefix(lines[0], true)) return false;
  const fields: Fields = {};
  for (let i = 1; i < last; i++) if (!readField(lines[i], fields, false)) return false;
  return tail === '' || readField(tail, fields, true);
}

function requestLinePrefix(line: string, whole: boolean): boolean {
  if (whole) return line.startsWith(REQUEST_START) && line.endsWith(REQUEST_END) && TARGET.test(line.slice(REQUEST_START.length, -REQUEST_END.length));
  if (line.length <= REQUEST_START.length) return REQUEST_START.startsWith(line);
  if (!line.startsWith(REQUEST_START)) return false;
  const rest = line.slice(REQUEST_START.length);
  const space = rest.indexOf(' ');
  if (space < 0) return TARGET_PREFIX.test(rest);
  return TARGET.test(rest.slice(0, space)) && REQUEST_END.startsWith(rest.slice(space));
}

/**
 * One header line into `fields`; false when the line keeps the head off the fast path. With
 * `partial`, the line may still grow: its value is judged as the start of a canonical value.
 */
function readField(line: string, fields: Fields, partial: boolean): boolean {
  const colon = line.indexOf(':');
  if (colon < 0) return partial && NAME_PREFIX.test(line);
  const name = line.slice(0, colon);
  if (!NAME.test(name)) return false;
  const key = name.toLowerCase();
  if (FOREIGN.has(key)) return false;
  // One optional run of spaces after the colon, as clients write it (a tab is node:http's to judge).
  let start = colon + 1;
  while (line.charCodeAt(start) === 0x20) start++;
  const value = line.slice(start);
  if (partial) {
    if (!VALUE_PREFIX.test(value)) return false;
  } else if (!VALUE.test(value)) return false;
  if (!READ.has(key)) return true;
  const field = key as FieldName;
  // A repeated field this path reads is node:http's to judge (it refuses or keeps the first).
  if (fields[field] !== undefined) return false;
  if (field === 'content-length' && !(partial ? DIGITS_PREFIX : DIGITS).test(value)) return false;
  if (field === 'connection') {
    const option = value.toLowerCase();
    if (!CONNECTION_OPTIONS.some((o) => (partial ? o.startsWith(option) : o === option))) return false;
    fields[field] = option;
    return true;
  }
  if (!partial) fields[field] = value;
  return true;
}
