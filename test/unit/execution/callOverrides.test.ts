import t from 'tap';
import { asm } from '../../helpers/evmAsm.js';
import type { CallOverrides, CallRequest } from '../../../src/execution/call.js';
import type { StateOverrides } from '../../../src/state/overrideState.js';
import { keccak256 } from '../../../src/encoding/bytes.js';
import { intrinsicGas } from '../../../src/execution/gas.js';
import { CALLER, EOA, addr, buildState, bytes, executorFor, headerFor, hexAddress } from './fastCall/harness.js';

// State and block overrides (design.md §17) on both engines: one program reads everything an
// override can change (balance, code, code hash, storage, the nonce through CREATE's address, the
// block's fields, SSTORE's cost from the overridden value); both engines must give the values the
// overrides set, the same answer, and calls without overrides afterwards still see the stored state.

const READER = 0xc0de10n;
const GATE = 0xc0de11n;
const FEE = 0xfee0000000000000000000000000000000000fe0n;
const word = (n: bigint) => n.toString(16).padStart(64, '0');
const slot = (n: bigint) => '0x' + word(n);

const A = `PUSH20 ${hexAddress(EOA)}`;
const put = (i: number) => `PUSH ${i * 32} MSTORE`;
const READS = asm([
  `${A} BALANCE ${put(0)}`, `${A} EXTCODESIZE ${put(1)}`, `${A} EXTCODEHASH ${put(2)}`,
  `PUSH 1 SLOAD ${put(3)}`, `PUSH 2 SLOAD ${put(4)}`, `ADDRESS BALANCE ${put(5)}`,
  `NUMBER ${put(6)}`, `TIMESTAMP ${put(7)}`, `COINBASE ${put(8)}`, `GASLIMIT ${put(9)}`, `DIFFICULTY ${put(10)}`,
  `PUSH 0 PUSH 0 PUSH 0 CREATE ${put(11)}`,
  `PUSH 32 PUSH ${12 * 32} PUSH 0 PUSH 0 PUSH 0 ${A} GAS CALL POP`,
  `GAS PUSH 9 PUSH 1 SSTORE GAS SWAP1 SUB ${put(13)}`,
  `PUSH ${14 * 32} PUSH 0 RETURN`,
].join(' '));
// reverts unless its slot 1 is set
const GATE_CODE = asm('PUSH 1 SLOAD &ok JUMPI PUSH 0 PUSH 0 REVERT :ok STOP');
const RETURNS_77 = asm('PUSH 0x77 PUSH 0 MSTORE PUSH 32 PUSH 0 RETURN');

const state = buildState(new Map([[READER, READS], [GATE, GATE_CODE]]), new Map([[READER, new Map([[1n, 1n], [2n, 2n]])]]));
const read: CallRequest = { from: addr(CALLER), to: addr(READER), gas: 1_000_000n };

function words(out: Uint8Array): bigint[] {
  return Array.from({ length: out.length / 32 }, (_, i) => BigInt('0x' + Buffer.from(out.subarray(i * 32, i * 32 + 32)).toString('hex')));
}

/** CREATE's address from `sender` at `nonce` (RLP of [address, nonce] for small nonces). */
function created(sender: bigint, nonce: bigint): bigint {
  const n = nonce === 0n ? '80' : nonce < 0x80n ? nonce.toString(16).padStart(2, '0') : '81' + nonce.toString(16).padStart(2, '0');
  const body = '94' + sender.toString(16).padStart(40, '0') + n;
  const rlp = (0xc0 + body.length / 2).toString(16) + body;
  return BigInt('0x' + Buffer.from(keccak256(bytes(rlp)).subarray(12)).toString('hex'));
}

const accounts = (entries: [bigint, object][]): StateOverrides => new Map(entries.map(([a, o]) => [hexAddress(a), o]));

