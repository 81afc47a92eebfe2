// Calldata and console.log payloads decoded in the page: a small ABI decoder (integers, address,
// bool, fixed and dynamic bytes, string, arrays and tuples) over the signature tables the node
// serves in /explorer/config.json (selectors computed by the node).

const hexWord = (hex, at) => hex.slice(at * 2, at * 2 + 64);
const toBig = (word) => BigInt('0x' + (word || '0'));

/** Splits `a,(b,c)[],d` at the top level. */
export function splitTypes(list) {
  const out = [];
  let depth = 0;
  let cur = '';
  for (const ch of list) {
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
      continue;
    }
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    cur += ch;
  }
  if (cur !== '') out.push(cur);
  return out;
}

const isDynamic = (type) => type === 'string' || type === 'bytes' || type.endsWith('[]') ||
  (type.startsWith('(') && splitTypes(type.slice(1, type.lastIndexOf(')'))).some(isDynamic));

/** Decodes `types` from `hex` (no 0x; offsets relative to its start). */
export function decodeValues(types, hex) {
  return types.map((type, i) => decodeOne(type, hex, i * 32));
}

function headSize(type) {
  if (type.startsWith('(') && !type.endsWith('[]') && !isDynamic(type)) {
    return splitTypes(type.slice(1, -1)).reduce((n, t) => n + headSize(t), 0);
  }
  return 32;
}

function decodeOne(type, hex, at) {
  if (isDynamic(type)) {
    const offset = Number(toBig(hexWord(hex, at)));
    return decodeAt(type, hex.slice(offset * 2));
  }
  return decodeAt(type, hex.slice(at * 2));
}

function decodeAt(type, hex) {
  if (type.endsWith('[]')) {
    const inner = type.slice(0, -2);
    const length = Number(toBig(hexWord(hex, 0)));
    if (length > 1000) throw new Error('array too long');
    const body = hex.slice(64);
    const out = [];
    let at = 0;
    for (let i = 0; i < length; i++) {
      out.push(decodeOne(inner, body, at));
      at += isDynamic(inner) ? 32 : headSize(inner);
    }
    return out;
  }
  if (type.startsWith('(')) {
    const parts = splitTypes(type.slice(1, -1));
    let at = 0;
    return parts.map((t) => {
      const v = decodeOne(t, hex, at);
      at += isDynamic(t) ? 32 : headSize(t);
      return v;
    });
  }
  const word = hexWord(hex, 0);
  if (word.length < 64 && type !== 'string' && type !== 'bytes') throw new Error('short data');
  if (type === 'address') return '0x' + word.slice(24);
  if (type === 'bool') return toBig(word) !== 0n;
  if (/^uint\d*$/.test(type)) return toBig(word);
  if (/^int\d*$/.test(type)) {
    const v = toBig(word);
    return v >= 1n << 255n ? v - (1n << 256n) : v;
  }
  if (/^bytes\d+$/.test(type)) return '0x' + word.slice(0, Number(type.slice(5)) * 2);
  const length = Number(toBig(word));
  const data = hex.slice(64, 64 + length * 2);
  if (data.length < length * 2) throw new Error('short data');
  if (type === 'bytes') return '0x' + data;
  return new TextDecoder().decode(Uint8Array.from(data.match(/../g) ?? [], (b) => parseInt(b, 16)));
}

/** `name(types)` → [name, [types]]. */
export function parseSignature(signature) {
  const open = signature.indexOf('(');
  return [signature.slice(0, open), splitTypes(signature.slice(open + 1, -1))];
}

/** Calldata → `{ signature, name, args: [{type, value}] }` when its selector is known, else undefined. */
export function decodeInput(input, functions) {
  if (!input || input.length < 10) return undefined;
  const signature = functions[input.slice(0, 10).toLowerCase()];
  if (!signature) return undefined;
  const [name, types] = parseSignature(signature);
  try {
    const values = decodeValues(types, input.slice(10));
    return { signature, name, args: types.map((type, i) => ({ type, value: values[i] })) };
  } catch {
    return { signature, name, args: undefined };
  }
}

export const showValue = (v) => (Array.isArray(v) ? `[${v.map(showValue).join(', ')}]` : String(v));

/** A console.log payload as the node prints it (%s %d %i %o %x substitution). */
export function decodeConsole(input, signatures) {
  const types = signatures[input.slice(0, 10).toLowerCase()];
  if (!types) return undefined;
  let values;
  try {
    values = decodeValues(types, input.slice(10));
  } catch {
    return undefined;
  }
  if (typeof values[0] !== 'string') return values.map(showValue).join(' ');
  const [first, ...rest] = values;
  let next = 0;
  const text = first.replace(/%([sdiox%])/g, (match, spec) => {
    if (spec === '%') return '%';
    if (next >= rest.length) return match;
    const v = rest[next++];
    if (spec === 'x' && typeof v === 'bigint') return '0x' + (v < 0n ? v + (1n << 256n) : v).toString(16);
    return showValue(v);
  });
  return [text, ...rest.slice(next).map(showValue)].join(' ');
}

/** Error(string) revert data → the reason; Panic(uint256) → its code. */
export function revertReason(data) {
  if (!data || data === '0x') return undefined;
  try {
    if (data.startsWith('0x08c379a0')) return decodeValues(['string'], data.slice(10))[0];
    if (data.startsWith('0x4e487b71')) return `panic 0x${decodeValues(['uint256'], data.slice(10))[0].toString(16)}`;
  } catch {
    /* not decodable */
  }
  return undefined;
}
