// Corpus rows about methods and their params: every encoding rule of README "Methods served" per type,
// arity and objects, unknown and disabled methods, prototype names, and app-chain params.
// See corpus.ts for the row format; typed() places one value in each endpoint's equivalent param.

import { DEV, rawTx } from '../helpers/accounts.js';
import { hexToBytes } from '../../src/encoding/hex.js';
import type { CorpusCase, CorpusEnv, Expect } from './corpus.js';
import { call, per, same, typed, zeroArg } from './corpusBuild.js';

const BAD = { code: -32602 };
const UNKNOWN = { code: -32601 };
const OK = { code: 'ok' } as const;
const ADDR = DEV[2].address;
/** A VNODE method: over HTTP 8545 and IPC only. */
const vnode = (text: string | (() => string)) => per({ vnode: text });
const HASH = '0x' + '00'.repeat(32);

export function paramCases(env: CorpusEnv): CorpusCase[] {
  const t = typed(env);
  const c = env.chain;
  const unknownChain = '0x' + '42'.repeat(20);
  /** a row: one value in one param kind, expected everywhere, with per-target differences */
  const row = (name: string, request: CorpusCase['request'], expect: Expect, except?: CorpusCase['except']): CorpusCase => ({
    name, category: 'params', request, expect, except,
  });
  const method = (name: string, expect: Expect, except?: CorpusCase['except'], category: CorpusCase['category'] = 'unknown-method'): CorpusCase => ({
    name: `method ${JSON.stringify(name)}`,
    category,
    // rpcdebug methods take one object of named params; the others positional ones
    request: same(call(name, /^scsrpcmethod\./i.test(name) ? {} : [])),
    expect,
    except,
  });
  const appTx = (flag: bigint, to: string, via: string) =>
    rawTx(DEV[1].key, { nonce: 0n, to: hexToBytes(to), data: hexToBytes(ADDR), gas: 0n, gasPrice: 0n, shardingFlag: flag, via: hexToBytes(via) }).raw;

  return [
    // --- QUANTITY (a block number) ----------------------------------------------------------
    row('QUANTITY "0x" without digits', t.number('0x'), { ...BAD, message: /has no digits/ }),
    row('QUANTITY with a leading zero', t.number('0x0400'), { ...BAD, message: /leading zero/ }),
    row('QUANTITY without 0x', t.number('400'), BAD),
    row('QUANTITY with non-hex digits', t.number('0xZZ'), BAD),
    row('QUANTITY negative, sign before 0x', t.number('-0x1'), BAD),
    row('QUANTITY negative, sign after 0x', t.number('0x-1'), BAD),
    row('QUANTITY over 64 bits where a block number is wanted', t.number('0x1' + '0'.repeat(16)), { ...BAD, message: /> 64 bits/ }),
    row('QUANTITY over 256 bits', t.number('0x1' + '0'.repeat(64)), { ...BAD, message: /> (64|256) bits/ }),
    row('QUANTITY with a leading space', t.number(' 0x1'), BAD),
    row('QUANTITY with 0X prefix (accepted, as geth)', t.number('0X0'), OK),
    row('QUANTITY with upper-case digits', t.number('0xA'), OK),
    // chain3 passes SCS block numbers unformatted, so the SCS takes JSON numbers; the VNODE does not
    row('a JSON number for a QUANTITY', t.number(1), BAD, { scs: OK, scsdebug: OK }),
    row('a negative JSON number', t.number(-1), BAD),
    row('a fractional JSON number', t.number(1.5), BAD),
    row('a JSON number beyond 2^53', t.number(2 ** 60), BAD),
    row('null for a required QUANTITY', t.number(null), BAD),
    row('true for a QUANTITY', t.number(true), BAD),
    row('an object for a QUANTITY', t.number({}), BAD),
    row('an array for a QUANTITY', t.number(['0x1']), BAD),
    row('a block number beyond the head', t.number('0xffffffffffffffff'), { code: 'ok', result: null }),

    // --- TAG --------------------------------------------------------------------------------
    row('TAG "Latest" (case matters)', t.tag('Latest'), BAD),
    row('TAG "safe" (not a MOAC tag)', t.tag('safe'), BAD),
    row('TAG "finalized"', t.tag('finalized'), BAD),
    row('TAG empty string', t.tag(''), BAD),
    row('TAG "latest" with a trailing space', t.tag('latest '), BAD),
    row('TAG "earliest"', t.tag('earliest'), OK, { scsdebug: BAD }),
    // app chains have no pending block (README "Application chains (SCS)")
    row('TAG "pending"', t.tag('pending'), OK, { scs: { ...BAD, message: /no pending block/ }, scsdebug: BAD }),

    // --- DATA -------------------------------------------------------------------------------
    row('DATA of odd length', t.data('0x123'), { ...BAD, message: /odd length/ }),
    row('DATA without 0x', t.data('1234'), { ...BAD, message: /without 0x prefix/ }),
    row('DATA with non-hex digits', t.data('0xzz'), BAD),
    row('DATA as a JSON number', t.data(0x12), { ...BAD, message: /expected a hex string/ }),
    row('DATA empty "0x"', t.data('0x'), OK, { scs: BAD, scsdebug: BAD }),
    row('DATA with upper-case digits', t.data('0x' + 'AB'.repeat(24)), OK, { scsdebug: BAD }),

    // --- addresses (DATA 20) ----------------------------------------------------------------
    row('address of 19 bytes', t.address('0x' + '11'.repeat(19)), { ...BAD, message: /want 40 for 20-byte value/ }),
    row('address of 21 bytes', t.address('0x' + '11'.repeat(21)), BAD),
    row('address "0x"', t.address('0x'), BAD),
    row('address without 0x', t.address(ADDR.slice(2)), BAD),
    row('address of odd length', t.address(ADDR + '1'), BAD),
    row('address as a number', t.address(1), BAD),
    row('address in mixed (checksum) case', t.address('0xF2e8267e788C835E2F91354D3C1fBc4C7836CCF0'), OK),

    // --- hashes (DATA 32) -------------------------------------------------------------------
    row('hash of 31 bytes', t.hash('0x' + '00'.repeat(31)), { ...BAD, message: /want 64 for 32-byte value/ }),
    row('hash of 33 bytes', t.hash('0x' + '00'.repeat(33)), BAD),
    row('hash without 0x', t.hash(HASH.slice(2)), BAD),
    row('unknown hash: null', t.hash(HASH), { code: 'ok', result: null }),

    // --- indexes ----------------------------------------------------------------------------
    row('index negative JSON number', t.index(-1), BAD),
    row('index over 64 bits', t.index('0x1' + '0'.repeat(16)), BAD),
    row('index fractional', t.index(1.5), BAD),
    row('index as a string without 0x', t.index('1'), BAD),

    // --- arity and shapes -------------------------------------------------------------------
    row('too many arguments', per({ vnode: call('mc_getBalance', [ADDR, 'latest', 1]), scs: call('scs_getNonce', [c, ADDR, 1]) }), { ...BAD, message: /too many arguments/ }),
    row('a missing required argument', per({ vnode: call('mc_getBalance', []), scs: call('scs_getNonce', [c]), scsdebug: call('ScsRPCMethod.GetNonce', { SubChainAddr: c }) }), { ...BAD, message: /missing value for required argument/ }),
    row('call object as a string', per({ vnode: call('mc_call', ['0x12', 'latest']), scs: call('scs_directCall', ['0x12']) }), { ...BAD, message: /expected an object/ }),
    row('call object with a short "to"', per({ vnode: call('mc_call', [{ to: '0x1' }, 'latest']), scs: call('scs_directCall', [{ to: '0x1' }]) }), BAD),
    row('call value negative', vnode(call('mc_call', [{ to: ADDR, value: '-0x1' }, 'latest'])), BAD),
    row('call gas over 64 bits', vnode(call('mc_call', [{ to: ADDR, gas: '0x1' + '0'.repeat(16) }, 'latest'])), { ...BAD, message: /> 64 bits/ }),
    row('call gas far above the cap is capped, not refused', vnode(call('mc_call', [{ to: ADDR, gas: '0xffffffffffffffff' }, 'latest'])), OK),
    row('log filter with five topic positions', vnode(call('mc_getLogs', [{ topics: [null, null, null, null, null] }])), { code: -32005, message: /topics/ }),
    row('log filter topic of 31 bytes', vnode(call('mc_getLogs', [{ topics: ['0x' + '00'.repeat(31)] }])), BAD),
    row('log filter fromBlock after toBlock', vnode(call('mc_getLogs', [{ fromBlock: '0x5', toBlock: '0x1' }])), { code: -32000 }),
    row('log filter with blockHash and a range', vnode(call('mc_getLogs', [{ blockHash: HASH, fromBlock: '0x1' }])), BAD),
    row('raw transaction "0x"', vnode(call('mc_sendRawTransaction', ['0x'])), BAD),
    row('raw transaction of garbage', vnode(call('mc_sendRawTransaction', ['0xdeadbeef'])), BAD),
    row('raw transaction: a list of too few items', vnode(call('mc_sendRawTransaction', ['0xc3808080'])), BAD),
    row('raw transaction signed for another chain', vnode(() => call('mc_sendRawTransaction', [rawTx(DEV[1].key, { nonce: 0n, to: hexToBytes(ADDR) }, 101n).raw])), { code: -32000 }),
    row('unknown filter id', vnode(call('mc_getFilterChanges', ['0xdeadbeef'])), { code: -32000, message: /^filter not found$/ }),
    row('work nonce of the wrong length', vnode(call('mc_submitWork', ['0x01', HASH, HASH])), BAD),
    row('miner_start with four billion threads', vnode(call('miner_start', ['0xffffffff'])), { ...BAD, message: /at most/ }),
    row('storage slot over 256 bits', vnode(call('mc_getStorageAt', [ADDR, '0x1' + '0'.repeat(64), 'latest'])), BAD),
    row('a JSON number of 400 digits (read as Infinity)', vnode('{"jsonrpc":"2.0","id":1,"method":"mc_getBlockByNumber","params":[1' + '0'.repeat(400) + ',false]}'), BAD),

    // --- unknown and disabled methods ---------------------------------------------------------
    method('nosuch', { ...UNKNOWN, message: /^the method nosuch does not exist\/is not available$/ }),
    method('mc_nosuch', UNKNOWN),
    method('MC_BLOCKNUMBER', UNKNOWN),
    method('mc_blockNumber ', UNKNOWN),
    method('', UNKNOWN),
    method('mc_', UNKNOWN),
    method('eth_blockNumber', UNKNOWN, { vnode: OK, ipc: OK }),
    method('web3_clientVersion', UNKNOWN, { vnode: OK, ipc: OK }),
    method('rpc_modules', UNKNOWN, { vnode: OK, ipc: OK }),
    // not in the default --rpcapi: HTTP refuses, IPC serves every namespace
    method('personal_listAccounts', UNKNOWN, { ipc: OK }),
    method('admin_nodeInfo', UNKNOWN, { ipc: OK }),
    method('scs_getSCSId', OK, { vnode: UNKNOWN, ipc: UNKNOWN }),
    method('ScsRPCMethod.GetScsId', UNKNOWN, { scsdebug: OK }),
    method('scsrpcmethod.getscsid', UNKNOWN, { scsdebug: OK }),

    // --- prototype names ----------------------------------------------------------------------
    ...['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'ScsRPCMethod.__proto__', 'ScsRPCMethod.constructor'].map(
      (name) => method(name, { ...UNKNOWN, message: new RegExp(`^the method ${name.replace(/\./g, '\\.')} does not exist`) }, undefined, 'prototype'),
    ),
    {
      name: '__proto__ as a param key carries nothing',
      category: 'prototype',
      request: per({
        vnode: '{"jsonrpc":"2.0","id":1,"method":"mc_getLogs","params":[{"__proto__":{"fromBlock":"0x5","toBlock":"0x1"}}]}',
        scs: `{"jsonrpc":"2.0","id":1,"method":"scs_directCall","params":[{"__proto__":{"to":"${c}"}}]}`,
        scsdebug: `{"jsonrpc":"2.0","id":1,"method":"ScsRPCMethod.GetNonce","params":{"__proto__":{"SubChainAddr":"${c}","Sender":"${ADDR}"}}}`,
      }),
      expect: BAD,
      except: { vnode: { code: 'ok', result: [] }, ipc: { code: 'ok', result: [] } },
    },
    {
      name: 'constructor, toString, hasOwnProperty as param keys are ignored',
      category: 'prototype',
      request: per({
        vnode: call('mc_call', [{ to: ADDR, constructor: 1, toString: 'x', hasOwnProperty: null }, 'latest']),
        scs: call('scs_directCall', [{ to: c, data: ADDR, constructor: 1, toString: 'x', hasOwnProperty: null }]),
        scsdebug: call('ScsRPCMethod.GetNonce', { SubChainAddr: c, Sender: ADDR, constructor: 1, toString: 'x', hasOwnProperty: null }),
      }),
      expect: OK,
    },
    { name: 'an envelope made only of __proto__', category: 'prototype', request: same('{"__proto__":{"jsonrpc":"2.0","id":1,"method":"mc_blockNumber","params":[]}}'), expect: { code: -32600, id: null } },
    {
      name: '__proto__ beside a valid envelope changes nothing',
      category: 'prototype',
      request: (tg) => zeroArg(1)(tg)!.replace(/}$/, ',"__proto__":{"method":"admin_stopRPC","id":9}}'),
      expect: { code: 'ok', id: 1 },
    },
    {
      name: 'params an object with only __proto__',
      category: 'prototype',
      request: raw('{"__proto__":[]}'),
      expect: { ...BAD, message: /expected an array/ },
      except: { scsdebug: OK },
    },

    // --- app-chain params ---------------------------------------------------------------------
    ...appChainCases(c, unknownChain, appTx),
  ];
}