for (const fastCall of [true, false]) {
  const engine = fastCall ? 'interpreter' : 'library';

  t.test(`${engine}: overrides change what the call reads, for that call only`, async (t) => {
    const { sm, root } = await state;
    const ex = executorFor('petersburg', sm, { fastCall });
    const header = headerFor(root);
    const plain = words(await ex.call(read, { header }));
    t.same(plain.slice(0, 7), [12345n, 0n, BigInt('0x' + Buffer.from(keccak256(new Uint8Array())).toString('hex')), 1n, 2n, 1000n, 300n], 'the stored state');
    t.equal(plain[11], created(READER, 1n), 'CREATE at the stored nonce');
    t.equal(plain[13], 5008n, 'SSTORE over a set slot (and GAS, two PUSHes)');

    const overrides: CallOverrides = {
      state: accounts([
        [EOA, { balance: 5n, code: bytes(RETURNS_77) }],
        [READER, { nonce: 9n, balance: 77n, stateDiff: new Map([[slot(1n), bytes(word(0n))], [slot(3n), bytes(word(0xabn))]]) }],
      ]),
      block: { number: 1234n, time: 99n, gasLimit: 7_000_000n, feeRecipient: addr(FEE), difficulty: 5n },
    };
    const out = await ex.run(read, { header, overrides });
    t.equal(out.error, undefined);
    t.equal(out.engine, engine, `answered by the ${engine}`);
    const w = words(out.returnValue);
    t.same(w.slice(0, 11), [
      5n, BigInt(RETURNS_77.length / 2), BigInt('0x' + Buffer.from(keccak256(bytes(RETURNS_77))).toString('hex')), 0n, 2n, 77n,
      1234n, 99n, FEE, 7_000_000n, 5n,
    ], 'balance, code, code hash, stateDiff, untouched slot, block fields');
    t.equal(w[11], created(READER, 9n), 'CREATE at the overridden nonce');
    t.equal(w[12], 0x77n, 'the overridden code runs');
    t.equal(w[13], 20008n, 'SSTORE prices the overridden value (zero to non-zero)');

    const replaced = words(await ex.call(read, { header, overrides: { state: accounts([[READER, { state: new Map([[slot(2n), bytes(word(6n))]]) }]]) } }));
    t.same([replaced[3], replaced[4]], [0n, 6n], '`state` replaces the whole storage');

    const again = words(await ex.call(read, { header }));
    t.same(again, plain, 'a later call without overrides sees the stored state');
  });

  t.test(`${engine}: estimateGas with a state override`, async (t) => {
    const { sm, root } = await state;
    const ex = executorFor('petersburg', sm, { fastCall });
    const header = headerFor(root);
    const gate: CallRequest = { from: addr(CALLER), to: addr(GATE) };
    await t.rejects(ex.estimateGas(gate, { header }, 1_000_000n), { name: 'NodeError', message: '' }, 'reverts on the stored state');
    const open = { state: accounts([[GATE, { stateDiff: new Map([[slot(1n), bytes(word(1n))]]) }]]) };
    t.equal(await ex.estimateGas(gate, { header, overrides: open }, 1_000_000n), intrinsicGas(new Uint8Array(), false) + 3n + 200n + 3n + 10n + 1n, 'the cost on the overridden state');
    await t.rejects(ex.estimateGas(gate, { header }, 1_000_000n), { name: 'NodeError', message: '' }, 'and nothing stays');
  });
}

t.test('both engines agree on a set of overridden calls', async (t) => {
  const { sm, root } = await state;
  const header = headerFor(root);
  const fast = executorFor('petersburg', sm);
  const library = executorFor('petersburg', sm, { fastCall: false });
  const cases: CallOverrides[] = [
    { state: accounts([[CALLER, { balance: 0n }]]) },
    { state: accounts([[READER, { code: bytes(asm('PUSH 1 SLOAD PUSH 0 MSTORE PUSH 32 PUSH 0 RETURN')) }]]) },
    { state: accounts([[EOA, { code: bytes(asm('PUSH 0 PUSH 0 REVERT')) }]]) },
    { state: accounts([[0x999n, { balance: 1n }]]) },
    { block: { number: 0n } },
    { block: { gasLimit: 1n } },
  ];
  for (const overrides of cases) {
    const a = await fast.run(read, { header, overrides });
    const b = await library.run(read, { header, overrides });
    t.same({ ...a, engine: undefined }, { ...b, engine: undefined }, JSON.stringify(overrides, (_, v) => (typeof v === 'bigint' ? String(v) : v instanceof Map ? [...v] : v)));
  }
});
