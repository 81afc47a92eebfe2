// eth_simulateV1 / mc_simulateV1 on a running node (design.md §17): blocks on top of the head
// with state carried between them, geth's result and error shapes and codes, validation,
// traceTransfers, the 256-block limit, nothing written; the chain-agnostic parts compared with
// the real Anvil.

import t from 'tap';
import { startNode, type TestNode } from '../../helpers/node.js';
import { asm } from '../../helpers/evmAsm.js';
import { anvilBinary, startAnvil } from '../../helpers/anvil.js';
import { testDir } from '../../helpers/testDir.js';

let node: TestNode;
t.before(async () => {
  node = await startNode(testDir(t), ['--mining.mode', 'instant']);
});
t.teardown(() => node.stop());

const S = '0x' + 'a1'.repeat(20);
const Y = '0x' + 'a2'.repeat(20);
const C = '0x' + 'a3'.repeat(20);
const R = '0x' + 'a4'.repeat(20);
const ETHER = 10n ** 18n;
const hex = (n: bigint) => '0x' + n.toString(16);
const word = (n: bigint) => '0x' + n.toString(16).padStart(64, '0');
// returns Y's balance; logs LOG1(topic 7) with no data
const READS_Y = '0x' + asm(`PUSH 7 PUSH 0 PUSH 0 LOG1 PUSH20 ${Y} BALANCE PUSH 0 MSTORE PUSH 32 PUSH 0 RETURN`);
// forwards its value to Y, then returns
const FORWARD = '0x' + asm(`PUSH 0 PUSH 0 PUSH 0 PUSH 0 CALLVALUE PUSH20 ${Y} GAS CALL POP STOP`);
const REVERTS = '0x' + asm('PUSH 0xbad PUSH 0 MSTORE PUSH 32 PUSH 0 REVERT');
const PUSH0 = '0x5f5f5500';

const request = (extra: object = {}) => ({
  blockStateCalls: [
    {
      stateOverrides: { [S]: { balance: hex(10n * ETHER) }, [C]: { code: READS_Y }, [R]: { code: REVERTS } },
      calls: [
        { from: S, to: Y, value: hex(5n) },
        { from: S, to: C },
        { from: S, to: R },
      ],
    },
    { blockOverrides: { time: '0x7fffffff' }, calls: [{ from: S, to: C }] },
  ],
  ...extra,
});

t.test('two blocks on the head: shapes, state carried over, nothing written', async (t) => {
  const head = await node.rpc('eth_getBlockByNumber', ['latest', false]);
  const blocks = await node.rpc('eth_simulateV1', [request(), 'latest']);
  t.equal(blocks.length, 2);
  const [one, two] = blocks;
  t.equal(BigInt(one.number), BigInt(head.number) + 1n);
  t.equal(one.parentHash, head.hash);
  t.equal(BigInt(one.timestamp), BigInt(head.timestamp) + 12n, "geth's 12 s step");
  t.equal(two.parentHash, one.hash);
  t.equal(two.timestamp, '0x7fffffff');
  t.equal(one.transactions.length, 3);
  t.equal(one.calls.length, 3);
  const [transfer, read, revert] = one.calls;
  t.same([transfer.status, transfer.returnData, transfer.logs], ['0x1', '0x', []]);
  t.equal(read.status, '0x1');
  t.equal(read.returnData, word(5n), 'the transfer before it is seen');
  t.equal(read.logs.length, 1);
  t.match(read.logs[0], { address: C, topics: [word(7n)], blockHash: one.hash, blockNumber: one.number, transactionHash: one.transactions[1], transactionIndex: '0x1', logIndex: '0x0' });
  t.same(revert.error, { code: -32000, message: 'execution reverted', data: word(0xbadn) });
  t.equal(revert.status, '0x0');
  t.equal(BigInt(one.gasUsed), BigInt(transfer.gasUsed) + BigInt(read.gasUsed) + BigInt(revert.gasUsed));
  t.equal(two.calls[0].returnData, word(5n), 'the next block starts from the state the first left');

  const after = await node.rpc('eth_getBlockByNumber', ['latest', false]);
  t.equal(after.hash, head.hash, 'no block was made');
  t.equal(await node.rpc('eth_getBalance', [Y, 'latest']), '0x0', 'no state was written');
  t.equal(await node.rpc('eth_getCode', [C, 'latest']), '0x');
  t.same(await node.rpc('eth_pendingTransactions', []), []);
});

