// What the interpreter needs to know about a piece of code before running it: where JUMPDESTs
// are (not inside PUSH data) and the value of every PUSH. Kept per code array: code from state
// is never written, and CREATE's init code is a fresh view of memory on every creation.

export interface CodeInfo {
  /** 1 at each valid jump destination */
  readonly jumpdests: Uint8Array;
  /** the pushed value at the pc of each PUSHn */
  readonly pushes: bigint[];
}

const analyses = new WeakMap<Uint8Array, CodeInfo>();

export function codeInfo(code: Uint8Array): CodeInfo {
  let info = analyses.get(code);
  if (info === undefined) {
    info = analyse(code);
    analyses.set(code, info);
  }
  return info;
}

function analyse(code: Uint8Array): CodeInfo {
  const jumpdests = new Uint8Array(code.length);
  const pushes: bigint[] = new Array<bigint>(code.length);
  for (let pc = 0; pc < code.length; pc++) {
    const op = code[pc];
    if (op === 0x5b) {
      jumpdests[pc] = 1;
    } else if (op >= 0x60 && op <= 0x7f) {
      const n = op - 0x5f;
      pushes[pc] = pushValue(code, pc + 1, n);
      pc += n;
    }
  }
  return { jumpdests, pushes };
}

/** `n` bytes from `start`, zero-padded on the right where the code ends (as the library reads them). */
function pushValue(code: Uint8Array, start: number, n: number): bigint {
  if (n <= 6) {
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 256 + (start + i < code.length ? code[start + i] : 0);
    return BigInt(v);
  }
  let hex = '0x';
  for (let i = 0; i < n; i++) {
    const b = start + i < code.length ? code[start + i] : 0;
    hex += (b < 16 ? '0' : '') + b.toString(16);
  }
  return BigInt(hex);
}
