// The one error mapping: every ErrorKind has a code, and nothing thrown escapes as a crash.

import t from 'tap';
import { ErrorKind, NodeError, SimulationError, invalidParams, limitExceeded, refused } from '../../../src/errors.js';
import { RpcCode, methodNotFound, toRpcError } from '../../../src/rpc/errors.js';

t.test('each kind maps to its code', async (t) => {
  const expected: Record<ErrorKind, number> = {
    invalidParams: -32602,
    refused: -32000,
    txRejected: -32000,
    notFound: -32000,
    executionFailed: -32000,
    invalidTransaction: -32000,
    invalidSignature: -32000,
    keyFile: -32000,
    invalidEnode: -32000,
    invalidRange: -32000,
    alreadyExists: -32000,
    wrongState: -32000,
    outOfRange: -32000,
    unsupported: -32000,
    aborted: -32000,
    unauthorized: -32000,
    limitExceeded: -32005,
    reverted: 3,
    forkUnavailable: -32000,
    unavailable: -32601,
    timeout: 4,
    simulationRejected: -32000,
    internal: -32603,
  };
  for (const kind of Object.values(ErrorKind)) {
    t.equal(toRpcError(new NodeError(kind, 'm'), false).code, expected[kind], kind);
  }
  t.same(toRpcError(new SimulationError(-38014, 'insufficient funds'), false), { code: -38014, message: 'insufficient funds' }, "simulation keeps geth's code");
  t.same(toRpcError(invalidParams('invalid argument 1: not a hex string'), false), {
    code: -32602,
    message: 'invalid argument 1: not a hex string',
  });
  t.same(toRpcError(refused('nonce too low'), false), { code: -32000, message: 'nonce too low' });
  t.same(toRpcError(refused('already known', { hash: '0x01' }), false), {
    code: -32000,
    message: 'already known',
    data: { hash: '0x01' },
  });
  t.same(toRpcError(limitExceeded('filters'), false), { code: -32005, message: 'limit exceeded: filters' });
});

t.test('reverted: geth message, hex data', async (t) => {
  const rev = (message: string, data?: unknown) => toRpcError(new NodeError(ErrorKind.Reverted, message, data), false);
  t.same(rev('', '0x'), { code: 3, message: 'execution reverted', data: '0x' });
  t.same(rev('execution reverted', '0xdead'), { code: 3, message: 'execution reverted', data: '0xdead' });
  t.same(rev('Ownable: caller is not the owner', '0x08c379a0'), {
    code: 3,
    message: 'execution reverted: Ownable: caller is not the owner',
    data: '0x08c379a0',
  });
  t.same(rev('execution reverted: low', '0x01'), { code: 3, message: 'execution reverted: low', data: '0x01' });
  t.same(rev('x', new Uint8Array([0xca, 0xfe])), { code: 3, message: 'execution reverted: x', data: '0xcafe' });
  t.same(rev('execution reverted'), { code: 3, message: 'execution reverted' });
});

t.test('anything else is an internal error; stacks only with debug', async (t) => {
  for (const thrown of [new Error('secret path /home/x'), 'str', undefined, null, 42, { code: 1, message: 'fake' }]) {
    t.same(toRpcError(thrown, false), { code: RpcCode.Internal, message: 'internal error' });
  }
  const withStack = toRpcError(new TypeError('bad'), true);
  t.equal(withStack.message, 'internal error');
  t.match(withStack.data, /^TypeError: bad\n/);
  t.equal(toRpcError('plain', true).data, 'plain');
  const unprintable = { toString: () => { throw new Error('no'); } };
  t.same(toRpcError(unprintable, true), { code: -32603, message: 'internal error', data: 'unprintable thrown value' });
  t.same(toRpcError(new NodeError(ErrorKind.Internal, 'db closed'), false), { code: -32603, message: 'db closed' });
});

t.test('unknown method text is exact', async (t) => {
  t.same(methodNotFound('eth_foo'), { code: -32601, message: 'the method eth_foo does not exist/is not available' });
});

t.test('errors of the CLI-shared modules map to the parameter that carries them', async (t) => {
  const { ChainFileError } = await import('../../../src/chainFile/chainFileError.js');
  const { AbiError } = await import('../../../src/scs/abi.js');
  const { AppChainSpecError } = await import('../../../src/scs/appChainSpec.js');
  t.same(toRpcError(new ChainFileError('block 17: state root mismatch'), false), { code: -32000, message: 'block 17: state root mismatch' });
  t.same(toRpcError(new AppChainSpecError('flushRound', 'must be at least 40'), false), {
    code: -32602,
    message: 'invalid argument 0: field "flushRound": must be at least 40',
  });
  t.same(toRpcError(new AbiError('uint8: value out of range'), false), { code: -32602, message: 'invalid argument Params: uint8: value out of range' });
  t.same(toRpcError(new RangeError('a bug'), false), { code: -32603, message: 'internal error' }, 'anything else is internal');
});
