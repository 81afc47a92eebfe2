// Results that are JSON text already. The SCS rpcdebug variant writes integers as exact JSON
// numbers of any size (as the real SCS's Go encoder does), which JSON.stringify cannot do.

/** A handler result that the dispatcher writes verbatim; `text` must be valid JSON. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text in which bigint values are written as exact numbers (other values as JSON.stringify). */
export function exactJson(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : exactJson(v))).join(',')}]`;
  const members: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (v !== undefined && typeof v !== 'function') members.push(`${JSON.stringify(key)}:${exactJson(v)}`);
  }
  return `{${members.join(',')}}`;
}