/** The zero-argument call of each endpoint with raw `params` text. */
function raw(params: string) {
  return per({
    vnode: `{"jsonrpc":"2.0","id":1,"method":"mc_blockNumber","params":${params}}`,
    scs: `{"jsonrpc":"2.0","id":1,"method":"scs_getMicroChainList","params":${params}}`,
    scsdebug: `{"jsonrpc":"2.0","id":1,"method":"ScsRPCMethod.GetScsId","params":${params}}`,
  });
}

function appChainCases(c: string, unknownChain: string, appTx: (flag: bigint, to: string, via: string) => string): CorpusCase[] {
  const both = (scs: string, scsdebug: string) => per({ scs, scsdebug });
  const row = (name: string, request: CorpusCase['request'], expect: Expect, except?: CorpusCase['except']): CorpusCase => ({
    name, category: 'app-chain', request, expect, except,
  });
  const via = DEV[0].address; // the VNODE address: the first dev account by default
  return [
    row('unknown app chain', both(call('scs_getBlockNumber', [unknownChain]), call('ScsRPCMethod.GetBlockNumber', { SubChainAddr: unknownChain })), { code: -32000, message: /unknown app chain/ }),
    row('app chain address of 19 bytes', both(call('scs_getBlockNumber', ['0x' + '57'.repeat(19)]), call('ScsRPCMethod.GetBlockNumber', { SubChainAddr: '0x' + '57'.repeat(19) })), BAD),
    row('app chain address not hex', both(call('scs_getBlockNumber', ['0x' + 'zz'.repeat(20)]), call('ScsRPCMethod.GetBlockNumber', { SubChainAddr: '0x' + 'zz'.repeat(20) })), BAD),
    row('app chain address as a number', both(call('scs_getBlockNumber', [1]), call('ScsRPCMethod.GetBlockNumber', { SubChainAddr: 1 })), BAD),
    row('app chain address missing', both(call('scs_getBlockNumber', []), call('ScsRPCMethod.GetBlockNumber', {})), BAD),
    row('block list ending before it starts', both(call('scs_getBlockList', [c, '0x5', '0x1']), call('ScsRPCMethod.GetBlocks', { SubChainAddr: c, Start: 5, End: 1 })), { ...BAD, message: /below start block/ }),
    row('block list beyond the head is cut at the head', both(call('scs_getBlockList', [c, '0x0', '0xffffffff']), call('ScsRPCMethod.GetBlocks', { SubChainAddr: c, Start: 0, End: 4294967295 })), OK),
    row('record index negative', both(call('scs_getExchangeByAddress', [c, c, -1, 1, 0, 1, 0, 1, 0, 1]), call('ScsRPCMethod.GetExchangeByAddress', { SubChainAddr: c, Sender: c, EnterRecordIndex: -1 })), BAD),
    row('record index over 64 bits', both(call('scs_getExchangeByAddress', [c, c, '0x1' + '0'.repeat(16)]), call('ScsRPCMethod.GetExchangeByAddress', { SubChainAddr: c, Sender: c, EnterRecordIndex: '0x1' + '0'.repeat(16) })), BAD),
    row('record count of a billion', both(call('scs_getExchangeByAddress', [c, c, 0, 1e9]), call('ScsRPCMethod.GetExchangeByAddress', { SubChainAddr: c, Sender: c, EnterRecordSize: 1e9 })), OK),
    row('eleven exchange arguments', both(call('scs_getExchangeByAddress', [c, c, 0, 1, 0, 1, 0, 1, 0, 1, 0]), call('ScsRPCMethod.GetExchangeByAddress', [c])), BAD),
    row('nonce over 64 bits', both(call('scs_getReceiptByNonce', [c, c, '0x1' + '0'.repeat(16)]), call('ScsRPCMethod.GetReceiptByNonce', { SubChainAddr: c, Sender: c, Nonce: '0x1' + '0'.repeat(16) })), BAD),
    row('rpcdebug member names in any case', both(call('scs_getNonce', [c.toUpperCase().replace('0X', '0x'), c]), call('ScsRPCMethod.GetNonce', { subchainaddr: c, SENDER: c })), OK),
    row('AnyCall on an unregistered Dapp', both(call('scs_getDappState', [c]), call('ScsRPCMethod.AnyCall', { SubChainAddr: c, DappAddr: c, Params: ['get'] })), OK, { scsdebug: { code: -32000, message: /not registered/ } }),
    row('AnyCall with Params not an array', both(call('scs_getDappList', [c, c]), call('ScsRPCMethod.AnyCall', { SubChainAddr: c, DappAddr: c, Params: 'get' })), BAD),
    row('create an app chain with a bad address', both(call('scs_createAppChain', [{ address: '0x12' }]), call('scs_createAppChain', [{ address: '0x12' }])), BAD),
    row('create an app chain that exists', both(call('scs_createAppChain', [{ address: c }]), call('scs_createAppChain', [{ address: c }])), { code: -32000, message: /already exists/ }),
    // The VNODE hands flag 1-3 transactions to the SCS: its refusals come back through mc_sendRawTransaction.
    row('app-chain transaction for an unknown app chain', per({ vnode: () => call('mc_sendRawTransaction', [appTx(1n, unknownChain, via)]) }), { code: -32000, message: /unknown app chain/ }),
    row('app-chain transaction with a foreign via', per({ vnode: () => call('mc_sendRawTransaction', [appTx(1n, c, '0x' + '99'.repeat(20))]) }), { code: -32000, message: /^via error$/ }),
    row('shardingFlag 4', per({ vnode: () => call('mc_sendRawTransaction', [appTx(4n, c, via)]) }), { code: -32000 }),
  ];
}