t.test('traceTransfers and returnFullTransactions', async (t) => {
  const [one] = await node.rpc('mc_simulateV1', [{
    blockStateCalls: [{ stateOverrides: { [S]: { balance: hex(ETHER) }, [C]: { code: FORWARD } }, calls: [{ from: S, to: C, value: hex(9n) }] }],
    traceTransfers: true, returnFullTransactions: true,
  }]);
  const pad = (a: string) => '0x' + a.slice(2).padStart(64, '0');
  const sig = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
  t.same(one.calls[0].logs.map((l: any) => [l.address, l.topics, l.data]), [
    ['0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', [sig, pad(S), pad(C)], word(9n)],
    ['0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', [sig, pad(C), pad(Y)], word(9n)],
  ], 'the call and the inner call, in order');
  t.equal(one.transactions[0].from, S);
  t.equal(one.transactions[0].to, C);
  t.equal(one.transactions[0].value, '0x9');
});

t.test("geth's errors: validation, order, limits", async (t) => {
  const code = async (params: unknown[]) => (await node.call('eth_simulateV1', params)).error;
  const head = BigInt((await node.rpc('eth_getBlockByNumber', ['latest', false])).number);
  t.match(await code([{ blockStateCalls: [{ calls: [{ from: S, to: Y, value: '0x1' }] }] }]), { code: -38014 }, 'no funds for the value');
  t.match(await code([{ validation: true, blockStateCalls: [{ calls: [{ from: S, to: Y, nonce: '0x5' }] }] }]), { code: -38011, message: /nonce too high/ });
  t.same((await node.rpc('eth_simulateV1', [{ blockStateCalls: [{ calls: [{ from: S, to: Y, nonce: '0x5' }] }] }]))[0].calls[0].status, '0x1', 'without validation the nonce is not checked');
  t.match(await code([{ blockStateCalls: [{ blockOverrides: { number: hex(head) } }] }]), { code: -38020, message: /block numbers must be in order/ });
  t.match(await code([{ blockStateCalls: [{ blockOverrides: { time: '0x0' } }] }]), { code: -38021, message: /block timestamps must be in order/ });
  t.match(await code([{ blockStateCalls: [{ blockOverrides: { number: hex(head + 257n) } }] }]), { code: -38026, message: 'too many blocks' });
  t.match(await code([{ blockStateCalls: [{ calls: [{ from: S, to: Y, gas: '0xfffffffff' }] }] }]), { code: -38015 });
  t.match(await code([{ blockStateCalls: [{ stateOverrides: { [S]: { state: {}, stateDiff: {} } } }] }]), { code: -32602 });
  t.match(await code([{}]), { code: -32602, message: /blockStateCalls/ });
  const gap = await node.rpc('eth_simulateV1', [{ blockStateCalls: [{ blockOverrides: { number: hex(head + 3n) } }] }]);
  t.same(gap.map((b: any) => BigInt(b.number)), [head + 1n, head + 2n, head + 3n], 'gaps are filled with empty blocks');
  const full = await node.rpc('eth_simulateV1', [{ blockStateCalls: [{ blockOverrides: { number: hex(head + 256n) } }] }]);
  t.equal(full.length, 256, '256 blocks is the limit');
  const [bad] = await node.rpc('eth_simulateV1', [{ blockStateCalls: [{ stateOverrides: { [C]: { code: PUSH0 } }, calls: [{ to: C }] }] }]);
  t.same(bad.calls[0].error, { code: -32015, message: 'invalid opcode: PUSH0 (0x5f) is not in petersburg; compile with evmVersion petersburg' }, 'an EVM error, the opcode named');
  t.equal(bad.calls[0].status, '0x0');
});

t.test('the chain-agnostic parts agree with Anvil', { skip: anvilBinary() ? false : 'no anvil binary' }, async (t) => {
  const anvil = await startAnvil();
  t.teardown(() => anvil.stop());
  const req = { ...request(), traceTransfers: true };
  // Anvil 1.7 answers a revert with code -3200 where geth (and mcnode) say -32000
  const shape = (blocks: any[]) => blocks.map((b) => b.calls.map((c: any) => ({
    status: c.status, returnData: c.returnData, error: c.error?.code === -3200 ? -32000 : c.error?.code,
    logs: c.logs.map((l: any) => [l.address.toLowerCase(), l.topics, l.data]),
  })));
  const [ours, theirs] = [await node.rpc('eth_simulateV1', [req, 'latest']), await anvil.rpc('eth_simulateV1', [req, 'latest'])];
  t.same(shape(ours), shape(theirs));
  t.equal(ours[1].timestamp, theirs[1].timestamp);
  const errs = [await node.call('eth_simulateV1', [{ validation: true, blockStateCalls: [{ calls: [{ from: S, to: Y, nonce: '0x5' }] }] }]),
    await anvil.call('eth_simulateV1', [{ validation: true, blockStateCalls: [{ calls: [{ from: S, to: Y, nonce: '0x5' }] }] }])];
  t.comment(`Anvil: ${JSON.stringify(errs[1].error)}; mcnode: ${JSON.stringify(errs[0].error)}`);
});
