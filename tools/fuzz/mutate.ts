// Fuzz bodies: valid requests of each endpoint, mutated on the value (type swaps, huge numbers,
// deep nesting, random unicode, prototype keys, batches, notifications) and on the bytes (flips,
// truncation, insertions, duplicated keys). Read-only methods only, so that a run cannot stop
// the miner, the endpoint or the node however a body is mangled.

import { Random } from '../lib/random.js';

export type FuzzEndpoint = 'vnode' | 'scs' | 'scsdebug' | 'ipc';
export const FUZZ_ENDPOINTS: readonly FuzzEndpoint[] = ['vnode', 'scs', 'scsdebug', 'ipc'];

export interface FuzzEnv {
  chain: string;
  account: string;
  blockHash: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Call {
  method: string;
  params: Json;
}

function baseCalls(endpoint: FuzzEndpoint, e: FuzzEnv): Call[] {
  const a = e.account;
  const c = e.chain;
  const h = e.blockHash;
  if (endpoint === 'scs') {
    return [
      { method: 'scs_getBlockNumber', params: [c] },
      { method: 'scs_getBlock', params: [c, 'latest'] },
      { method: 'scs_getBlockList', params: [c, '0x0', '0x2'] },
      { method: 'scs_getNonce', params: [c, a] },
      { method: 'scs_getBalance', params: [c, a] },
      { method: 'scs_getDappList', params: [c] },
      { method: 'scs_getDappState', params: [c] },
      { method: 'scs_getMicroChainInfo', params: [c] },
      { method: 'scs_getMicroChainList', params: [] },
      { method: 'scs_getExchangeByAddress', params: [c, a, 0, 1, 0, 1, 0, 1, 0, 1] },
      { method: 'scs_getExchangeInfo', params: [c, 0, 10, 0, 10] },
      { method: 'scs_getTxpool', params: [c] },
      { method: 'scs_directCall', params: [{ to: c, data: a + '12345678' }] },
      { method: 'scs_getReceiptByHash', params: [c, h] },
      { method: 'scs_getTransactionByNonce', params: [c, a, '0x0'] },
      { method: 'scs_getSCSId', params: [] },
    ];
  }
  if (endpoint === 'scsdebug') {
    const d = (name: string, params: Json): Call => ({ method: `ScsRPCMethod.${name}`, params });
    return [
      d('GetScsId', {}),
      d('GetNonce', { SubChainAddr: c, Sender: a }),
      d('GetBalance', { SubChainAddr: c, Sender: a }),
      d('GetBlockNumber', { SubChainAddr: c }),
      d('GetBlock', { SubChainAddr: c, number: 0 }),
      d('GetBlocks', { SubChainAddr: c, Start: 0, End: 2 }),
      d('GetSubChainInfo', { SubChainAddr: c }),
      d('GetTxpool', { SubChainAddr: c }),
      d('GetTxpoolCount', { SubChainAddr: c }),
      d('GetDappState', { SubChainAddr: c, Sender: a }),
      d('GetDappAddrList', { SubChainAddr: c }),
      d('GetExchangeInfo', { SubChainAddr: c, EnteringRecordIndex: 0, EnteringRecordSize: 5, RedeemingRecordIndex: 0, RedeemingRecordSize: 5 }),
      d('GetExchangeByAddress', { SubChainAddr: c, Sender: a, EnterRecordIndex: 0, EnterRecordSize: 5 }),
      d('GetReceiptByHash', { SubChainAddr: c, Hash: h }),
      d('GetTransactionByNonce', { SubChainAddr: c, Sender: a, Nonce: 0 }),
      d('AnyCall', { SubChainAddr: c, DappAddr: a, Sender: a, Params: ['get', 1, '0x01'] }),
      { method: 'scs_getBlockNumber', params: [c] },
    ];
  }
  return [
    { method: 'mc_blockNumber', params: [] },
    { method: 'mc_getBalance', params: [a, 'latest'] },
    { method: 'mc_getTransactionCount', params: [a, 'pending'] },
    { method: 'mc_getBlockByNumber', params: ['0x1', true] },
    { method: 'mc_getBlockByHash', params: [h, false] },
    { method: 'mc_getBlockTransactionCountByNumber', params: ['latest'] },
    { method: 'mc_getTransactionByBlockNumberAndIndex', params: ['0x1', '0x0'] },
    { method: 'mc_getCode', params: [a, 'latest'] },
    { method: 'mc_getStorageAt', params: [a, '0x0', 'latest'] },
    { method: 'mc_call', params: [{ from: a, to: a, data: '0x12345678', gas: '0x5208' }, 'latest'] },
    { method: 'mc_estimateGas', params: [{ from: a, to: a, value: '0x1' }] },
    { method: 'mc_getLogs', params: [{ fromBlock: '0x0', toBlock: 'latest', address: a, topics: [null, [h, h]] }] },
    { method: 'mc_getTransactionByHash', params: [h] },
    { method: 'mc_getTransactionReceipt', params: [h] },
    { method: 'mc_newBlockFilter', params: [] },
    { method: 'mc_getFilterChanges', params: ['0x1'] },
    { method: 'mc_uninstallFilter', params: ['0x2'] },
    { method: 'mc_gasPrice', params: [] },
    { method: 'mc_syncing', params: [] },
    { method: 'mc_sign', params: [a, '0xdeadbeef'] },
    { method: 'mc_sendRawTransaction', params: ['0xf86b808504a817c80082520894' + '11'.repeat(20) + '880de0b6b3a76400008025a0' + '22'.repeat(32) + 'a0' + '33'.repeat(32)] },
    { method: 'libx_sha3', params: ['0x68656c6c6f'] },
    { method: 'libx_clientVersion', params: [] },
    { method: 'net_version', params: [] },
    { method: 'txpool_status', params: [] },
    { method: 'txpool_content', params: [] },
    { method: 'vnode_address', params: [] },
    { method: 'rpc_modules', params: [] },
    { method: 'eth_getBalance', params: [a, 'earliest'] },
  ];
}

const ODD_STRINGS = [
  '', '0x', '0x0', '0x00', '0X1', '-0x1', '0x-1', ' 0x1', '0x1 ', 'latest', 'Latest', 'pending', 'earliest', 'safe',
  '__proto__', 'constructor', 'toString', 'hasOwnProperty', '\u0000', '\ud800', '\udfff\ud800', '💥', '\u202e', 'null', 'true', 'NaN',
];
const PROTO_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];

