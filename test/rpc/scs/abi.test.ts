// The SCS's ABI codec (AnyCall, registerDapp) against chain3's own Solidity coder, and the
// exact-number JSON writer of the rpcdebug variant.

import t from 'tap';
import { createRequire } from 'node:module';
import {
  decodeAbi, encodeAbi, findFunction, functionSelector, parseAbiType, type AbiValue,
} from '../../../src/scs/abi.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { RawJson, exactJson } from '../../../src/rpc/rawJson.js';
import { Dispatcher } from '../../../src/rpc/dispatch.js';
import { contract } from '../../helpers/abi.js';

const coder = createRequire(import.meta.url)('chain3/lib/solidity/coder');
const types = (...names: string[]) => names.map(parseAbiType);

t.test('encoding matches chain3 for static, dynamic and array types', async (t) => {
  const names = ['uint256[]', 'int8', 'string', 'bytes4', 'uint16[2]', 'address', 'bool', 'bytes'];
  const ours: AbiValue[] = [[1n, 2n, 3n], -10n, 'hello', hexToBytes('0xdeadbeef'), [1n, 2n], hexToBytes('0x' + 'ab'.repeat(20)), true, hexToBytes('0x1234')];
  const theirs = [[1, 2, 3], -10, 'hello', '0xdeadbeef', [1, 2], '0x' + 'ab'.repeat(20), true, '0x1234'];
  const encoded = encodeAbi(types(...names), ours);
  t.equal(bytesToHex(encoded), '0x' + coder.encodeParams(names, theirs));
  t.same(decodeAbi(types(...names), encoded), ours, 'and decodes back');
  const big = (1n << 255n) - 1n;
  t.equal(bytesToHex(encodeAbi(types('uint256', 'int256'), [big, -big])), '0x' + coder.encodeParams(['uint256', 'int256'], [big.toString(), (-big).toString()]));
  t.same(decodeAbi(types('int256', 'uint8'), encodeAbi(types('int256', 'uint8'), [-1n, 255n])), [-1n, 255n]);
  const unicode = encodeAbi(types('string'), ['héllo ✓']);
  t.equal(bytesToHex(unicode), '0x' + coder.encodeParams(['string'], ['héllo ✓']));
});

t.test('refuses what it cannot encode or decode', async (t) => {
  t.throws(() => parseAbiType('tuple'), { name: 'AbiError' });
  t.throws(() => parseAbiType('string[]'), /arrays of dynamic types/);
  t.throws(() => parseAbiType('uint7'), { name: 'AbiError' });
  t.throws(() => parseAbiType('bytes33'), { name: 'AbiError' });
  t.throws(() => encodeAbi(types('uint8'), [256n]), /out of range/);
  t.throws(() => encodeAbi(types('int8'), [-129n]), /out of range/);
  t.throws(() => encodeAbi(types('address'), [new Uint8Array(19)]), /20 bytes/);
  t.throws(() => encodeAbi(types('uint256[2]'), [[1n]]), /2 items/);
  t.throws(() => encodeAbi(types('uint256'), []), /expected 1 values/);
  t.throws(() => decodeAbi(types('uint256'), new Uint8Array(31)), /too short/);
  t.throws(() => decodeAbi(types('bytes'), hexToBytes('0x' + 'ff'.repeat(32))), /offset out of range/);
});

t.test('functions are found in a solc ABI by name and argument count', async (t) => {
  const abi = JSON.stringify(contract('Counter').abi);
  const increment = findFunction(abi, 'increment', 1);
  t.equal(bytesToHex(increment.selector), '0x7cf5dab0');
  t.same(increment.inputs.map((x) => x.name), ['uint256']);
  t.same(findFunction(abi, 'info', 1).outputs.map((x) => x.name), ['uint256', 'address', 'string', 'bool']);
  t.throws(() => findFunction(abi, 'increment', 2), /takes 1 arguments, got 2/);
  t.throws(() => findFunction(abi, 'nope', 0), /no function nope/);
  t.throws(() => findFunction('not json', 'get', 0), /not JSON/);
  t.equal(bytesToHex(functionSelector('registerDapp', types('address', 'address', 'string'))), '0xb5560a14');
  t.equal(bytesToHex(functionSelector('redeemFromMicroChain', [])), '0x89739c5b');
  t.equal(bytesToHex(functionSelector('buyMintToken', [])), '0x6bbded70');
});

t.test('exactJson writes bigints as exact numbers and leaves the rest to JSON', async (t) => {
  const value = { a: 123456789012345678901234567890n, b: [1n, 'x', null, true], c: undefined, d: { e: 0n }, f: new RawJson('{"g":1}') };
  t.equal(exactJson(value), '{"a":123456789012345678901234567890,"b":[1,"x",null,true],"d":{"e":0},"f":{"g":1}}');
  t.equal(exactJson('a"b'), '"a\\"b"');
  t.equal(exactJson([undefined]), '[null]');
});

t.test('the dispatcher writes a RawJson result verbatim, alone and in a batch', async (t) => {
  const methods = new Map([['big', { handler: () => new RawJson(exactJson({ n: 2n ** 70n })) }]]);
  const dispatcher = new Dispatcher({ methods });
  t.equal(await dispatcher.handle('{"jsonrpc":"2.0","id":1,"method":"big"}', { transport: 'http' }), '{"jsonrpc":"2.0","id":1,"result":{"n":1180591620717411303424}}');
  t.equal(
    await dispatcher.handle('[{"jsonrpc":"2.0","id":"a","method":"big"}]', { transport: 'http' }),
    '[{"jsonrpc":"2.0","id":"a","result":{"n":1180591620717411303424}}]',
  );
});
