// toRpcError knows every ErrorKind: a kind added without a mapping lands in the internal-error
// fallback and fails here (and the table in rpc/errors.ts stops compiling).

import t from 'tap';
import {
  ErrorKind, NodeError, aborted, alreadyExists, invalidEnode, invalidRange, invalidSignature, invalidTransaction,
  keyFileError, outOfRange, unsupported, wrongState,
} from '../../../src/errors.js';
import { RpcCode, toRpcError } from '../../../src/rpc/errors.js';

t.test('every kind has its own mapping, keeping message and data', async (t) => {
  for (const kind of Object.values(ErrorKind)) {
    const wire = toRpcError(new NodeError(kind, 'why', { detail: 1 }), false);
    if (kind === ErrorKind.Internal) {
      t.same(wire, { code: RpcCode.Internal, message: 'why' }, kind);
      continue;
    }
    t.not(wire.code, RpcCode.Internal, `${kind} is mapped`);
    t.match(wire.message, /why$/, `${kind} keeps its message`);
    t.same(wire.data, { detail: 1 }, `${kind} keeps its data`);
  }
  // A kind outside the table (only a cast can make one) is reported as a bug, not as a refusal.
  t.same(toRpcError(new NodeError('bogus' as ErrorKind, 'why'), false), { code: RpcCode.Internal, message: 'internal error' });
});

t.test('the specific kinds keep the wire of the former free-text refusals', async (t) => {
  const cases: [NodeError, ErrorKind, string][] = [
    [invalidTransaction('invalid chain id: have 5, want 100'), ErrorKind.InvalidTransaction, 'invalid chain id: have 5, want 100'],
    [invalidSignature('invalid signature: recovery failed'), ErrorKind.InvalidSignature, 'invalid signature: recovery failed'],
    [keyFileError('unsupported key file: version is not 3'), ErrorKind.KeyFile, 'unsupported key file: version is not 3'],
    [invalidEnode('missing node id'), ErrorKind.InvalidEnode, 'invalid enode: missing node id'],
    [invalidRange(), ErrorKind.InvalidRange, 'invalid block range: fromBlock > toBlock'],
    [alreadyExists('account already exists'), ErrorKind.AlreadyExists, 'account already exists'],
    [wrongState('HTTP RPC not running'), ErrorKind.WrongState, 'HTTP RPC not running'],
    [outOfRange('unlock duration too large'), ErrorKind.OutOfRange, 'unlock duration too large'],
    [unsupported('genesis is not traceable'), ErrorKind.Unsupported, 'genesis is not traceable'],
    [aborted('sealing was interrupted'), ErrorKind.Aborted, 'sealing was interrupted'],
  ];
  for (const [err, kind, message] of cases) {
    t.equal(err.kind, kind);
    t.same(toRpcError(err, false), { code: RpcCode.Server, message }, kind);
  }
});