function randomUnicode(r: Random, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) {
    const kind = r.int(5);
    if (kind === 0) s += String.fromCharCode(r.int(0x20)); // control
    else if (kind === 1) s += String.fromCharCode(0xd800 + r.int(0x800)); // lone surrogate
    else if (kind === 2) s += String.fromCodePoint(0x10000 + r.int(0xfffff)); // astral
    else if (kind === 3) s += String.fromCharCode(0x80 + r.int(0x780)); // 2-byte UTF-8
    else s += String.fromCharCode(0x20 + r.int(0x5f)); // printable ASCII
  }
  return s;
}

function randomValue(r: Random, depth = 0): Json {
  switch (r.int(depth > 2 ? 8 : 10)) {
    case 0: return null;
    case 1: return r.chance(0.5);
    case 2: return r.pick([0, -1, 1.5, 2 ** 53 + 2, -(2 ** 63), 1e308, Number.MAX_SAFE_INTEGER, 0.1]);
    case 3: return r.pick(ODD_STRINGS);
    case 4: return '0x' + 'f'.repeat(r.size(200));
    case 5: return '0x' + '0'.repeat(r.range(1, 70));
    case 6: return randomUnicode(r, r.size(64));
    case 7: return 'x'.repeat(r.size(1 << 20));
    case 8: return Array.from({ length: r.size(8) }, () => randomValue(r, depth + 1));
    default: return Object.fromEntries(Array.from({ length: r.size(6) }, () => [r.chance(0.3) ? r.pick(PROTO_KEYS) : randomUnicode(r, 4), randomValue(r, depth + 1)]));
  }
}

