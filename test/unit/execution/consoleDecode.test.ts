// console.log payloads as contracts send them (abi.encodeWithSignature of console.sol's
// signatures) decode to the text Hardhat and Anvil print.

import t from 'tap';
import { decodeConsoleLog } from '../../../src/execution/consoleDecode.js';
import { isConsoleAddress, CONSOLE_ADDRESS } from '../../../src/execution/consoleLog.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { selector, word } from '../../helpers/abi.js';

const str = (s: string) => word(Buffer.byteLength(s)) + Buffer.from(s).toString('hex').padEnd(Math.ceil(Buffer.byteLength(s) / 32) * 64, '0');
const payload = (sig: string, head: string[], tail = '') => hexToBytes(selector(sig) + head.join('') + tail);

t.test('every argument type', async (t) => {
  t.equal(decodeConsoleLog(payload('log()', [])), '');
  t.equal(decodeConsoleLog(payload('log(uint256)', [word(42)])), '42');
  t.equal(decodeConsoleLog(payload('log(uint)', [word(42)])), '42', 'the older `uint` spelling');
  t.equal(decodeConsoleLog(payload('log(int256)', [word((1n << 256n) - 5n)])), '-5');
  t.equal(decodeConsoleLog(payload('logInt(int)', [word((1n << 256n) - 1n)])), '-1');
  t.equal(decodeConsoleLog(payload('log(bool)', [word(1)])), 'true');
  t.equal(decodeConsoleLog(payload('log(address)', [word('0xc4c4fb5146a694d58521b4a135564765b6cec4fa')])), '0xc4C4FB5146A694D58521B4A135564765B6cEC4Fa');
  t.equal(decodeConsoleLog(payload('log(string)', [word(32)], str('hello'))), 'hello');
  t.equal(decodeConsoleLog(payload('logBytes(bytes)', [word(32)], str('\x01\x02'))), '0x0102');
  t.equal(decodeConsoleLog(payload('logBytes2(bytes2)', ['abcd'.padEnd(64, '0')])), '0xabcd');
  t.equal(decodeConsoleLog(payload('log(uint256,bool,address,string)', [word(7), word(0), word('0x' + '00'.repeat(19) + '01'), word(128)], str('x'))), '7 false 0x0000000000000000000000000000000000000001 x');
});

t.test('a first string formats the others', async (t) => {
  t.equal(decodeConsoleLog(payload('log(string,uint256)', [word(64), word(5)], str('n=%d!'))), 'n=5!');
  t.equal(decodeConsoleLog(payload('log(string,uint256,uint256)', [word(96), word(255), word(3)], str('%x and %s, 100%%'))), '0xff and 3, 100%');
  t.equal(decodeConsoleLog(payload('log(string,uint256)', [word(64), word(5)], str('no spec'))), 'no spec 5', 'leftover arguments follow');
  t.equal(decodeConsoleLog(payload('log(string,int256)', [word(64), word((1n << 256n) - 2n)], str('%i'))), '-2');
});

t.test('anything else is not a console call', async (t) => {
  t.equal(decodeConsoleLog(hexToBytes(selector('transfer(address,uint256)') + word(1) + word(2))), undefined);
  t.equal(decodeConsoleLog(hexToBytes('0x1234')), undefined);
  t.equal(decodeConsoleLog(payload('log(string)', [word(32)])), undefined, 'a truncated payload');
  t.ok(isConsoleAddress(CONSOLE_ADDRESS));
  t.notOk(isConsoleAddress(hexToBytes('0x000000000000000000636f6e736f6c652e6c6f68')));
  t.notOk(isConsoleAddress(new Uint8Array(20)));
});
