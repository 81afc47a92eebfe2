// A minimal WebAssembly binary assembler: just the opcodes, encodings and sections our keccak
// kernels use. Kernels are built from code at load time rather than shipped as opaque blobs.

// Opcodes used (WebAssembly core spec, binary format).
export const OP = {
  block: 0x02, loop: 0x03, if: 0x04, end: 0x0b, br: 0x0c, brIf: 0x0d, return: 0x0f, call: 0x10,
  localGet: 0x20, localSet: 0x21, localTee: 0x22, i64Load: 0x29, i64Store: 0x37, i32Const: 0x41,
  i64Const: 0x42, i32Eqz: 0x45, i32GeU: 0x4f, i64LtU: 0x54, i64GtU: 0x56, i64LeU: 0x58,
  i32Add: 0x6a, i32Sub: 0x6b, i64Add: 0x7c, i64And: 0x83, i64Or: 0x84, i64Xor: 0x85, i64Shl: 0x86,
  i64ShrU: 0x88, i64Rotl: 0x89, i64ExtendI32U: 0xad,
  i32Load: 0x28, i32Store: 0x36, i32LtU: 0x49, i32Mul: 0x6c, i32RemU: 0x70, i32Xor: 0x73, i32Shl: 0x74,
} as const;
/** SIMD opcodes, each emitted after the 0xfd prefix (the multi-byte ones as their LEB128 bytes). */
export const SIMD = {
  v128Load: [0x00], v128Store: [0x0b], i32x4Splat: [0x11], i32x4ExtractLane: [0x1b], v128Xor: [0x51],
  i32x4Mul: [0xb5, 0x01],
} as const;
export const V128 = 0x7b;
export const I32 = 0x7f;
export const I64 = 0x7e;
/** Block type of a block/loop/if that yields nothing. */
export const VOID = 0x40;

export function uleb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

export function sleb(value: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = Number(value & 0x7fn);
    value >>= 7n; // arithmetic shift: sign is kept
    const done = (value === 0n && (byte & 0x40) === 0) || (value === -1n && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

/** Instruction emitter for one function body. */
export class Code {
  readonly bytes: number[] = [];
  op(...bytes: number[]): this {
    for (const b of bytes) this.bytes.push(b);
    return this;
  }
  get(local: number): this { return this.op(OP.localGet, ...uleb(local)); }
  set(local: number): this { return this.op(OP.localSet, ...uleb(local)); }
  tee(local: number): this { return this.op(OP.localTee, ...uleb(local)); }
  i32(value: number): this { return this.op(OP.i32Const, ...sleb(BigInt(value))); }
  i64(value: bigint): this { return this.op(OP.i64Const, ...sleb(BigInt.asIntN(64, value))); }
  /** i64 at a fixed address. */
  load64(offset: number): this { return this.i32(0).op(OP.i64Load, 3, ...uleb(offset)); }
  /** i64 at (i32 local `base`) + offset. */
  load64At(base: number, offset: number): this { return this.get(base).op(OP.i64Load, 3, ...uleb(offset)); }
  /** Stores i64 local `value` at a fixed address. */
  store64(offset: number, value: number): this {
    return this.i32(0).get(value).op(OP.i64Store, 3, ...uleb(offset));
  }
  call(fn: number): this { return this.op(OP.call, ...uleb(fn)); }
  /** Stores i64 local `value` at (i32 local `base`) + offset. */
  store64At(base: number, offset: number, value: number): this {
    return this.get(base).get(value).op(OP.i64Store, 3, ...uleb(offset));
  }
  /** One SIMD instruction with its immediates (memarg or lane index). */
  simd(opcode: readonly number[], ...immediates: number[]): this {
    return this.op(0xfd, ...opcode, ...immediates);
  }
  /** v128 at (address on the stack) + offset. */
  v128Load(offset: number): this { return this.simd(SIMD.v128Load, 4, ...uleb(offset)); }
  /** Stores the v128 on the stack at (address below it) + offset. */
  v128Store(offset: number): this { return this.simd(SIMD.v128Store, 4, ...uleb(offset)); }
  /** i32 at (address on the stack) + offset. */
  i32Load(offset: number): this { return this.op(OP.i32Load, 2, ...uleb(offset)); }
}

/** One function of a module; its index is its position in the list given to assembleModule. */
export interface WasmFunction {
  params: number[];
  results: number[];
  /** Declared locals as runs of [count, type]; they follow the params in index order. */
  locals: Array<[number, number]>;
  code: Code;
  /** Export name, when exported. */
  export?: string;
}

const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, payload: number[]): number[] => [id, ...uleb(payload.length), ...payload];
const name = (text: string): number[] => [...uleb(text.length), ...new TextEncoder().encode(text)];

function body(fn: WasmFunction): number[] {
  const bytes = [...vec(fn.locals.map(([n, type]) => [...uleb(n), type])), ...fn.code.bytes, OP.end];
  return [...uleb(bytes.length), ...bytes];
}

/** A module binary: the functions (one type each), one growable memory exported as "memory". */
export function assembleModule(functions: WasmFunction[], memoryPages: number): Uint8Array<ArrayBuffer> {
  const exports = [[...name('memory'), 0x02, 0]];
  functions.forEach((fn, index) => {
    if (fn.export) exports.push([...name(fn.export), 0x00, ...uleb(index)]);
  });
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec(functions.map((fn) => [0x60, ...vec(fn.params.map((p) => [p])), ...vec(fn.results.map((r) => [r]))]))),
    ...section(3, vec(functions.map((_, index) => uleb(index)))),
    ...section(5, vec([[0x00, ...uleb(memoryPages)]])),
    ...section(7, vec(exports)),
    ...section(10, vec(functions.map(body))),
  ];
  return Uint8Array.from(bytes);
}