/** Every container slot of a value, for replacing one at random. */
function slots(root: Json): Array<{ parent: Json[] | { [k: string]: Json }; key: string | number }> {
  const out: Array<{ parent: Json[] | { [k: string]: Json }; key: string | number }> = [];
  const walk = (v: Json) => {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        out.push({ parent: v, key: i });
        walk(v[i]);
      }
    } else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        out.push({ parent: v, key: k });
        walk(v[k]);
      }
    }
  };
  walk(root);
  return out;
}

/** Sets an own member, even one named `__proto__` (plain assignment would change the prototype). */
function put(target: object, key: string | number, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const nest = (v: Json, depth: number, asObject: boolean): Json => {
  let out = v;
  for (let i = 0; i < depth; i++) out = asObject ? { a: out } : [out];
  return out;
};

/** Value-level mutations of one request object. */
function mutateValue(r: Random, req: { [k: string]: Json }, calls: Call[]): Json {
  // Mostly inside params, where the method's codecs are; sometimes the envelope itself.
  const inParams = typeof req.params === 'object' && req.params !== null ? slots(req.params) : [];
  const slot = inParams.length > 0 && r.chance(0.7) ? r.pick(inParams) : r.pick(slots(req));
  const hexSlots = inParams.filter((x) => typeof (x.parent as any)[x.key] === 'string' && /^0x/i.test((x.parent as any)[x.key]));
  if (hexSlots.length > 0 && r.chance(0.35)) {
    const h = r.pick(hexSlots);
    put(h.parent, h.key, tweakHex(r, (h.parent as any)[h.key]));
    return req;
  }
  switch (r.int(9)) {
    case 0: // type swap anywhere, envelope members included
      put(slot.parent, slot.key, randomValue(r));
      return req;
    case 1: // huge or hostile number
      put(slot.parent, slot.key, r.pick<Json>(['0x' + '9'.repeat(r.size(5000)), -1, 2 ** 64, '0x1' + '0'.repeat(64), 1e300]));
      return req;
    case 2: // deep nesting around one slot (the limit is 128); the last value mutation of this body
      put(slot.parent, slot.key, nest((slot.parent as any)[slot.key], r.pick([50, 126, 127, 128, 129, 200, r.size(1500)]), r.chance(0.3)));
      return req;
    case 3: // random unicode into a string or the method name
      if (r.chance(0.5)) req.method = (typeof req.method === 'string' ? req.method : '') + randomUnicode(r, r.range(1, 8));
      else put(slot.parent, slot.key, randomUnicode(r, r.size(256)));
      return req;
    case 4: // prototype keys in an object param or the envelope
      put(r.chance(0.5) || typeof req.params !== 'object' || req.params === null ? req : req.params, r.pick(PROTO_KEYS), randomValue(r));
      return req;
    case 5: // notification
      delete req.id;
      return req;
    case 6: // a batch around it (sometimes empty, sometimes at or over the size limit)
      return r.pick<Json>([[], [req], [req, envelope(r.pick(calls), 2), 1, null], Array.from({ length: r.pick([2, 20, 1000, 1001]) }, (_, i) => envelope(r.pick(calls), i))]);
    case 7: // drop a member
      delete (req as any)[r.pick(['jsonrpc', 'id', 'method', 'params'])];
      return req;
    default: // params replaced by a shape of another kind
      req.params = r.pick<Json>([{}, [], null, 'params', 7, [[]], { 0: req.params }]);
      return req;
  }
}

/** A hex string made slightly wrong (or slightly different): the hex rules of docs/methods.md#encodings. */
function tweakHex(r: Random, hex: string): string {
  const digits = hex.slice(2);
  switch (r.int(9)) {
    case 0: return hex.slice(0, -1); // odd length / one digit short
    case 1: return '0x0' + digits; // leading zero
    case 2: return digits; // no prefix
    case 3: return hex + '00'; // one byte longer
    case 4: return '0x' + digits.toUpperCase();
    case 5: return '0x' + digits.slice(0, r.int(digits.length + 1)) + r.pick(['g', 'G', ' ', '-', 'x', '\u0000']) + digits.slice(r.int(digits.length + 1));
    case 6: return '0x' + 'f'.repeat(r.pick([16, 17, 64, 65, 1000]));
    case 7: return '-' + hex;
    default: return '0x';
  }
}

/** Byte-level mutations of the serialized body. */
function mutateBytes(r: Random, text: Buffer): Buffer {
  const b = Buffer.from(text);
  switch (r.int(6)) {
    case 0: // bit flips
      for (let i = r.range(1, 8); i > 0 && b.length; i--) b[r.int(b.length)] ^= 1 << r.int(8);
      return b;
    case 1: // truncation
      return b.subarray(0, r.int(b.length + 1));
    case 2: // random bytes inserted (invalid UTF-8 included)
      return Buffer.concat([b.subarray(0, r.int(b.length + 1)), Buffer.from(Array.from({ length: r.range(1, 16) }, () => r.int(256))), b.subarray(r.int(b.length + 1))]);
    case 3: { // a duplicated key: the parser keeps the last one
      const dup = r.pick(['"id":"dup",', '"method":"nosuch",', '"params":{},', '"jsonrpc":"1.0",', '"id":[],']);
      const at = b.indexOf('{');
      return at < 0 ? b : Buffer.concat([b.subarray(0, at + 1), Buffer.from(dup), b.subarray(at + 1)]);
    }
    case 4: { // a slice repeated
      const from = r.int(b.length + 1);
      const slice = b.subarray(from, from + r.range(1, 64));
      return Buffer.concat([b, slice.length ? Buffer.alloc(slice.length * r.range(1, 50), slice) : Buffer.alloc(0)]);
    }
    default: // a slice deleted
      return Buffer.concat([b.subarray(0, r.int(b.length + 1)), b.subarray(r.int(b.length + 1))]);
  }
}

const isDeep = (v: Json): boolean => {
  let depth = 0;
  for (let x: Json = v; x !== null && typeof x === 'object' && depth < 100; depth++) x = Array.isArray(x) ? x[0] : Object.values(x).find((y) => typeof y === 'object') ?? null;
  return depth >= 100 || JSON.stringify(v).length > 2_000_000;
};

const envelope = (c: Call, id: Json): { [k: string]: Json } => ({ jsonrpc: '2.0', id, method: c.method, params: structuredClone(c.params) });

/** The index-th fuzz body of an endpoint under `seed`: deterministic. */
export function fuzzBody(seed: number, endpoint: FuzzEndpoint, index: number, env: FuzzEnv): Buffer {
  const r = new Random(seed, FUZZ_ENDPOINTS.indexOf(endpoint), index);
  const calls = baseCalls(endpoint, env);
  let value: Json = envelope(r.pick(calls), r.chance(0.8) ? index : r.pick<Json>(['id', null, 1.5]));
  const rounds = r.range(0, 3);
  for (let i = 0; i < rounds && value !== null && typeof value === 'object' && !Array.isArray(value); i++) {
    const before: Json = value;
    value = mutateValue(r, value, calls);
    if (value === before && isDeep(value)) break; // deep values stay below JSON.stringify's recursion limit
  }
  let text: Buffer = Buffer.from(JSON.stringify(value) ?? 'null');
  const byteRounds = r.chance(0.3) ? r.range(1, 2) : 0;
  for (let i = 0; i < byteRounds; i++) text = mutateBytes(r, text);
  return text;
}
